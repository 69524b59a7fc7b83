"""Benchmark of rfbench's numeric core against its natural peers, in one run on the same data.

    nice .venv/bin/python benchmarks/bench.py [--quick] [--out results/bench/bench.csv] [--repeats 5]

Sections (``os.getloadavg()`` is recorded with every row because the machine may
be shared):

* ``transform``: Gaussian RFF features/s on ijcnn1 (N = 50,000, d = 22) at equal
  output width D = 4096: rfbench ``cos_sin`` with M = D/2 frequencies in float32
  and float64, ``cos_offset`` with M = D, and scikit-learn's RBFSampler
  (n_components = D, D cosine features) on float64 and float32 input.  The
  machine's limit is the bare GEMM X W plus the bare fused cos/sin kernel of
  the same sizes (and, for reference, numpy's in-place cos and sin), the
  trigonometry spread over the engine's threads.  After one untimed
  warm-up call each, the contenders run in ``--repeats`` interleaved rounds (one
  call of each per round), so a slow spell of a shared machine hits all of them;
  each figure is the best round (timeit's convention: noise only adds time),
  with the median in the note.
* ``gram`` (median of half as many runs, each a minute long): ||K - K~||_F / ||K||_F on n_gram = 1000 spambase points at
  M = 2^10 d with the AsK-RFF kernels, each in a fresh process for its peak RSS,
  against the bare float64 GEMMs sum_b L_b R_b^T of the same factor sizes.
* ``cv``: choosing C by 5-fold CV over 2^-5..2^5 on Gaussian RFF features at
  M = 2d (spambase, ijcnn1), at the LibLinearClassifier defaults (-s 2 -B 1):
  rfbench's CV (problem built once, fold threads) vs the textbook loop
  (``train(y, csr)`` per fold and C), once each; and warm-started CV vs the plain
  loop (median, as ``gram``).  Each pair reports whether both choose the same C.

* ``model_selection``: one AsK-RFF trial's model selection in the Table 1 setting
  (Sinh-Gaussian, Asy, M = 2d; 5-fold CV over C = 2^-5..2^5, no intercept) on
  letter and ijcnn1, once each, side by side: the runner's former path (LibLinear
  ``-s 1``, folds serial), ``solver="newton"`` in the engine's threads, and the
  textbook peer, scikit-learn's GridSearchCV over LinearSVC (squared hinge, no
  intercept, its defaults otherwise) with the same grid and folds, ``n_jobs`` =
  the same threads, and the Newton path it replaced, each one-vs-rest class
  solved alone (``NEWTON_BLOCK = 1``: a matrix-vector product with Z per class
  and step, where the blocks share one GEMM).  Each reports its time, its CPU time in this process (not
  GridSearchCV's loky workers), chosen C, test accuracy and the gap
  of its final model's objective (summed over the one-vs-rest problems) to a
  solve at ``tol=1e-12``.
* ``trials``: the card's command (``rfbench kernel=sinh_gaussian dataset=letter``, 10 trials,
  from an empty results folder, data cached) through ``runner.run``, with its trials in the
  runner's worker processes (one per core) against the path they replace (trials one after
  another, each trial's folds in threads), once each; both must record the same trials and grid
  scores bit for bit (timings aside).  The peer of its model selection is in ``model_selection``.

* ``sparse_path``: where ``solver="newton"``'s dense path does not fit (Laplacian binning and GCWS
  codes on letter), one CV fold's path over C = 2^-5..2^5 (26 classes, one thread) of the two
  solvers its iterative path chooses between, rfbench's Newton-CG on the active rows and LibLinear
  ``-s 2 -e 1e-6``, both warm-started along C, against the textbook loop (``-s 2 -e 1e-6`` cold at
  each C), ``-s 1`` at its default tolerance and the Newton-CG's former Hessian product (stored
  values; where the Newton-CG is taken, its speed-up is a goal): CPU-seconds, the objective gap at
  C = 32, and whether the faster is the one taken (``benchmarks/sparse_path.py``).
* ``libsvm_grid``: Li's exact RBF-kernel SVM grid (``PrecomputedKernelSVC(kernel="cosine_rbf")``,
  selection on the test grid, 5 of Li's gammas x C = 2^-2..2^10) on spambase_li, one thread: rfbench
  (one Gram per gamma shared by every C, the choice's fit kept) against the path it replaces (the
  choice refitted), itself with libsvm's shrinking off, and scikit-learn's SVC one fit per point
  (precomputed Grams computed per point; its own RBF kernel): CPU-seconds, best of ``--repeats``
  interleaved rounds, and the largest test-accuracy difference to rfbench (``benchmarks/libsvm_grid.py``).
* ``ridge_dual``: ridge's lambda grid by 5-fold CV on cpu_act's binning codes wider than a fold's
  rows (rr's protocol study): the dual path against the primal eigen path it replaces and
  scikit-learn's GridSearchCV over Ridge(solver="cholesky"), with the chosen lambda and the CV
  errors' and weights' differences (``benchmarks/ridge_dual.py``).
* ``discrepancy``: one evaluation of QMC's box discrepancy and its gradient (the adaptive CG's step) at
  s = 800 Halton frequencies on census_house's boxes b and b/4, one thread: ``trig="tables"`` (the points' sines,
  then the difference formulas) against the direct path it would replace and the same sums in numpy,
  with their differences (``benchmarks/discrepancy.py``).
* ``newton_step``: ``solver="newton"``'s dense path along Li's Fig. 7 grid of C on letter's NRFF features
  (k = 1024, 5,000 training rows, 26 one-vs-rest columns, one thread): each step by the cheaper of the
  p x p and Woodbury's |I| x |I| system (``newton_step="auto"``) against the p x p steps it would replace
  and LibLinear ``-s 2`` (default ``-e``) warm along C, with the objectives' and test predictions'
  differences (``benchmarks/newton_step.py``).

``--quick`` runs every section on tiny sizes (a smoke test, not a measurement);
``--sections`` picks sections.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd
from hydra import compose, initialize_config_dir
from liblinear import liblinearutil
from scipy import sparse
from scipy.linalg.blas import dgemm
from sklearn.kernel_approximation import RBFSampler
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import LabelBinarizer
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_info

from rfbench.dataset import Dataset, load_dataset
from rfbench.engine import components, config, records, runner
from rfbench.feature_map import GaussianRFF, scaled_cos_sin_rows, trig_threads
from rfbench.metrics import relative_gram_error
from rfbench.model import liblinear as classifier
from rfbench.model.liblinear import DEFAULT_C_GRID, LibLinearClassifier
from rfbench.model.newton_cost import newton_cg_takes
from rfbench.model.newton_svc import primal_objective, squared_hinge_paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository, for its siblings
from benchmarks import discrepancy, libsvm_grid, newton_step, ridge_dual, sparse_path  # noqa: E402

GRAM_KERNELS = ("shift_gaussian", "sinh_gaussian", "cosh_gaussian")


@dataclass(frozen=True)
class Sizes:
    """Problem sizes of one benchmark run."""

    transform_dataset: str
    n_transform: int
    width: int
    n_gram: int
    gram_m_over_d: int
    gram_block: int
    cv_datasets: tuple[str, ...]
    selection_datasets: tuple[str, ...]
    n_cv: int | None = None  # training rows for the CV and model-selection sections (None: all)
    run_overrides: tuple[str, ...] = ("kernel=sinh_gaussian", "dataset=letter")  # the trials section's command
    sparse_runs: tuple[tuple[str, ...], ...] = (("kernel=laplacian", "dataset=letter"),
                                                ("kernel=gmm", "dataset=letter"))
    n_sparse: int | None = None  # training rows of the sparse_path section (None: all)
    libsvm_dataset: str = "spambase_li"  # the libsvm_grid section's data (Li's split)
    n_libsvm: int | None = None  # training (and test) rows of the libsvm_grid section (None: all)
    n_ridge: int = 2000  # cpu_act rows of the ridge_dual section
    n_frequencies: int = 800  # s of the discrepancy section (QMC Table 2's largest on census_house)
    ridge_factor: float = 2.0  # its sigma over the rows' median L1 distance (2000 rows: 4,466 columns)
    newton_k: int = 1024  # NRFF's k in the newton_step section (Fig. 7's)
    n_newton: int | None = 5000  # its training (and test) rows (None: all of Li's 15,000 and 5,000)


FULL = Sizes("ijcnn1", 50_000, 4096, 1000, 2**10, 2048, ("spambase", "ijcnn1"), ("letter", "ijcnn1"))
QUICK = Sizes("spambase", 500, 64, 60, 2, 16, ("spambase",), ("spambase",), n_cv=300,
              run_overrides=("experiment.trials=3", "experiment.n_gram=60", "classifier.log2_C=[-1,0,1]"),
              sparse_runs=(("kernel=laplacian", "dataset=letter", "feature_map.n_components=4"),
                           ("kernel=gmm", "dataset=letter", "feature_map.n_components=64")), n_sparse=600,
              n_libsvm=200, n_ridge=300, ridge_factor=8.0, n_frequencies=40, newton_k=64, n_newton=600)
SECTIONS = ("transform", "gram", "cv", "model_selection", "trials", "sparse_path", "libsvm_grid", "ridge_dual",
            "discrepancy", "newton_step")


@dataclass
class Row:
    """One line of bench.csv: a measured time and what it is compared with."""

    section: str
    name: str
    seconds: float
    repeats: int
    value: float = float("nan")
    unit: str = ""
    ratio: float = float("nan")
    reference: str = ""
    goal: str = ""
    met: bool | None = None
    note: str = ""
    load1: float = float("nan")
    load5: float = float("nan")
    load15: float = float("nan")

    def __post_init__(self) -> None:
        self.load1, self.load5, self.load15 = os.getloadavg()


def interleaved_seconds(runs: dict[str, Callable[[], object]], repeats: int,
                        warm_up: bool = True) -> dict[str, list[float]]:
    """Wall times of every function over ``repeats`` rounds, each round calling each once.

    One untimed call of each comes first (thread pools, first-touch memory), unless the
    caller has just made it (``warm_up=False``).
    """
    for fn in runs.values() if warm_up else ():
        fn()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# --- transform ------------------------------------------------------------------------
def bench_transform(X: np.ndarray, width: int, sigma: float, repeats: int) -> list[Row]:
    """Output features/s of rfbench and RBFSampler at equal output width, and the bare limit."""
    n = len(X)
    X32 = X.astype(np.float32)
    half = GaussianRFF(n_components=width // 2, sigma=sigma, random_state=0).fit(X)
    offset = GaussianRFF(n_components=width, sigma=sigma, variant="cos_offset", random_state=0).fit(X)
    gamma = 1.0 / (2.0 * sigma**2)
    rbf64 = RBFSampler(gamma=gamma, n_components=width, random_state=0).fit(X)
    rbf32 = RBFSampler(gamma=gamma, n_components=width, random_state=0).fit(X32)  # float32 weights
    ours32, ours64 = "rfbench cos_sin float32 (M=D/2)", "rfbench cos_sin float64 (M=D/2)"
    peer64, peer32 = "RBFSampler float64 (n_components=D)", "RBFSampler float32 input (n_components=D)"
    limit = "bare limit float32: GEMM + fused cos/sin"
    numpy_limit = "bare GEMM + numpy cos/sin float32"
    runs = {
        ours32: lambda: half.set_params(dtype="float32").transform(X),
        ours64: lambda: half.set_params(dtype="float64").transform(X),
        "rfbench cos_offset float32 (M=D)": lambda: offset.transform(X),
        peer64: lambda: rbf64.transform(X),
        peer32: lambda: rbf32.transform(X32),
    }
    with ThreadPoolExecutor(trig_threads()) as pool:
        times = interleaved_seconds({**runs, **_bare_runs(X32, half.random_weights_, pool)}, repeats)
    gemm = times.pop(_BARE_GEMM)
    times[limit] = [g + t for g, t in zip(gemm, times.pop(_BARE_TRIG))]
    times[numpy_limit] = [g + t for g, t in zip(gemm, times.pop(_BARE_NUMPY_TRIG))]
    seconds = {name: min(ts) for name, ts in times.items()}
    rows = [Row("transform", name, seconds[name], repeats, n * width / seconds[name], "features/s",
                note=f"N={n} d={X.shape[1]} D={width}; best of {repeats} rounds, median {statistics.median(ts):.3f} s")
            for name, ts in times.items()]
    rows += [
        _ratio_row("transform", "rfbench float32 / RBFSampler float64", seconds[peer64] / seconds[ours32], 10.0),
        _ratio_row("transform", "rfbench float32 / RBFSampler float32", seconds[peer32] / seconds[ours32], 2.0),
        _ratio_row("transform", "rfbench float64 / RBFSampler float64", seconds[peer64] / seconds[ours64], 1.0),
        _ratio_row("transform", "rfbench float32 / bare limit", seconds[limit] / seconds[ours32], 0.6),
    ]
    return rows


_BARE_GEMM, _BARE_TRIG, _BARE_NUMPY_TRIG = "bare GEMM", "bare fused cos/sin", "bare numpy cos/sin"


def _bare_runs(X32: np.ndarray, W: np.ndarray, pool: ThreadPoolExecutor) -> dict[str, Callable[[], object]]:
    """The bare GEMM, and bare cos and sin of the same sizes (no scaling, no chunking).

    The trigonometry is rfbench's fused kernel, or numpy's in-place ufuncs for
    reference, into a pre-faulted output, split in row blocks over the
    ``trig_threads()`` threads of ``pool``.
    """
    W32 = W.astype(np.float32)
    m = W.shape[1]
    projection = np.empty((len(X32), m), np.float32)
    out = np.zeros((len(X32), 2 * m), np.float32)
    n_threads = trig_threads()  # the size of pool
    bounds = np.linspace(0, len(X32), n_threads + 1).astype(int)

    def fused(i: int) -> None:
        rows = slice(bounds[i], bounds[i + 1])
        scaled_cos_sin_rows(projection[rows], out[rows], 0, m, 1.0, 1.0)

    def numpy_trig(i: int) -> None:
        rows = slice(bounds[i], bounds[i + 1])
        np.cos(projection[rows], out=out[rows, :m])
        np.sin(projection[rows], out=out[rows, m:])

    return {_BARE_GEMM: lambda: np.matmul(X32, W32, out=projection),
            _BARE_TRIG: lambda: list(pool.map(fused, range(n_threads))),
            _BARE_NUMPY_TRIG: lambda: list(pool.map(numpy_trig, range(n_threads)))}


def _ratio_row(section: str, name: str, ratio: float, threshold: float) -> Row:
    return Row(section, name, float("nan"), 0, ratio=ratio, goal=f">= {threshold:g}", met=bool(ratio >= threshold))


# --- Gram error -----------------------------------------------------------------------
def bench_gram(X: np.ndarray, sizes: Sizes, repeats: int) -> list[Row]:
    """Gram-error time and peak RSS per AsK-RFF kernel, each in a fresh process."""
    rows = []
    for kernel in GRAM_KERNELS:
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            seconds, bare, peak, note = pool.submit(_gram_child, X, kernel, sizes, repeats).result()
        rows += [
            Row("gram", f"{kernel} gram error", seconds, repeats, note=note),
            Row("gram", f"{kernel} time / bare GEMMs", seconds, repeats, ratio=seconds / bare,
                reference=f"bare dgemm {bare:.3g} s", goal="<= 1.5", met=bool(seconds / bare <= 1.5)),
            Row("gram", f"{kernel} peak RSS", float("nan"), 1, peak / 2**30, "GiB",
                goal="< 2 GiB", met=bool(peak < 2 * 2**30), note="VmHWM of the whole child process"),
        ]
    return rows


def _gram_child(X: np.ndarray, kernel: str, sizes: Sizes, repeats: int) -> tuple[float, float, int, str]:
    """(median seconds of relative_gram_error, of its bare GEMMs, peak RSS in bytes, note).

    The bare GEMMs are the plain accumulation gram += L_b R_b^T over float64
    factors of the same sizes, timed right after in the same process.
    """
    cfg = _composed(f"kernel={kernel}", f"feature_map.m_over_d={sizes.gram_m_over_d}")
    fmap = components.build_feature_map(cfg, components.build_kernel(cfg, X.shape[1]), random_state=0).fit(X)
    K = fmap.kernel_(X, X)
    error = relative_gram_error(K, fmap, X, block_size=sizes.gram_block)
    seconds = median_seconds(lambda: relative_gram_error(K, fmap, X, block_size=sizes.gram_block), repeats)
    columns = 2 * fmap.n_components * len(fmap.frequencies_)
    rng = np.random.default_rng(0)
    L, R = rng.standard_normal((2, len(X), 2 * sizes.gram_block))
    gram = np.zeros((len(X), len(X)), order="F")
    # gram += L R^T in place, BLAS reading the C-ordered factors as they are.
    block = median_seconds(lambda: dgemm(1.0, L.T, R.T, beta=1.0, c=gram, trans_a=True, overwrite_c=True), repeats)
    note = f"n_gram={len(X)} M={sizes.gram_m_over_d}*d columns={columns} error={error:.4g}"
    return seconds, block * columns / L.shape[1], _peak_rss_bytes(), note


def _peak_rss_bytes() -> int:
    """VmHWM of this process (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


# --- C selection ----------------------------------------------------------------------
def bench_cv(data: Dataset, sigma: float, repeats: int, n_rows: int | None = None) -> list[Row]:
    """LibLinear CV over the C grid: rfbench (exact, and warm-started) vs the textbook loop."""
    X, y = data.X_train[:n_rows], data.y_train[:n_rows]
    Z = GaussianRFF(n_components=2 * data.d, sigma=sigma, random_state=0).fit_transform(X)
    return _textbook_cv_rows(data.name, Z, y) + _warm_start_rows(data.name, Z, y, repeats)


def _textbook_cv(Z: np.ndarray, y: np.ndarray) -> float:
    """The plain loop as LibLinear's Python docs suggest: train(y, csr) per fold and C; best C."""
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(Z, y))
    scores = []  # mean fold accuracy per C, as rfbench defines it; argmax takes the smaller C on ties
    for C in DEFAULT_C_GRID:
        accuracies = []
        for train, test in folds:
            model = liblinearutil.train(y[train].astype(float), sparse.csr_matrix(Z[train]), f"-s 2 -B 1 -c {C} -q")
            labels, _, _ = liblinearutil.predict(y[test].astype(float), sparse.csr_matrix(Z[test]), model, "-q")
            accuracies.append(np.mean(np.asarray(labels) == y[test]))
        scores.append(np.mean(accuracies))
    return DEFAULT_C_GRID[int(np.argmax(scores))]


