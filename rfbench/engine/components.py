"""Components from config: the kernel, feature map and model of a run, built from their YAML.

Each option of the groups ``kernel``, ``feature_map`` and ``classifier`` names the class that
implements it in ``_target_`` (Hydra's convention) beside its constructor's parameters, so a new
component is a new module and a new YAML, with no edit here or in the runner.  ``name`` is the
option's name (for messages and result columns); ``_target_: null`` means no component
(``classifier=none``).  The engine adds only what the YAML cannot know:

- a kernel is built as ``cls(d, **params)`` for the data's dimension d, once per run (parameters
  set to null are left to the class's defaults);
- a feature map as ``cls.from_kernel(kernel, **params)`` for that kernel object, a trial's
  ``random_state``, and ``n_components = round(m_over_d * d)`` when ``m_over_d`` sizes it;
- a model with ``random_state``, ``n_jobs`` and ``progress`` when its constructor takes them, a
  grid given as powers of two, ``log2_<p>: [e, ...]``, passed as ``<p>_grid = [2^e, ...]`` (or as
  the list ``<p>_grid: [...]`` itself; the one of the two set to null is left out).

Compatibility is declared by the classes: a feature map's ``approximates`` (kernel classes) and a
model's ``tasks`` ("classification", "regression"); :func:`check_compatible` refuses a mismatch
before any work, naming the options that fit.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import math
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
import yaml
from sklearn.base import clone

from rfbench.dataset import TASKS
from rfbench.engine import config
from rfbench.engine.config import CONFIG_DIR, ConfigError
from rfbench.feature_map import IdentityMap
from rfbench.kernel import Kernel
from rfbench.validation import is_real

#: Keys of a component node that the engine reads and does not pass to the constructor.
ENGINE_KEYS = ("_target_", "name", "m_over_d")


def component_class(cfg: Mapping[str, Any], group: str) -> type | None:
    """The class named by ``cfg[group]._target_`` (None for ``_target_: null``)."""
    node = cfg[group]
    target = node.get("_target_")
    if target is None:
        return None
    cls, (what, attributes) = _locate(target, f"{group}={node.get('name')}"), INTERFACES[group]
    if not ((inspect.isclass(cls) or group == "classifier") and all(hasattr(cls, a) for a in attributes)):
        raise ConfigError(f"{group}={node.get('name')}: _target_ {target!r} is not {what} (a class, or a "
                          f"model's factory, with {', '.join(attributes)}), e.g. {EXAMPLES[group]}")
    return cls


#: What the ``_target_`` of each group must name: a description and the attributes the engine reads from it.
INTERFACES = {"kernel": ("a kernel", ("__call__", "k0", "spectral_density")),
              "feature_map": ("a feature map", ("from_kernel", "approximates", "transform")),
              "classifier": ("a model", ("tasks",))}
EXAMPLES = {"kernel": "rfbench.kernel.GaussianKernel", "feature_map": "rfbench.feature_map.GaussianRFF",
            "classifier": "rfbench.model.liblinear.LibLinearClassifier"}


def _locate(target: str, owner: str) -> type | Callable:
    """The class (or factory function) at dotted path ``target``, or a ConfigError naming ``owner``."""
    module, _, name = str(target).rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError) as err:
        raise ConfigError(f"{owner}: _target_ {target!r} cannot be imported ({err}); it must be the dotted "
                          "path of a class, e.g. rfbench.feature_map.GaussianRFF") from None


def build_kernel(cfg: Mapping[str, Any], d: int) -> Kernel:
    """The run's kernel on R^d; its own checks' ValueErrors become ConfigErrors on ``kernel``."""
    cls = component_class(cfg, "kernel")
    with reported_as("kernel", cfg):
        return cls(d, **_params("kernel", cfg["kernel"], cls, drop_none=True))


def build_feature_map(cfg: Mapping[str, Any], kernel: Kernel, random_state: int | None = None):
    """The (unfitted) feature map of ``cfg['feature_map']`` for ``kernel`` (on R^kernel.d)."""
    node, cls = cfg["feature_map"], component_class(cfg, "feature_map")
    params = _params("feature_map", node, cls)
    if "m_over_d" in node and node.get("n_components") is None:
        params["n_components"] = n_components(node, kernel.d)
    params.update(_accepted(cls, random_state=random_state))
    with reported_as("feature_map", cfg):
        return cls.from_kernel(kernel, **params)


def build_model(cfg: Mapping[str, Any], random_state: int | None = None, *, n_jobs: int = 1,
                progress: Callable[[int, int], None] | None = None):
    """The (unfitted) model of ``cfg['classifier']``, None for ``classifier=none``.

    ``n_jobs`` (threads) replaces a ``n_jobs: null`` of the config; a constructor taking ``task``
    gets the dataset's.
    """
    node, cls = cfg["classifier"], component_class(cfg, "classifier")
    if cls is None:
        return None
    task = cfg["dataset"].get("task", "classification")
    params = {**_params("classifier", node, cls),
              **_accepted(cls, random_state=random_state, progress=progress, task=task)}
    if params.get("n_jobs", 0) is None:  # null in the config: the execution's choice
        params["n_jobs"] = n_jobs or 1
    with reported_as("classifier", cfg):
        return cls(**params)


def n_components(node: Mapping[str, Any], d: int) -> int:
    """M: ``n_components`` if set, else round(m_over_d * d) (at least 1)."""
    if node.get("n_components") is not None:
        return int(node["n_components"])
    ratio = node.get("m_over_d")
    if not (is_real(ratio) and 0 < ratio < math.inf):
        raise ConfigError(f"feature_map.m_over_d={ratio!r} is invalid: a number > 0 (M = round(m_over_d * d)); "
                          "to fix M instead, pass feature_map.n_components=<M> without m_over_d")
    return max(1, round(float(ratio) * d))


def check_compatible(cfg: Mapping[str, Any]) -> None:
    """Refuse a feature map that cannot approximate the kernel, or a model that cannot serve the task."""
    kernel, fmap = component_class(cfg, "kernel"), component_class(cfg, "feature_map")
    if not issubclass(kernel, fmap.approximates):
        maps = _options("feature_map", lambda c: issubclass(kernel, c.approximates))
        raise ConfigError(
            f"feature_map={cfg['feature_map']['name']} cannot approximate kernel={cfg['kernel']['name']}; "
            f"feature maps for kernel={cfg['kernel']['name']}: {'|'.join(maps) or 'none'} "
            "(without feature_map= each kernel takes its own)")
    task = cfg["dataset"].get("task", "classification")
    if task not in TASKS:
        raise ConfigError(f"dataset.task={task!r} is invalid: choose one of {list(TASKS)}")
    model = component_class(cfg, "classifier")
    if getattr(model, "takes_data", False) and not issubclass(fmap, IdentityMap):
        raise ConfigError(
            f"classifier={cfg['classifier']['name']} computes its own kernel on the data itself, not on "
            f"feature_map={cfg['feature_map']['name']}'s features of kernel={cfg['kernel']['name']}: "
            "use it with kernel=linear feature_map=identity")
    if model is not None and task not in model.tasks:
        models = _options("classifier", lambda c: c is None or task in c.tasks)
        raise ConfigError(
            f"classifier={cfg['classifier']['name']} cannot serve dataset={cfg['dataset']['name']}, a "
            f"{task} task; models for {task}: classifier={'|'.join(models)}")


def _options(group: str, fits: Callable[[type | None], bool]) -> list[str]:
    """Names of the options of ``group`` in the package's configs whose class ``fits``."""
    names = []
    for path in sorted(Path(CONFIG_DIR, group).glob("*.yaml")):
        target = yaml.safe_load(path.read_text()).get("_target_")
        if fits(None if target is None else _locate(target, f"{group}={path.stem}")):
            names.append(path.stem)
    return names


