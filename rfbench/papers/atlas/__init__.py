"""The atlas of random feature maps (issue 36): every Gaussian-kernel map, and the Laplacian's, side
by side on six datasets, at equal output widths and one bandwidth per dataset.

Not a paper: no published values, no verdicts.  It lives beside the papers because it is a
campaign (``configs/campaign/atlas.yaml``, whose steps run modules of this folder) with its own
computation (the bandwidth choice, :mod:`rfbench.papers.atlas.bandwidth`, a job) and its own report
(:mod:`rfbench.papers.atlas.report`), which only reads records; it is not in
``rfbench.report.project.PAPERS``, the papers judged against their published values.
"""
