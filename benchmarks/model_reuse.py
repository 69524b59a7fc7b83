"""How much the grid reuse of RidgeRegressorCV and PrecomputedKernelSVC saves, against textbook loops.

    nice .venv/bin/python benchmarks/model_reuse.py [--svc-n 3000]

Ridge: cpu_act (8,192 x 21, standardized), Gaussian RFF to 256 and 2,048 columns, 5-fold CV over 20
lambdas: one eigendecomposition per fold (rfbench) against 20 solves per fold, as
scikit-learn's GridSearchCV(Ridge) does them and as np.linalg.solve on a Gram formed once per
fold.  Kernel SVM: letter (rfbench's 12,000-point training split, scaled to [0, 1]), the first
``--svc-n`` points, 5 gammas x 11 C, 5-fold stratified CV: one distance matrix and one Gram per
gamma (rfbench) against GridSearchCV(SVC(kernel="rbf")) on the same folds.  Everything runs with
one BLAS thread; wall times, best of ``--repeat`` for ridge, one run for the SVMs.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import OmegaConf
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from rfbench.dataset.loader import load_dataset
from rfbench.dataset.sources import resolve_mirror
from rfbench.feature_map.rff import GaussianRFF
from rfbench.model.kernel_svm import PrecomputedKernelSVC
from rfbench.model.ridge import RidgeRegressorCV

REPO = Path(__file__).resolve().parents[1]
LAMBDAS = tuple(np.logspace(-6, 3, 20))
GAMMAS = tuple(2.0 ** np.arange(-1, 4))
CS = tuple(2.0 ** np.arange(-5, 6))


def cpu_act_features(frequencies: int) -> tuple[np.ndarray, np.ndarray]:
    """cpu_act's 8,192 rows, standardized, through Gaussian RFF ([cos, sin]: 2 x frequencies columns)."""
    mirror = resolve_mirror(None, None)
    if mirror is None or not mirror.startswith("file://"):
        raise SystemExit("set RFBENCH_DATA_MIRROR to file://<mirror> (e.g. ../shared/datasets as a file URL)")
    table = pd.read_csv(Path(mirror[len("file://"):]) / "cpu_act" / "197_cpu_act.tsv.gz", sep="\t")
    X, y = table.drop(columns="target").to_numpy(float), table["target"].to_numpy(float)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rff = GaussianRFF(n_components=frequencies, sigma=np.sqrt(X.shape[1]), dtype="float64", random_state=0)
    Z = rff.fit_transform(X)
    return Z, y


def best_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def ridge_section(frequencies: int, repeat: int) -> list[dict]:
    Z, y = cpu_act_features(frequencies)
    folds = list(KFold(5, shuffle=True, random_state=0).split(Z))

    def ours():
        return RidgeRegressorCV(lambda_grid=LAMBDAS, cv=5, scoring="mse", random_state=0).fit(Z, y)

    def grid_search():
        search = GridSearchCV(Ridge(solver="cholesky"), {"alpha": LAMBDAS}, cv=folds, scoring="neg_mean_squared_error")
        return search.fit(Z, y)

    def gram_then_solves():
        scores = np.zeros(len(LAMBDAS))
        for train, test in folds:
            z_mean, y_mean = Z[train].mean(axis=0), y[train].mean()
            Zc = Z[train] - z_mean
            gram, Zty = Zc.T @ Zc, Zc.T @ (y[train] - y_mean)
            for j, lam in enumerate(LAMBDAS):
                w = np.linalg.solve(gram + lam * np.eye(len(gram)), Zty)
                scores[j] += np.mean(((Z[test] - z_mean) @ w + y_mean - y[test]) ** 2) / len(folds)
        return scores

    t_ours, model = best_time(ours, repeat)
    t_search, search = best_time(grid_search, repeat)
    t_solves, scores = best_time(gram_then_solves, repeat)
    agree = (f"lambda {model.lambda_:.3g} / {search.best_params_['alpha']:.3g} / "
             f"{LAMBDAS[int(np.argmin(scores))]:.3g}; "
             f"max |CV MSE diff| {np.abs(model.cv_scores_ + search.cv_results_['mean_test_score']).max():.1e}")
    shape = f"cpu_act {Z.shape[0]} x {Z.shape[1]}, 5 folds x {len(LAMBDAS)} lambdas"
    return rows(shape, agree, [("rfbench RidgeRegressorCV (one eigh per fold)", t_ours),
                               ("GridSearchCV(Ridge(solver='cholesky'))", t_search),
                               ("Gram once per fold + np.linalg.solve per lambda", t_solves)])


def svc_section(n: int) -> list[dict]:
    cfg = OmegaConf.load(REPO / "configs" / "dataset" / "letter.yaml")
    data = load_dataset(cfg)
    X, y = data.X_train[:n], data.y_train[:n]
    folds = StratifiedKFold(5, shuffle=True, random_state=0)

    ours = PrecomputedKernelSVC(gamma_grid=GAMMAS, C_grid=CS, cv=5, random_state=0)
    t_ours, model = best_time(lambda: ours.fit(X, y), 1)
    grid_search = GridSearchCV(SVC(kernel="rbf"), {"gamma": GAMMAS, "C": CS}, cv=folds)
    t_search, search = best_time(lambda: grid_search.fit(X, y), 1)
    theirs = search.cv_results_["mean_test_score"].reshape(len(CS), len(GAMMAS)).T  # ParameterGrid: C outer
    agree = (f"(gamma, C) = ({model.gamma_:g}, {model.C_:g}) / ({search.best_params_['gamma']:g}, "
             f"{search.best_params_['C']:g}); max |CV accuracy diff| {np.abs(model.cv_scores_ - theirs).max():.1e}")
    shape = f"letter {n} x 16, 5 folds x {len(GAMMAS)} gammas x {len(CS)} C"
    return rows(shape, agree, [("rfbench PrecomputedKernelSVC (one Gram per gamma)", t_ours),
                               ("GridSearchCV(SVC(kernel='rbf'))", t_search)])


def rows(task: str, agreement: str, timings: list[tuple[str, float]]) -> list[dict]:
    """One table row per contender, rfbench first; the agreement note on its row."""
    return [{"task": task, "contender": name, "seconds": seconds, "note": agreement if k == 0 else ""}
            for k, (name, seconds) in enumerate(timings)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--svc-n", type=int, default=3000, help="letter training points for the SVM grid")
    parser.add_argument("--repeat", type=int, default=3, help="ridge timings: best of this many")
    parser.add_argument("--ridge-frequencies", type=int, nargs="+", default=[128, 1024],
                        help="RFF frequencies for ridge (columns: twice as many)")
    args = parser.parse_args()
    with threadpool_limits(limits=1):
        rows = [row for m in args.ridge_frequencies for row in ridge_section(m, args.repeat)] + svc_section(args.svc_n)
    table = pd.DataFrame(rows)
    table["x rfbench time"] = table["seconds"] / table.groupby("task")["seconds"].transform("first")
    print(table.to_markdown(index=False, floatfmt=".3g"))


if __name__ == "__main__":
    main()