def _params(group: str, node: Mapping[str, Any], cls: type, *, drop_none: bool = False) -> dict[str, Any]:
    """Constructor arguments of a component node (see the module docstring)."""
    params = {}
    for key, value in node.items():
        if key in ENGINE_KEYS or value is None and (drop_none or _is_grid(key)):
            continue
        if key.startswith("log2_"):
            key, value = f"{key[5:]}_grid", _powers_of_two(f"{group}.{key}", value)
        if key in params:  # log2_<p> and <p>_grid both set: which one counts would be hidden
            raise ConfigError(f"{group}.{key} and {group}.log2_{key[:-5]} are both set; set one of them "
                              "and the other to null")
        params[key] = value
    unknown = sorted(set(params) - set(_signature(cls)))
    if unknown and not any(p.kind is p.VAR_KEYWORD for p in _signature(cls).values()):
        raise ConfigError(f"{group}.{unknown[0]} is not a parameter of {group}={node.get('name')} "
                          f"({cls.__name__}); its parameters: {', '.join(_signature(cls))}")
    return params


def _is_grid(key: str) -> bool:
    """Whether a component key gives a grid (``log2_<p>`` or ``<p>_grid``)."""
    return key.startswith("log2_") or key.endswith("_grid")


def _powers_of_two(key: str, exponents: Any) -> list[float]:
    """[2^e for e in exponents], or a ConfigError unless each e is a number with 2^e a finite float > 0."""
    if not (isinstance(exponents, list) and exponents and all(is_real(e) and -1000 <= e <= 1000 for e in exponents)):
        raise ConfigError(f"{key}={exponents!r} is invalid: a list of exponents e, -1000 <= e <= 1000, not empty "
                          "(negative ones too: the grid is 2^e)")
    return [2.0 ** e for e in exponents]


