"""The engine: from a composed config to atomic, resumable records.

- :mod:`~rfbench.engine.config`: the run id and the config rules; :mod:`~rfbench.engine.preflight`
  checks a command line before any work; :mod:`~rfbench.engine.components` builds the kernel,
  feature map and model a config names.
- :mod:`~rfbench.engine.runner`: one run's trials (sample the map, measure the Gram error, select
  and test the model), resumable by trial; :mod:`~rfbench.engine.records` its records under
  ``<results_dir>/<experiment.name>/runs/<run_id>/``, written atomically through
  :mod:`~rfbench.storage.atomic`.
- :mod:`~rfbench.engine.callbacks`: the Hydra callback that tables a sweep;
  :mod:`~rfbench.engine.progress`: done/total with an ETA; :mod:`~rfbench.engine.verify`: recompute
  recorded runs from their configs and compare.
"""
