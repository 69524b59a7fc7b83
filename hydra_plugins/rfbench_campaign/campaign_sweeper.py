"""Hydra instantiates sweepers only from the ``hydra_plugins`` namespace: rfbench's lives here.

``hydra/sweeper=campaign`` (``configs/hydra/sweeper/campaign.yaml``) selects it; the logic is
:class:`rfbench.engine.launch.CampaignSweeper`.
"""
from rfbench.engine import launch


class CampaignSweeper(launch.CampaignSweeper):
    """One campaign target's jobs, complete runs skipped, the rest longest first in one launch."""
