"""Validation of a composed rfbench config and the values derived from it.

These checks run before any data is loaded, so a typo costs nothing, and every
message names the field, the bad value and what is allowed.  The parameters the
components check themselves against the data's dimension (``kernel.r`` of length
d, a feature map's choices, LibLinear's solver) are checked by the runner right
after loading, still before anything is written.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from rfbench.dataset import own_file
from rfbench.metrics import NORMS
from rfbench.storage import locations
from rfbench.validation import is_int

#: The config groups every run composes.
GROUPS = ("dataset", "kernel", "feature_map", "classifier", "experiment")
#: The config groups: the repository's top-level configs/, or their copy inside an installed package.
CONFIG_DIR = locations.CONFIG_DIR


#: Config keys that change how a run executes, not what it computes; excluded from run ids.
EXECUTION_KEYS = (
    "experiment.name", "experiment.trials", "experiment.results_dir", "experiment.force",
    "experiment.blas_threads", "experiment.chunk_rows", "experiment.gram_block", "classifier.n_jobs",
    "experiment.time_transform",
)

#: Prose recorded with a run (its config.yaml, a column of its rows) that says how it departs from a
#: paper: information, not identity, so rewording it orphans no recorded run.
DESCRIPTION_KEYS = ("dataset.deviations",)

#: Where a dataset's bytes come from, not what they are (each file's own sha256 stays in the
#: run id): pinning a URL's hash, adding a mirror or moving your own file must not orphan the recorded runs.
PROVENANCE_KEYS = re.compile(r"dataset\.(mirror|allow_unverified|files\.[^.]+\.urls|path|test_path)")

#: Keys added after runs were first recorded, with the value every earlier run implied: at that
#: value a key is left out of the run id, so adding it orphaned no recorded run.
IMPLIED_VALUES: dict[str, Any] = {
    "dataset.task": "classification",
    "dataset.scale": "minmax",
    "classifier.selection": "cv",
    "experiment.gram_norms": json.dumps(["fro"]),
    "job.trig": "direct",  # qmc_learnt's box discrepancy (rfbench.qmc.discrepancy.TRIG)
    "classifier.newton_step": "primal",  # LibLinearClassifier's Newton systems (model.liblinear.NEWTON_STEPS)
}


def identifies_run(key: str, value: Any = None) -> bool:
    """Whether a flattened config key (at ``value``) is part of the run id.

    Left out: execution settings (EXECUTION_KEYS), prose (DESCRIPTION_KEYS), where the data came
    from (PROVENANCE_KEYS), the code a component runs (``_target_``: ``name`` names the component)
    and keys at their IMPLIED_VALUES.
    """
    return not (key in EXECUTION_KEYS or key in DESCRIPTION_KEYS or PROVENANCE_KEYS.fullmatch(key)
                or key.endswith("._target_") or key in IMPLIED_VALUES and value == IMPLIED_VALUES[key])


class ConfigError(ValueError):
    """An invalid configuration value, reported before any work starts."""


def to_dict(cfg: DictConfig | Mapping) -> dict[str, Any]:
    """The resolved config as plain Python containers (without the hydra node), a dataset of the user's
    own file with what the file says (its sha256, task, ...: ``rfbench.dataset.own_file.describe``)."""
    if isinstance(cfg, DictConfig):
        cfg = OmegaConf.to_container(cfg, resolve=True)
    plain = {k: v for k, v in dict(cfg).items() if k != "hydra"}
    if isinstance(plain.get("dataset"), Mapping) and own_file.is_own_file(plain["dataset"]):
        plain["dataset"] = own_file.describe(plain["dataset"])
    return plain


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mapping -> {"a.b.c": value}; lists become JSON strings (one CSV cell each)."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = json.dumps(value) if isinstance(value, (list, tuple)) else value
    return flat


def run_id(cfg: Mapping[str, Any]) -> str:
    """Stable 12-hex id of everything that determines a run's numbers (see ``identifies_run``).

    Numbers are hashed as floats, so ``m_over_d=2`` and ``m_over_d=2.0`` share a run.
    """
    flat = {k: v for k, v in flatten(_as_floats(identity(cfg))).items() if identifies_run(k, v)}
    blob = json.dumps(flat, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def identity(cfg: Mapping[str, Any]) -> Mapping[str, Any]:
    """The part of a config its run id hashes: all of it for a run, the ``job`` node and the
    experiment's seed for a job (``job=<name>``: the other groups play no part in its numbers),
    and the ``dataset`` node for a job that reads it (``job.data: true``)."""
    if cfg.get("job"):
        uses_data = {"dataset": cfg["dataset"]} if cfg["job"].get("data") else {}
        return {"job": cfg["job"], **uses_data, "experiment": {"seed": cfg["experiment"]["seed"]}}
    return cfg


def _as_floats(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _as_floats(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_floats(v) for v in value]
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def blas_threads_per_job() -> int | None:
    """BLAS threads for one job, so that concurrent jobs x threads fits the cores.

    Resolves ``experiment.blas_threads`` from the Hydra launcher: joblib's
    ``n_jobs`` shares ``os.cpu_count()`` cores, submitit grants ``cpus_per_task``
    and Ray ``ray.remote.num_cpus`` (default 1) per job.  None (the library
    default, all cores) for the basic launcher, which runs one job at a time.
    """
    if not HydraConfig.initialized():
        return None
    launcher, cores = HydraConfig.get().launcher, os.cpu_count() or 1
    if launcher.get("n_jobs") is not None:
        n_jobs = launcher.n_jobs if launcher.n_jobs > 0 else cores + 1 + launcher.n_jobs  # -1: all cores
        return max(1, cores // max(1, n_jobs))
    if launcher.get("cpus_per_task") is not None:
        return int(launcher.cpus_per_task)
    if launcher.get("ray") is not None:
        return int(launcher.ray.remote.get("num_cpus", 1))
    return None


def job_cores() -> int:
    """The most cores one job may use: this machine's, or more where a cluster launcher grants a job more
    (submitit's ``cpus_per_task``, Ray's ``num_cpus``: a submitting host may have fewer than a node)."""
    cores = os.cpu_count() or 1
    if HydraConfig.initialized():
        launcher = HydraConfig.get().launcher
        ray = launcher.get("ray")
        for granted in (launcher.get("cpus_per_task"), ray.remote.get("num_cpus") if ray is not None else None):
            cores = max(cores, granted) if is_int(granted) else cores
    return cores


# Registered on import, so it also resolves inside launcher workers (which import rfbench).
OmegaConf.register_new_resolver("blas_threads_per_job", blas_threads_per_job, replace=True)


#: The most trials one run may ask for: checked before anything is allocated for them (a set of a billion
#: trial numbers would exhaust the memory before the first trial).  The committed runs take at most 10.
MAX_TRIALS = 100_000


def _require(ok: bool, field: str, value: Any, allowed: str) -> None:
    if not ok:
        raise ConfigError(f"{field}={value!r} is invalid: {allowed}")


def validate(cfg: Mapping[str, Any]) -> None:
    """Raise ConfigError on the first invalid experiment-level value of a composed config.

    The components check their own parameters (``rfbench.engine.components.check``).
    """
    for group in GROUPS:
        _require(isinstance(cfg.get(group), Mapping), group, cfg.get(group),
                 f"every run takes one {group}: pass {group}=<name>")
    exp = cfg["experiment"]
    _require(is_int(exp["trials"]) and 1 <= exp["trials"] <= MAX_TRIALS, "experiment.trials", exp["trials"],
             f"an integer >= 1 and <= {MAX_TRIALS} (each trial adds a row to trials.csv, which every trial "
             "reads and rewrites: more is work no machine finishes)")
    _require(is_int(exp["n_gram"]) and exp["n_gram"] >= 0,
             "experiment.n_gram", exp["n_gram"], "an integer >= 0 (0 skips the Gram error)")
    _require(is_int(exp["seed"]) and exp["seed"] >= 0, "experiment.seed", exp["seed"],
             "an integer >= 0 (numpy SeedSequence entropy)")
    for key in ("gram_block", "chunk_rows"):
        _require(is_int(exp[key]) and exp[key] >= 1, f"experiment.{key}", exp[key],
                 "an integer >= 1")
    limit = job_cores()
    for field, value, null in (("experiment.blas_threads", exp["blas_threads"], "the library default"),
                               ("classifier.n_jobs", cfg["classifier"].get("n_jobs"), "the job's BLAS threads")):
        _require(value is None or is_int(value) and 1 <= value <= limit, field, value,
                 f"an integer >= 1, or null for {null}; at most {limit}, the cores a job may use (more threads "
                 "only share them, and hold more memory at once)")
    norms = exp.get("gram_norms", ["fro"])
    _require(isinstance(norms, list) and len(norms) > 0 and set(norms) <= set(NORMS)
             and len(set(norms)) == len(norms), "experiment.gram_norms", norms,
             f"a non-empty list of distinct norms out of {list(NORMS)}")
    for field, value in (("experiment.force", exp["force"]),
                         ("dataset.allow_unverified", cfg["dataset"].get("allow_unverified", False))):
        _require(isinstance(value, bool), field, value, "true or false")
    _validate_results_dir(exp["results_dir"])
    _validate_name(exp["name"])


def _validate_results_dir(path: Any) -> None:
    """The results directory, or the nearest folder above it that exists, must be a writable folder.

    Writability is tested by creating and removing an empty probe folder there, the one test
    that also holds for root and for special or read-only file systems (``/proc``).
    """
    _require(isinstance(path, str) and path != "", "experiment.results_dir", path, "a folder path")
    existing = Path(path).absolute()
    while not existing.exists():
        existing = existing.parent
    _require(existing.is_dir(), "experiment.results_dir", path, f"{existing} is not a folder")
    try:
        Path(tempfile.mkdtemp(prefix=".rfbench-write-test-", dir=existing)).rmdir()
    except OSError as err:
        raise ConfigError(f"experiment.results_dir={path!r} is invalid: cannot create folders in {existing} "
                          f"({err.strerror}); choose a writable folder") from None


#: A folder name of ``experiment.name``: no control character (a newline), at most 255 bytes (the file systems' limit).
_PLAIN_FOLDER = re.compile(r"[^\x00-\x1f\x7f\\]+")


def _validate_name(name: Any) -> None:
    """``experiment.name`` is a plain relative path inside the results directory: folder names joined by '/'.

    Each name is neither empty, '.' nor '..', has no control character or backslash, and fits the file
    system (255 bytes); so no name writes outside ``results_dir`` (``../x``, ``/abs``, ``${oc.env:...}``).
    """
    parts = name.split("/") if isinstance(name, str) else [None]
    ok = all(isinstance(p, str) and p not in ("", ".", "..") and _PLAIN_FOLDER.fullmatch(p)
             and len(p.encode()) <= 255 for p in parts)
    _require(ok, "experiment.name", name,
             "a plain relative name inside experiment.results_dir: folder names joined by '/', none empty, "
             "'.' or '..', no control character or backslash, each at most 255 bytes (e.g. default, li/fig7)")


def check_memory(sizes: Mapping[str, int], culprit: str, fix: str = "") -> None:
    """Raise ConfigError if the arrays ``sizes`` (name -> bytes) exceed the memory available now.

    The message starts with ``culprit`` (e.g. "feature_map.m_over_d=8 is invalid") and ends with ``fix``.
    """
    available, total = available_memory(), sum(sizes.values())
    if available is None or total <= available:
        return
    detail = " + ".join(f"{name} {size / 2**30:.3g}" for name, size in sizes.items())
    raise ConfigError(f"{culprit}: a trial needs about {total / 2**30:.3g} GiB ({detail}), more than the "
                      f"{available / 2**30:.3g} GiB of memory available" + (f"; {fix}" if fix else ""))


def available_memory() -> int | None:
    """Bytes of memory available to a new process (Linux MemAvailable), None if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            fields = dict(line.split(":", 1) for line in meminfo)
        return int(fields["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return None