def _textbook_cv_rows(name: str, Z: np.ndarray, y: np.ndarray) -> list[Row]:
    start = time.perf_counter()
    C_textbook = _textbook_cv(Z, y)
    textbook = time.perf_counter() - start
    clf = LibLinearClassifier(random_state=0, n_jobs=trig_threads())  # the runner's default threads
    start = time.perf_counter()
    clf.fit(Z, y)
    ours = time.perf_counter() - start
    note = f"{name} n={len(Z)} RFF M=2d: C textbook={C_textbook:g}, rfbench={clf.C_:g}"
    return [Row("cv", f"{name} textbook loop (train(y, csr) per fold and C)", textbook, 1, note=note),
            Row("cv", f"{name} rfbench CV (problem built once, folds reuse it, {clf.n_jobs} threads)", ours, 1,
                note=note),
            Row("cv", f"{name} speed-up rfbench / textbook", float("nan"), 1, ratio=textbook / ours,
                goal="same C", met=C_textbook == clf.C_, note=note)]


def _warm_start_rows(name: str, Z: np.ndarray, y: np.ndarray, repeats: int) -> list[Row]:
    fits = {}
    for warm in (False, True):
        clf = LibLinearClassifier(random_state=0, cv_warm_start=warm)
        fits[warm] = (median_seconds(lambda clf=clf: clf.fit(Z, y), repeats), clf)
    (plain, clf_plain), (warm, clf_warm) = fits[False], fits[True]
    C_plain, C_warm = clf_plain.C_, clf_warm.C_
    # How flat the CV curve is: the plain loop's accuracy at the C warm starts chose.
    at_warm = clf_plain.cv_scores_[list(clf_plain.C_grid).index(C_warm)]
    note = (f"{name} n={len(Z)} RFF M=2d: C plain={C_plain:g}, warm={C_warm:g}; plain CV accuracy "
            f"{clf_plain.cv_scores_.max():.4f} at C={C_plain:g}, {at_warm:.4f} at C={C_warm:g}")
    return [
        Row("cv", f"{name} plain loop", plain, repeats, note=note),
        Row("cv", f"{name} warm start", warm, repeats, note=note),
        Row("cv", f"{name} speed-up warm / plain", float("nan"), repeats, ratio=plain / warm,
            goal="same C", met=C_plain == C_warm, note=note),
    ]


