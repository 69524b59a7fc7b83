"""He et al. 2022, AsK-RFF: Table 1 and Figs. 1-3 (``report``), its figures (``figures``)."""