def _accepted(cls: type, **context: Any) -> dict[str, Any]:
    """The execution context a constructor takes (e.g. ``random_state``)."""
    return {k: v for k, v in context.items() if k in _signature(cls)}


@functools.cache
def _signature(cls: type) -> Mapping[str, inspect.Parameter]:
    return inspect.signature(cls).parameters


@contextlib.contextmanager
def reported_as(group: str, cfg: Mapping[str, Any]) -> Iterator[None]:
    """Turn a component's ValueError into a ConfigError on its config group.

    A message about one parameter ("sigma=0 is invalid: ...") names the config key to change
    ("kernel.sigma=0 is invalid: ..."); others name the option ("kernel=gaussian: ...").
    """
    try:
        yield
    except ConfigError:
        raise
    except ValueError as err:
        node, message = cfg[group], str(err)
        param = re.match(r"\w+", message)
        key = param and _config_key(node, param.group())
        if key is not None:
            raise ConfigError(f"{group}.{key}{message[len(param.group()):]}") from err
        raise ConfigError(f"{group}={node.get('name')}: {message}") from err


def _config_key(node: Mapping[str, Any], param: str) -> str | None:
    """The key of ``node`` that sets constructor parameter ``param`` (``log2_C`` sets ``C_grid``)."""
    if param.endswith("_grid") and node.get(param) is None and f"log2_{param[:-5]}" in node:
        return f"log2_{param[:-5]}"
    if param in node and param not in ENGINE_KEYS:
        return param
    return None


def check(cfg: Mapping[str, Any], d: int, n_train: int) -> Kernel:
    """Build every component for inputs of width ``d`` and let each check its own parameters.

    Also refuses a mismatch (``check_compatible``) and a trial too large for the memory available
    now, before anything is allocated.  Returns the kernel (built once per run).
    """
    check_compatible(cfg)
    kernel = build_kernel(cfg, d)
    fmap = build_feature_map(cfg, kernel, random_state=0)
    with reported_as("feature_map", cfg):
        fmap.check_params()
    model = build_model(cfg, random_state=0)
    if model is not None:
        with reported_as("classifier", cfg):
            model.check_params()
    _check_memory(cfg, fmap, d, n_train if model is not None else 0, model)
    return kernel