# --- model selection ------------------------------------------------------------------
def bench_model_selection(name: str, n_rows: int | None) -> list[Row]:
    """One AsK-RFF trial's C selection: the former path, rfbench's Newton and GridSearchCV(LinearSVC)."""
    Z, y, Z_test, y_test = _askrff_trial_features(name, n_rows)
    threads = trig_threads()
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    grid = {"C": list(DEFAULT_C_GRID)}
    contenders = {
        "LibLinear -s 1, folds serial (the former path)": LibLinearClassifier(solver=1, bias=-1.0, random_state=0),
        f"rfbench solver=newton, {threads} threads": LibLinearClassifier(
            solver="newton", bias=-1.0, random_state=0, n_jobs=threads),
        f"GridSearchCV(LinearSVC), n_jobs={threads}": GridSearchCV(
            LinearSVC(fit_intercept=False), grid, cv=folds, n_jobs=threads),
        f"rfbench solver=newton one class at a time (the per-class path it replaces), {threads} threads":
            LibLinearClassifier(solver="newton", bias=-1.0, random_state=0, n_jobs=threads),
    }
    results = {}
    for label, estimator in contenders.items():
        one_at_a_time = "one class at a time" in label
        with _newton_block(1 if one_at_a_time else classifier.NEWTON_BLOCK):
            start, cpu = time.perf_counter(), time.process_time()
            estimator.fit(Z, y)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        C, coef = _chosen_C_and_coef(estimator)
        results[label] = (seconds, C, np.mean(estimator.predict(Z_test) == y_test), _objective_gap(Z, y, C, coef), cpu)
    size = f"{name} n={len(Z)} p={Z.shape[1]} classes={len(np.unique(y))}"
    rows = [Row("model_selection", f"{name} {label}", seconds, 1,
                note=f"{size}: C={C:g}, test accuracy {acc:.4f}, objective gap {gap:.1e}, {cpu:.1f} CPU-s")
            for label, (seconds, C, acc, gap, cpu) in results.items()]
    (former, C_former, *_), (newton, C_newton, *_), (peer, C_peer, *_), (per_class, C_per_class, *_) = \
        results.values()
    # Two classes are one column: both run the same path, so only many classes have a speed-up to show.
    least = 1.5 if len(np.unique(y)) > 2 else 0.8
    rows.append(Row("model_selection", f"{name} speed-up newton / newton one class at a time", float("nan"), 1,
                    ratio=per_class / newton, goal=f">= {least:g}, same C",
                    met=bool(per_class / newton >= least and C_per_class == C_newton),
                    note=f"C one at a time={C_per_class:g}, newton={C_newton:g}"))
    rows.append(Row("model_selection", f"{name} speed-up newton / former path", float("nan"), 1,
                    ratio=former / newton, goal=">= 10, same C",
                    met=bool(former / newton >= 10 and C_former == C_newton),
                    note=f"C former={C_former:g}, newton={C_newton:g}"))
    rows.append(Row("model_selection", f"{name} speed-up newton / GridSearchCV(LinearSVC)", float("nan"), 1,
                    ratio=peer / newton, goal=">= 1", met=bool(peer / newton >= 1),
                    note=f"C GridSearchCV={C_peer:g}, newton={C_newton:g}"))
    return rows


