"""The papers rfbench reproduces, one folder each, holding only what is that paper's own.

A paper folder ``rfbench/papers/<paper>/`` has ``published.csv`` (the values the paper printed,
transcribed, used only for comparison; schema in :mod:`rfbench.report.published`), ``report.py``
(its tables and figures from our records, its claim checks, ``python -m
rfbench.papers.<paper>.report <target>``) and any computation only that paper needs. Everything
generic (kernels, feature maps, models, datasets, the engine and the report layer) is imported
from the role packages.

- ``askrff``: He et al. 2022, asymmetric kernels with asymmetric random features (AsK-RFF).
- ``qmc``: Avron, Sindhwani, Yang, Mahoney 2016, quasi-Monte Carlo feature maps.
- ``li``: Li 2017, linearized GMM kernels and normalized random Fourier features.
- ``rr``: Rahimi and Recht 2007, random features for large-scale kernel machines.
- ``tutorial``: the Bochner-theorem tutorial's one-dimensional demonstration.
"""
