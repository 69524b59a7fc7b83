"""Li 2017, GMM kernels and NRFF: variance theory (``variance``, ``simulation``, ``theory``), tables and curves."""