def bench_sparse_path(overrides: Sequence[str], n_rows: int | None) -> list[Row]:
    """One fold's C path on wide sparse codes: the path ``solver="newton"`` takes there, and its peers."""
    Z, y = sparse_path.fold_codes(overrides, _composed, n_rows)
    results = sparse_path.measure(Z, y)
    size = f"{' '.join(overrides)}: fold of {Z.shape[0]} x {Z.shape[1]}, {Z.nnz} values, {y.max() + 1} classes"
    rows = [Row("sparse_path", label, cpu, 1, note=f"{size}; objective gap at C=32 {gap:.1e}, CPU-s")
            for label, (cpu, gap) in results.items()]
    (newton_cg, cg_gap), (former, former_gap), (warm, warm_gap), (cold, _), _ = results.values()
    taken_cg = newton_cg_takes(Z.nnz / Z.shape[0])
    gap = cg_gap if taken_cg else warm_gap
    rows += [
        Row("sparse_path", f"{' '.join(overrides)}: gap of the path taken", float("nan"), 1, value=gap,
            unit="relative objective gap", goal="<= 1e-6", met=bool(gap <= 1e-6)),
        Row("sparse_path", f"{' '.join(overrides)}: speed-up Newton-CG / LibLinear -s 2 warm", float("nan"), 1,
            ratio=warm / newton_cg, goal=f"the faster is taken ({'Newton-CG' if taken_cg else 'LibLinear'})",
            met=bool((warm >= newton_cg) == taken_cg)),
        Row("sparse_path", f"{' '.join(overrides)}: speed-up warm / cold LibLinear -s 2", float("nan"), 1,
            ratio=cold / warm, goal=">= 1.2", met=bool(cold / warm >= 1.2)),
    ]
    if taken_cg:  # the pattern product against the former one (issue 46: GCWS letter's 10 trials within 3 min)
        rows.append(Row("sparse_path", f"{' '.join(overrides)}: speed-up Newton-CG pattern / former product",
                        float("nan"), 1, ratio=former / newton_cg, goal=">= 1.5, both gaps <= 1e-6",
                        met=bool(former / newton_cg >= 1.5 and max(cg_gap, former_gap) <= 1e-6)))
    return rows


