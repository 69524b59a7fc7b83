"""Files on disk, below both the engine and the datasets: nothing here imports the rest of rfbench.

- :mod:`~rfbench.storage.atomic`: a file replaced whole or not at all, bytes appended whole or not at
  all, and the temporaries killed writers leave;
- :mod:`~rfbench.storage.locations`: where the configs and the data cache are, in a checkout or a wheel.

The records of a run (what the files mean, how runs resume) are :mod:`rfbench.engine.records`.
"""
