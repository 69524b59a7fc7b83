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
import math
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from rfbench.kernel.modulated import check_sigma
from rfbench.validation import is_int, is_real

#: Which kernels each feature map can approximate.
SUPPORTED_KERNELS: dict[str, tuple[str, ...]] = {
    "rff": ("gaussian",),
    "askrff": ("gaussian", "shift_gaussian", "sinh_gaussian", "cosh_gaussian"),
    "identity": ("linear",),
}
CLASSIFIERS = ("liblinear", "none")
#: The config groups every run composes.
GROUPS = ("dataset", "kernel", "feature_map", "classifier", "experiment")
#: Exponents of the C grid: C = 2^e stays within about 1e-30..1e30, where LibLinear's objective is finite.
LOG2_C_RANGE = (-100, 100)

#: Config keys that change how a run executes, not what it computes; excluded from run ids.
EXECUTION_KEYS = (
    "experiment.name", "experiment.trials", "experiment.results_dir", "experiment.force",
    "experiment.blas_threads", "experiment.chunk_rows", "experiment.gram_block", "classifier.n_jobs",
)


#: Where a dataset's bytes come from, not what they are (each file's own sha256 stays in the
#: run id): pinning a URL's hash or adding a mirror must not orphan the recorded runs.
PROVENANCE_KEYS = re.compile(r"dataset\.(mirror|allow_unverified|files\.[^.]+\.urls)")


class ConfigError(ValueError):
    """An invalid configuration value, reported before any work starts."""