def bench_libsvm_grid(dataset: str, n_rows: int | None, repeats: int) -> list[Row]:
    """Li's exact RBF-kernel grid on libsvm: rfbench, the path it replaced, shrinking off, and SVC per point."""
    data = libsvm_grid.li_data(_composed, dataset, n_rows)
    results = libsvm_grid.measure(data, repeats)
    size = (f"{dataset}: {len(data[0])} train x {data[0].shape[1]}, {len(data[2])} test, "
            f"{len(libsvm_grid.GAMMAS)} gammas x {len(libsvm_grid.CS)} C")
    ours, _ = results[libsvm_grid.REFERENCE]
    rows = [Row("libsvm_grid", name, cpu, repeats, note=f"{size}; max |test accuracy - rfbench's| {gap:.1e}; CPU-s")
            for name, (cpu, gap) in results.items()]
    for name, (cpu, gap) in results.items():
        if name != libsvm_grid.REFERENCE:
            exact = name in (libsvm_grid.TODAY, libsvm_grid.PRECOMPUTED_PEER)  # the same Grams and solver settings
            # the refit was one fit of the grid's N + 1: that ratio can only show a gain within noise;
            # shrinking is a setting, kept where it is the faster; the peers must be well behind
            goal = {libsvm_grid.TODAY: "same accuracies (one fit fewer)", libsvm_grid.NO_SHRINKING: ">= 1"}.get(
                name, ">= 1.5")
            met = gap == 0 if name == libsvm_grid.TODAY else cpu / ours >= float(goal[3:]) and (gap == 0 or not exact)
            rows.append(Row("libsvm_grid", f"speed-up rfbench / {name}", float("nan"), repeats, ratio=cpu / ours,
                            reference=name, goal=goal + (", same accuracies" if exact and goal == ">= 1.5" else ""),
                            met=bool(met),
                            note=f"{cpu:.2f} vs {ours:.2f} CPU-s; accuracies differ by up to {gap:.1e}"))
    return rows


