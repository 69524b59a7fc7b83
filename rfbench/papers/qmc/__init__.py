"""Avron et al. 2016, QMC feature maps: Gram curves, Tables 1-3 and Figs. 2-7 (``report`` and one module a target)."""
