"""The tutorial's job and report run into a results tree, for the tests that read its records."""
from pathlib import Path

from hydra import compose, initialize_config_dir

from rfbench.engine import config, jobs
from rfbench.papers.tutorial import report


def run_tutorial(results: Path) -> Path:
    """``make tutorial`` into ``results``: the job (``job=tutorial``), then its report; returns the report folder."""
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        cfg = config.to_dict(compose("config", overrides=["job=tutorial", f"experiment.results_dir={results}"]))
    jobs.run(cfg)
    return report.render(results)