def bench_ridge_dual(n_rows: int, factor: float) -> list[Row]:
    """Ridge's lambda grid by CV on binning codes wider than a fold's rows: the dual path, the primal, the peer."""
    Z, y = ridge_dual.binning_codes(_composed, n_rows, factor)
    grid = ridge_dual.lambdas(_composed)
    results = ridge_dual.measure(Z, y, grid)
    size = f"cpu_act: {Z.shape[0]} rows x {Z.shape[1]} binning columns, {len(grid)} lambdas, {ridge_dual.FOLDS} folds"
    rows = [Row("ridge_dual", name, cpu, 1, note=f"{size}; lambda {lam:g}; CV errors and weights differ from the "
                f"dual path's by up to {cv:.1e} and {w:.1e} (relative); CPU-s")
            for name, (cpu, lam, cv, w) in results.items()]
    dual, chosen = results[ridge_dual.DUAL][0], results[ridge_dual.DUAL][1]
    for name in (ridge_dual.EIGEN, ridge_dual.PEER):
        cpu, lam, cv, w = results[name]
        rows.append(Row("ridge_dual", f"speed-up dual / {name}", float("nan"), 1, ratio=cpu / dual, reference=name,
                        goal=">= 2, the same lambda, CV errors within 1e-6", met=bool(
                            cpu / dual >= 2 and lam == chosen and cv <= 1e-6),
                        note=f"{cpu:.2f} vs {dual:.2f} CPU-s"))
    return rows


def bench_discrepancy(s: int, repeats: int) -> list[Row]:
    """QMC's box discrepancy and gradient at s frequencies: trig='tables' against the direct path and numpy."""
    rows = []
    W, objectives = discrepancy.census_house_problem(_composed, s, (1.0, 0.25))
    for box, objective in zip(("b", "b/4"), objectives):
        results = discrepancy.measure(W, objective, repeats)
        size = f"census_house's box {box}: s = {s} frequencies x d = {W.shape[1]}, {s * (s + 1) // 2} pairs"
        rows += [Row("discrepancy", f"{name}, box {box}", cpu, repeats, note=f"{size}; value and gradient differ "
                     f"from the direct path's by up to {gap:.1e} (relative); CPU-s")
                 for name, (cpu, gap) in results.items()]
        ours, gap = results[discrepancy.OURS]
        for name, threshold in ((discrepancy.DIRECT, 3.0), (discrepancy.PEER, 5.0)):
            cpu = results[name][0]
            rows.append(Row("discrepancy", f"speed-up trig='tables' / {name}, box {box}", float("nan"), repeats,
                            ratio=cpu / ours, reference=name, goal=f">= {threshold:g}, within 1e-13 of the direct path",
                            met=bool(cpu / ours >= threshold and gap <= 1e-13),
                            note=f"{cpu:.3f} vs {ours:.3f} CPU-s; trig='tables' differs by up to {gap:.1e}"))
    return rows