def to_dict(cfg: DictConfig | Mapping) -> dict[str, Any]:
    """The resolved config as plain Python containers (without the hydra node)."""
    if isinstance(cfg, DictConfig):
        cfg = OmegaConf.to_container(cfg, resolve=True)
    return {k: v for k, v in dict(cfg).items() if k != "hydra"}


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
    """Stable 12-hex id of everything that determines a run's numbers (see EXECUTION_KEYS and
    PROVENANCE_KEYS).

    Numbers are hashed as floats, so ``m_over_d=2`` and ``m_over_d=2.0`` share a run.
    """
    flat = {k: v for k, v in flatten(_as_floats(cfg)).items()
            if k not in EXECUTION_KEYS and not PROVENANCE_KEYS.fullmatch(k)}
    blob = json.dumps(flat, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


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


# Registered on import, so it also resolves inside launcher workers (which import rfbench).
OmegaConf.register_new_resolver("blas_threads_per_job", blas_threads_per_job, replace=True)


def _require(ok: bool, field: str, value: Any, allowed: str) -> None:
    if not ok:
        raise ConfigError(f"{field}={value!r} is invalid: {allowed}")


def n_components(fmap: Mapping[str, Any], d: int) -> int:
    """Number of random frequencies M: ``n_components`` if set, else round(m_over_d * d)."""
    if fmap.get("n_components") is not None:
        return int(fmap["n_components"])
    return max(1, round(float(fmap["m_over_d"]) * d))


def validate(cfg: Mapping[str, Any]) -> None:
    """Raise ConfigError on the first invalid value of a composed config."""
    for group in GROUPS:
        _require(isinstance(cfg.get(group), Mapping), group, cfg.get(group),
                 f"every run takes one {group}: pass {group}=<name>")
    exp, fmap, kern, clf = cfg["experiment"], cfg["feature_map"], cfg["kernel"], cfg["classifier"]
    _require(is_int(exp["trials"]) and exp["trials"] >= 1,
             "experiment.trials", exp["trials"], "an integer >= 1")
    _require(is_int(exp["n_gram"]) and exp["n_gram"] >= 0,
             "experiment.n_gram", exp["n_gram"], "an integer >= 0 (0 skips the Gram error)")
    _require(is_int(exp["seed"]) and exp["seed"] >= 0, "experiment.seed", exp["seed"],
             "an integer >= 0 (numpy SeedSequence entropy)")
    for key in ("gram_block", "chunk_rows"):
        _require(is_int(exp[key]) and exp[key] >= 1, f"experiment.{key}", exp[key],
                 "an integer >= 1")
    _require(exp["blas_threads"] is None or is_int(exp["blas_threads"]) and exp["blas_threads"] >= 1,
             "experiment.blas_threads", exp["blas_threads"], "an integer >= 1, or null for the library default")
    _validate_feature_map(fmap, kern["name"])
    if "sigma" in kern:
        try:
            check_sigma(kern["sigma"])
        except ValueError as err:
            raise ConfigError(f"kernel.{err}") from None
    _validate_classifier(clf)
    _validate_results_dir(exp["results_dir"])
    # With the sizes the dataset config states; a split of the publisher's files states no n_train.
    data, split = cfg["dataset"], cfg["dataset"].get("split") or {}
    if is_int(data.get("n_features")):
        check_memory(cfg, split.get("n_train", 0), data["n_features"])


def _validate_feature_map(fmap: Mapping[str, Any], kernel: str) -> None:
    name = fmap["name"]
    _require(name in SUPPORTED_KERNELS, "feature_map", name, f"choose one of {sorted(SUPPORTED_KERNELS)}")
    supported = SUPPORTED_KERNELS[name]
    if kernel not in supported:
        raise ConfigError(
            f"feature_map={name} cannot approximate kernel={kernel}: it supports "
            f"kernel={'|'.join(supported)}. Kernels with a spectral measure take feature_map=askrff; "
            "kernel=linear takes feature_map=identity; without feature_map= each kernel takes its own.")
    if name == "identity":
        return
    if fmap.get("n_components") is not None:
        m = fmap["n_components"]
        _require(is_int(m) and m >= 1, "feature_map.n_components", m,
                 "an integer >= 1 (or null to use m_over_d)")
    else:
        r = fmap.get("m_over_d")
        _require(is_real(r) and 0 < r < math.inf, "feature_map.m_over_d", r,
                 "a number > 0 (M = round(m_over_d * d)); to fix M instead, pass "
                 "feature_map.n_components=<M> without m_over_d")
    if name == "askrff":
        _require(is_int(fmap["n_subset"]) and fmap["n_subset"] >= 3,
                 "feature_map.n_subset", fmap["n_subset"],
                 "an integer >= 3 (points of the total-mass least squares (12))")


def _validate_classifier(clf: Mapping[str, Any]) -> None:
    _require(clf["name"] in CLASSIFIERS, "classifier", clf["name"], f"choose one of {list(CLASSIFIERS)}")
    if clf["name"] == "none":
        return
    grid, (lo, hi) = clf["log2_C"], LOG2_C_RANGE
    _require(isinstance(grid, list) and len(grid) > 0 and all(is_real(e) and lo <= e <= hi for e in grid),
             "classifier.log2_C", grid,
             f"a non-empty list of exponents e, {lo} <= e <= {hi} (C = 2^e), e.g. [-5, ..., 5]")
    _require(is_int(clf["cv"]) and clf["cv"] >= 1, "classifier.cv", clf["cv"],
             "an integer >= 1 (1: no cross-validation)")
    n_jobs = clf.get("n_jobs")
    _require(n_jobs is None or is_int(n_jobs) and n_jobs >= 1, "classifier.n_jobs", n_jobs,
             "an integer >= 1, or null for the job's BLAS threads")


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


def memory_estimate(cfg: Mapping[str, Any], n_train: int, d: int, m: int | None = None) -> dict[str, int]:
    """Bytes of a trial's largest arrays: the frequencies, and the training features with LibLinear's copy.

    ``m`` frequencies (default: the config's M).  Upper bounds: AsK-RFF is counted with three
    spectral parts and four blocks ("asymmetric") or two of each ("symmetric"), and LibLinear's
    rows take 16 bytes per entry.
    """
    fmap = cfg["feature_map"]
    if fmap["name"] == "identity":
        return {}
    m = n_components(fmap, d) if m is None else m
    if fmap["name"] == "rff":
        parts, width = 1, (2 if fmap.get("variant", "cos_sin") == "cos_sin" else 1) * m
    elif fmap.get("part", "asymmetric") == "asymmetric":
        parts, width = 3, 4 * 2 * m  # blocks [phi_w, phi_z, phi_v, psi_v] of 2M columns
    else:
        parts, width = 2, 2 * 2 * m  # blocks [phi_w, phi_z]
    sizes = {"frequencies": parts * m * d * 8}
    if cfg["classifier"]["name"] != "none":
        sizes["training features"] = n_train * width * np.dtype(fmap.get("dtype", "float32")).itemsize
        sizes["LibLinear's copy"] = n_train * (width + 2) * 16
    return sizes


def check_memory(cfg: Mapping[str, Any], n_train: int, d: int) -> None:
    """Raise ConfigError if ``memory_estimate`` exceeds the memory available now."""
    available, sizes = available_memory(), memory_estimate(cfg, n_train, d)
    total = sum(sizes.values())
    if available is None or total <= available:
        return
    fixed = sum(memory_estimate(cfg, n_train, d, m=0).values())  # the estimate is linear in M
    m_max = max(0, (available - fixed) // (sum(memory_estimate(cfg, n_train, d, m=1).values()) - fixed))
    fmap, m = cfg["feature_map"], n_components(cfg["feature_map"], d)
    key, bound = (("n_components", f"{m_max}") if fmap.get("n_components") is not None
                  else ("m_over_d", f"{m_max / d:.4g}"))
    detail = " + ".join(f"{name} {size / 2**30:.3g}" for name, size in sizes.items())
    raise ConfigError(
        f"feature_map.{key}={fmap[key]!r} is invalid: M = {m} frequencies on d={d}, {n_train} training points "
        f"need about {total / 2**30:.3g} GiB ({detail}), more than the {available / 2**30:.3g} GiB of memory "
        f"available; choose {key} <= {bound}")


def available_memory() -> int | None:
    """Bytes of memory available to a new process (Linux MemAvailable), None if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            fields = dict(line.split(":", 1) for line in meminfo)
        return int(fields["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return None