def memory_estimate(fmap, d: int, n_train: int, model=None) -> dict[str, int]:
    """Bytes of a trial's largest arrays, from the map's ``output_size`` (empty if it does not say).

    The fitted map's parameters, the ``n_train`` training features, and what the model holds
    beside them for the path it will take on them: its ``memory_needs(n, width, stored, sparse)``
    (e.g. Newton's densified design, ridge's normal equations, libsvm's n x n Grams), or else a
    working copy of the features at LibLinear's 16 bytes per entry.
    """
    size = fmap.output_size(d)
    if size is None:
        return {}
    stored, parameters = size  # values per row: every column, or a sparse map's nonzeros
    sizes = {"feature map": parameters * 8}
    if n_train:
        index = 8 if fmap.sparse_output else 0  # a CSR column index (int64 at most)
        per_value = np.dtype(getattr(fmap, "dtype", "float64")).itemsize + index
        sizes["training features"] = n_train * stored * per_value
        if hasattr(model, "memory_needs"):
            width = (fmap.output_width(d) or stored) if fmap.sparse_output else stored  # unknown: at least stored
            sizes.update(model.memory_needs(n_train, width, stored, fmap.sparse_output))
        else:
            sizes["model's copy"] = n_train * (stored + 2) * 16
    return sizes


def _check_memory(cfg: Mapping[str, Any], fmap, d: int, n_train: int, model=None) -> None:
    """Refuse a trial whose estimate exceeds the memory available now, with the largest M that fits,
    or naming the model and the data when no M fits (libsvm's n x n Grams do not shrink with M)."""
    sizes, available = memory_estimate(fmap, d, n_train, model), config.available_memory()
    if available is None or sum(sizes.values()) <= available:
        return

    def need(m: int) -> int:
        return sum(memory_estimate(clone(fmap).set_params(n_components=m), d, n_train, model).values())

    node = cfg["feature_map"]
    if "n_components" in fmap.get_params() and need(1) <= available:
        key = "n_components" if node.get("n_components") is not None or "m_over_d" not in node else "m_over_d"
        m_max = _largest_fitting(need, available)
        config.check_memory(sizes, f"feature_map.{key}={node.get(key)!r} is invalid (M = {fmap.n_components} on "
                                   f"d={d}, {n_train} training points)",
                            f"choose {key} <= {m_max if key == 'n_components' else f'{m_max / d:.4g}'}")
    config.check_memory(sizes, f"classifier={cfg['classifier']['name']} on dataset={cfg['dataset']['name']} "
                               f"({n_train} training points, d={d}) is invalid",
                        "choose another classifier or a smaller training set")


def _largest_fitting(need: Callable[[int], int], available: int) -> int:
    """The largest M with need(M) <= available, for need(1) <= available and need growing with M.

    Most maps' estimates are affine in M (Nystroem's K_LL and Newton's Hessians quadratic): the
    secant through M = 1, 2 bounds M from above, and bisection brings it down to the largest M that fits.
    """
    one, two = need(1), need(2)
    low, high = 1, max(1, (available - (2 * one - two)) // max(1, two - one))
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if need(middle) <= available else (low, middle - 1)
    return low


def check_model_memory(cfg: Mapping[str, Any], model, Z) -> None:
    """Refuse a model whose arrays for the training features ``Z`` exceed the memory available now.

    Checked again once the features exist, because a sparse map's width (binning's occupied bins,
    GCWS's codes) is known only then; ``check`` has counted what was known before.
    """
    if not hasattr(model, "memory_needs"):
        return
    (n, width), sparse = Z.shape, sp.issparse(Z)
    stored = -(-Z.nnz // max(n, 1)) if sparse else width
    config.check_memory(model.memory_needs(n, width, stored, sparse),
                        f"classifier={cfg['classifier']['name']} is invalid on these {n} x {width} "
                        f"{'sparse ' if sparse else ''}features",
                        "choose fewer features (a smaller feature_map.n_components) or another solver")