def bench_newton_step(k: int, n_rows: int | None) -> list[Row]:
    """Fig. 7's NRFF path on letter: Woodbury steps where cheaper against the p x p steps and LibLinear -s 2."""
    Z, y, Z_test, _ = newton_step.nrff_problem(_composed, k, n_rows)
    results = newton_step.measure(Z, y, Z_test)
    size = (f"letter_li NRFF gamma = 1, k = {k}: {Z.shape[0]} x {Z.shape[1]}, {y.max() + 1} one-vs-rest columns, "
            f"{len(newton_step.CS)} C, {len(Z_test)} test rows")
    rows = [Row("newton_step", name, cpu, 1, note=f"{size}; objective within {gap:.1e} of the p x p path's, "
                f"{moved} test predictions differ from its; CPU-s") for name, (cpu, gap, moved) in results.items()]
    ours, gap, moved = results[newton_step.OURS]
    for name, threshold in ((newton_step.PRIMAL, 1.5), (newton_step.PEER, 1.0)):
        cpu = results[name][0]
        rows.append(Row("newton_step", f"speed-up newton_step='auto' / {name}", float("nan"), 1, ratio=cpu / ours,
                        reference=name, goal=f">= {threshold:g}, objective within 1e-9 of the p x p path's, "
                        "the same test predictions", met=bool(cpu / ours >= threshold and gap <= 1e-9 and moved == 0),
                        note=f"{cpu:.1f} vs {ours:.1f} CPU-s; objective within {gap:.1e}, {moved} predictions differ"))
    return rows


def bench_trials(overrides: Sequence[str]) -> list[Row]:
    """A run's trials in the runner's worker processes vs one after another, from empty results folders."""
    results = {}
    for label, workers in (("trials in worker processes", runner._trial_workers), ("trials serial", None)):
        with tempfile.TemporaryDirectory() as tmp, _trial_workers(workers):
            cfg = _composed(*overrides, f"experiment.results_dir={tmp}")
            start, cpu = time.perf_counter(), time.process_time()
            trials = runner.run(cfg)
            seconds = time.perf_counter() - start
            measured = ("time_", "memory_", "experiment.results_dir")  # not results: what a run measures or where
            recorded = [trials[[c for c in trials if not c.startswith(measured)]],
                        records.read_trials(records.record_paths(Path(tmp), "**/grid.csv")[0])]  # plain or .gz
        results[label] = (seconds, time.process_time() - cpu, recorded)
    (parallel, cpu, (rows, grid)), (serial, _, (serial_rows, serial_grid)) = results.values()
    same = rows.equals(serial_rows) and grid.equals(serial_grid)
    command = "rfbench " + " ".join(overrides)
    out = [Row("trials", f"{command}: {label}", seconds, 1, note=f"{len(rows)} trials, {cpu:.1f} CPU-s in this process")
           for label, (seconds, cpu, _) in results.items()]
    out.append(Row("trials", f"{command}: speed-up workers / serial", float("nan"), 1, ratio=serial / parallel,
                   goal=">= 1.2 on 2 cores, same records", met=bool(serial / parallel >= 1.2 and same),
                   note=f"records bit-identical: {same}"))
    return out


@contextlib.contextmanager
def _trial_workers(workers: Callable | None) -> Iterator[None]:
    """The runner with its trial workers (``workers`` = ``runner._trial_workers``), or serial (None)."""
    saved = runner._trial_workers
    runner._trial_workers = workers or (lambda cfg, n_trials: 1)
    try:
        yield
    finally:
        runner._trial_workers = saved


@contextlib.contextmanager
def _newton_block(columns: int) -> Iterator[None]:
    """``solver="newton"`` solving at most ``columns`` one-vs-rest columns together (1: each class alone)."""
    saved, classifier.NEWTON_BLOCK = classifier.NEWTON_BLOCK, columns
    try:
        yield
    finally:
        classifier.NEWTON_BLOCK = saved


def _askrff_trial_features(name: str, n_rows: int | None) -> tuple[np.ndarray, ...]:
    """Train and test features of one AsK-RFF trial from the configs (Table 1: Sinh, Asy, M = 2d)."""
    cfg = _composed(f"dataset={name}", "kernel=sinh_gaussian")
    data = load_dataset(cfg["dataset"])
    fmap = components.build_feature_map(cfg, components.build_kernel(cfg, data.d), random_state=0).fit(data.X_train)
    return fmap.transform(data.X_train[:n_rows]), data.y_train[:n_rows], fmap.transform(data.X_test), data.y_test


def _chosen_C_and_coef(estimator) -> tuple[float, np.ndarray]:
    """(chosen C, final weights (n_features, n_w)) of a LibLinearClassifier or GridSearchCV(LinearSVC)."""
    if isinstance(estimator, GridSearchCV):
        return float(estimator.best_params_["C"]), estimator.best_estimator_.coef_.T
    return estimator.C_, estimator.coef_


def _objective_gap(Z: np.ndarray, y: np.ndarray, C: float, coef: np.ndarray) -> float:
    """(f(coef) - f*) / f*, f summed over the one-vs-rest problems, f* from Newton at tol=1e-12."""
    Z64 = Z.astype(np.float64)
    # +-1 targets in coef_'s column order: one column (+1 = the second class) for two classes.
    signs = LabelBinarizer(neg_label=-1).fit_transform(y).astype(np.float64)
    ours = sum(primal_objective(Z64, signs[:, k], C, coef[:, k]) for k in range(signs.shape[1]))
    tight = next(squared_hinge_paths(Z64, signs, [C], tol=1e-12))
    best = sum(primal_objective(Z64, signs[:, k], C, tight[:, k]) for k in range(signs.shape[1]))
    return (ours - best) / best


# --- driver ---------------------------------------------------------------------------
def _composed(*overrides: str) -> dict:
    """The resolved rfbench config of a command line's overrides (as ``rfbench <overrides>`` composes it)."""
    with initialize_config_dir(config.CONFIG_DIR, version_base="1.3"):
        return config.to_dict(compose("config", overrides=list(overrides)))


def _dataset(name: str) -> Dataset:
    return load_dataset(_composed(f"dataset={name}")["dataset"])


def run(sizes: Sizes, repeats: int, sections: Sequence[str] = SECTIONS) -> pd.DataFrame:
    """The chosen sections; one row per measurement or ratio."""
    sigma = _composed("kernel=gaussian")["kernel"]["sigma"]
    rows = []
    if "transform" in sections:
        data = _dataset(sizes.transform_dataset)
        X = np.vstack([data.X_train, data.X_test])[: sizes.n_transform]
        rows += bench_transform(X, sizes.width, sigma, repeats)
    if "gram" in sections:
        spam = _dataset("spambase").X_train
        gram_rows = np.random.default_rng(0).choice(len(spam), sizes.n_gram, replace=False)
        rows += bench_gram(spam[gram_rows], sizes, max(1, repeats // 2))
    if "cv" in sections:
        for name in sizes.cv_datasets:
            rows += bench_cv(_dataset(name), sigma, max(1, repeats // 2), sizes.n_cv)
    if "model_selection" in sections:
        for name in sizes.selection_datasets:
            rows += bench_model_selection(name, sizes.n_cv)
    if "trials" in sections:
        rows += bench_trials(sizes.run_overrides)
    if "sparse_path" in sections:
        for overrides in sizes.sparse_runs:
            rows += bench_sparse_path(overrides, sizes.n_sparse)
    if "libsvm_grid" in sections:
        rows += bench_libsvm_grid(sizes.libsvm_dataset, sizes.n_libsvm, repeats)
    if "ridge_dual" in sections:
        rows += bench_ridge_dual(sizes.n_ridge, sizes.ridge_factor)
    if "discrepancy" in sections:
        rows += bench_discrepancy(sizes.n_frequencies, repeats)
    if "newton_step" in sections:
        rows += bench_newton_step(sizes.newton_k, sizes.n_newton)
    return pd.DataFrame([asdict(row) for row in rows])


def markdown(table: pd.DataFrame, command: str) -> str:
    """The README table: each ratio and goal, plus the throughputs and times it comes from."""
    blas = ", ".join(f"{i['internal_api']} {i.get('architecture', '')} x{i['num_threads']}"
                     for i in threadpool_info() if i["user_api"] == "blas")
    load = table[["load1", "load5", "load15"]].agg(["min", "max"])
    lines = [f"`{command}` ({blas}; engine threads {trig_threads()}; load average 1 min "
             f"{load.loc['min', 'load1']:.2f}-{load.loc['max', 'load1']:.2f} during the run)", "",
             "| section | measurement | figure | goal | met |", "|---|---|---|---|---|"]
    for row in table.itertuples():
        lines.append(f"| {row.section} | {row.name} | {_figure(row)} | {row.goal} | "
                     f"{'' if row.met is None or pd.isna(row.met) else ('yes' if row.met else 'NO')} |")
    lines.append("| end to end | wall time of the paper make targets | not timed here: `time make askrff-<target>`, "
                 "recorded in the README | | |")
    return "\n".join(lines)


def _figure(row) -> str:
    if not pd.isna(row.ratio):
        return f"{row.ratio:.2f}x" + (f" ({row.note})" if row.section in ("cv", "model_selection", "trials",
                                                                           "libsvm_grid", "discrepancy",
                                                                           "newton_step") else "")
    if row.section == "sparse_path" and row.unit:
        return f"{row.value:.1e}"
    if row.unit == "features/s":
        return f"{row.value / 1e6:.0f} M features/s ({row.seconds:.3f} s)"
    if row.unit:
        return f"{row.value:.3g} {row.unit}"
    return f"{row.seconds:.3g} s" + (f" ({row.note})" if row.note else "")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="benchmarks/bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks the bench runs, measures nothing")
    parser.add_argument("--repeats", type=int, default=5,
                        help="rounds per measurement (transform: best of; gram, cv: median of half as many); default 5")
    parser.add_argument("--out", type=Path, default=Path("results/bench/bench.csv"))
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=SECTIONS, metavar="SECTION",
                        help=f"sections to run, of {', '.join(SECTIONS)} (default: all)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    table = run(QUICK if args.quick else FULL, args.repeats, args.sections)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False)
    print(markdown(table, "make bench" if not args.quick else "python benchmarks/bench.py --quick"))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
