"""Components built from their config: checks, compatibility, memory, and components from outside."""
import subprocess
import sys

import pytest
import scipy.sparse as sp
from hydra import compose, initialize_config_dir

from rfbench.engine import components, config, records
from rfbench.engine.preflight import check_config
from rfbench.feature_map import GCWS, AsKRFF, GaussianRFF, NystroemMap, RandomBinning
from rfbench.kernel import CoshGaussian, GaussianKernel, SinhGaussian
from rfbench.model.kernel_svm import PrecomputedKernelSVC
from rfbench.model.liblinear import LibLinearClassifier
from rfbench.model.ridge import ridge_cv
from tests.conftest import REPO

TOY_CONFIGS = REPO / "tests" / "toy_components" / "configs"


def compose_cfg(*overrides: str) -> dict:
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        return config.to_dict(compose("config", overrides=list(overrides)))


def test_a_grid_is_powers_of_two_or_a_list_not_both():
    svm = ("kernel=linear", "feature_map=identity", "classifier=svc_precomputed")
    listed = compose_cfg(*svm, "classifier.log2_gamma=null", "classifier.gamma_grid=[0.5,3]")
    assert components.build_model(listed).gamma_grid == [0.5, 3]
    assert components.build_model(compose_cfg(*svm)).gamma_grid == [2.0 ** e for e in (-4, -2, 0, 2, 4)]
    with pytest.raises(config.ConfigError, match=r"^classifier.gamma_grid and classifier.log2_gamma are both set; "
                                                 r"set one of them and the other to null$"):
        components.build_model(compose_cfg(*svm, "classifier.gamma_grid=[0.5]"))

def test_components_are_built_from_their_yaml():
    cfg = compose_cfg("kernel=sinh_gaussian", "feature_map.m_over_d=3", "classifier.log2_C=[-1,2]")
    kernel = components.build_kernel(cfg, 57)
    assert isinstance(kernel, SinhGaussian) and kernel.d == 57 and kernel.sigma == 2.0
    fmap = components.build_feature_map(cfg, kernel, random_state=7)
    assert isinstance(fmap, AsKRFF) and fmap.kernel is kernel  # the run's kernel object, built once
    assert fmap.n_components == 171 and fmap.random_state == 7
    model = components.build_model(cfg, random_state=3, n_jobs=2)
    assert isinstance(model, LibLinearClassifier)
    assert model.C_grid == [0.5, 4.0] and model.random_state == 3 and model.n_jobs == 2
    assert components.build_model(compose_cfg("classifier=none")) is None


def test_rff_takes_the_kernels_bandwidth():
    cfg = compose_cfg("kernel.sigma=0.5", "feature_map.n_components=10")
    fmap = components.build_feature_map(cfg, components.build_kernel(cfg, 4))
    assert isinstance(fmap, GaussianRFF) and fmap.sigma == 0.5 and fmap.n_components == 10


def test_m_is_absolute_or_a_multiple_of_d():
    assert components.n_components({"m_over_d": 2, "n_components": None}, 57) == 114
    assert components.n_components({"m_over_d": 0.5, "n_components": None}, 57) == 28
    assert components.n_components({"m_over_d": 2, "n_components": 300}, 57) == 300


@pytest.mark.parametrize("override, message", [
    ("feature_map.m_over_d=0", "feature_map.m_over_d=0 is invalid: a number > 0"),
    ("feature_map.m_over_d=inf", "feature_map.m_over_d=inf is invalid: a number > 0"),
    ("feature_map.n_components=0", "feature_map.n_components must be a positive integer, got 0"),
    ("kernel.sigma=0", "kernel.sigma=0 is invalid: a bandwidth with 1e-30 <= sigma <= 1e+30"),
    ("kernel.sigma=abc", "kernel.sigma='abc' is invalid: a bandwidth with 1e-30 <= sigma <= 1e+30"),
    ("kernel.sigma=1e300", "kernel.sigma=1e+300 is invalid"),  # sigma**2 would overflow
    ("classifier.log2_C=[]", "classifier.log2_C=[] is invalid: a list of exponents e, -1000 <= e <= 1000, not empty"),
    ("classifier.log2_C=[abc]", "classifier.log2_C=['abc'] is invalid: a list of exponents e, -1000 <= e <= 1000"),
    ("classifier.log2_C=[5000]", "classifier.log2_C=[5000] is invalid: a list of exponents"),  # 2.0 ** 5000 overflows
    ("classifier.log2_C=[1,null]", "classifier.log2_C=[1, None] is invalid"),
    ("classifier.log2_C=[200]",
     "classifier.log2_C=[1.6069380442589903e+60] is invalid: every C must be in [2^-100, 2^100]"),
    ("classifier.cv=0", "classifier.cv must be an int >= 1, got 0"),
    ("classifier.n_jobs=0", "classifier.n_jobs=0 is invalid: an integer >= 1"),
    ("classifier.solver=7.5", "classifier.solver=7.5 is not a LibLinear classification solver"),
])
def test_each_component_checks_its_own_parameters_and_names_the_config_key(override, message):
    with pytest.raises(config.ConfigError) as err:
        check_config(compose_cfg(override))
    assert message in str(err.value)


def test_askrff_subset_size_is_checked():
    with pytest.raises(config.ConfigError, match=r"feature_map.n_subset=2 is invalid: an integer >= 3"):
        check_config(compose_cfg("kernel=sinh_gaussian", "feature_map.n_subset=2"))


@pytest.mark.parametrize("kernel, fmap, valid", [
    ("sinh_gaussian", "rff", "askrff"),
    ("gaussian", "identity", "askrff|fastfood|nystroem|orf|qmc|rff|sorf"),
    ("laplacian", "sorf", "binning|cauchy_rff|nystroem"),
    ("linear", "askrff", "identity"),
    ("linear", "rff", "identity"),
])
def test_a_feature_map_that_cannot_approximate_the_kernel_is_refused_naming_those_that_can(kernel, fmap, valid):
    with pytest.raises(config.ConfigError) as err:
        check_config(compose_cfg(f"kernel={kernel}", f"feature_map={fmap}"))
    assert f"feature_map={fmap} cannot approximate kernel={kernel}; feature maps for kernel={kernel}: {valid}" \
        in str(err.value)


def test_a_model_that_cannot_serve_the_task_is_refused_naming_those_that_can():
    with pytest.raises(config.ConfigError) as err:
        check_config(compose_cfg("dataset=cpu_act", "classifier=liblinear"))
    assert str(err.value) == ("classifier=liblinear cannot serve dataset=cpu_act, a regression task; "
                              "models for regression: classifier=none|ridge")
    check_config(compose_cfg("dataset=cpu_act", "classifier=ridge"))  # the suggestion works


def test_an_unknown_parameter_or_target_is_named(tmp_path):
    cfg = compose_cfg()
    cfg["feature_map"]["bandwidth"] = 2.0
    with pytest.raises(config.ConfigError, match=r"feature_map.bandwidth is not a parameter of feature_map=rff "
                                                  r"\(GaussianRFF\); its parameters: n_components, sigma"):
        components.build_feature_map(cfg, components.build_kernel(cfg, 3))
    cfg["kernel"]["_target_"] = "rfbench.kernel.NoSuchKernel"
    with pytest.raises(config.ConfigError, match=r"kernel=gaussian: _target_ 'rfbench.kernel.NoSuchKernel' "
                                                  r"cannot be imported"):
        components.build_kernel(cfg, 3)


def test_memory_estimate_counts_parameters_features_and_the_models_copy():
    # rff cos_sin, M = 2d = 114 on spambase's d = 57, n = 2760: 2M float32 columns, 16-byte entries
    fmap = GaussianRFF(n_components=114)
    assert components.memory_estimate(fmap, 57, 2760) == {
        "feature map": 114 * 58 * 8, "training features": 2760 * 228 * 4, "model's copy": 2760 * 230 * 16}
    assert components.memory_estimate(fmap, 57, 0) == {"feature map": 114 * 58 * 8}
    # AsK-RFF at its widest: 3 parts sampled, blocks [phi_w, phi_z, phi_v, psi_v] of 2M columns
    cosh = CoshGaussian(57)
    assert cosh.parts == ("real_pos", "real_neg", "imag_pos")
    asy = components.memory_estimate(AsKRFF(kernel=cosh, n_components=114), 57, 2760)
    assert asy["feature map"] == 3 * 114 * 57 * 8 and asy["training features"] == 2760 * 912 * 4
    sym = components.memory_estimate(AsKRFF(kernel=cosh, n_components=114, part="symmetric"), 57, 2760)
    assert sym["feature map"] == 2 * 114 * 57 * 8 and sym["training features"] == 2760 * 456 * 4
    gauss = components.memory_estimate(AsKRFF(kernel=GaussianKernel(57), n_components=114), 57, 2760)
    assert gauss["training features"] == 2760 * 228 * 4  # one part


def test_too_large_m_is_refused_with_the_estimate_and_a_bound_that_fits(monkeypatch):
    cfg = compose_cfg()
    model = components.build_model(cfg, random_state=0)

    def need(m: int) -> int:
        return sum(components.memory_estimate(GaussianRFF(n_components=m), 57, 2760, model).values())

    total = need(114)
    monkeypatch.setattr(config, "available_memory", lambda: total // 2)
    with pytest.raises(config.ConfigError) as err:
        check_config(cfg)
    message = str(err.value)
    assert message.startswith("feature_map.m_over_d=2 is invalid (M = 114 on d=57, 2760 training points): "
                              f"a trial needs about {total / 2**30:.3g} GiB")
    bound = round(float(message.rsplit("choose m_over_d <= ", 1)[1]) * 57)  # M, printed as M / d to 4 digits
    assert need(bound) <= total // 2 < need(bound + 1)
    monkeypatch.setattr(config, "available_memory", lambda: total)
    check_config(cfg)


def test_each_model_counts_what_its_path_holds():
    """Newton's float64 design (twice for sparse codes: densified, then on their row space) and p x p
    Hessians; LibLinear's 16-byte nodes; ridge's p x p normal equations, n x n rows' Gram or LSQR's rows;
    libsvm's n x n."""
    n, p = 1000, 300
    newton = LibLinearClassifier(solver="newton", bias=1.0, n_jobs=2)
    assert newton.memory_needs(n, p - 1, p - 1, False) == {
        "solver=newton's float64 design": n * p * 8, "solver=newton's p x p Hessians": 3 * p * p * 8}
    assert newton.memory_needs(n, p - 1, 10, True) == {
        "solver=newton's float64 design (densified)": 2 * n * p * 8, "solver=newton's p x p Hessians": 5 * p * p * 8}
    assert LibLinearClassifier(solver=1).memory_needs(n, p, 10, True) == {"LibLinear -s 1's feature nodes": n * 12 * 16}
    assert ridge_cv(n_jobs=2).memory_needs(n, p, p, False) == {
        "ridge's normal equations (p x p per fold)": 2 * 3 * p * p * 8}
    assert ridge_cv().memory_needs(n, 9000, 9000, False) == {"ridge's rows' Gram (n x n per fold)": 3 * n * n * 8}
    assert ridge_cv().memory_needs(9000, 9000, 9000, False) == {
        "ridge's float64 rows (lsqr, per fold)": 9000 * 9000 * 8}
    assert ridge_cv(solver="lsqr").memory_needs(n, p, 10, True) == {
        "ridge's float64 rows (lsqr, per fold)": n * 10 * 16}
    assert ridge_cv().memory_needs(n, p, 10, True) == {"ridge's normal equations (p x p per fold)": 3 * p * p * 8}
    assert PrecomputedKernelSVC(cv=5).memory_needs(n, p, p, False) == {
        "libsvm's precomputed distances and Grams (n x n)": 8 * (2 + 0.8) * n * n}


def test_gcws_codes_are_as_wide_as_newton_densifies_them():
    assert GCWS(n_components=128, b=5).output_width(16) == 128 * 32
    assert GCWS(n_components=128).output_width(16) == 128 * 32  # m = 32 coordinates: i* has 5 bits
    assert GaussianRFF(n_components=10).output_width(3) == 20 and RandomBinning(n_components=4).output_width(3) is None


def test_a_model_too_large_for_memory_is_refused_with_the_m_that_fits(monkeypatch):
    """Li's GCWS at b = 5, k = 1024 on letter (d = 16, 15,000 training rows): 32,768 columns, beyond
    Newton's dense path, so its iterative one copies the codes into a float64 CSR design and its folds'
    (checked by the runner once the data are loaded: letter_li states no split)."""
    cfg = compose_cfg("kernel=gmm", "dataset=letter_li", "feature_map.b=5", "feature_map.n_components=1024")
    monkeypatch.setattr(config, "available_memory", lambda: 256 * 2**20)
    with pytest.raises(config.ConfigError) as err:
        components.check(cfg, 16, 15000)
    message = str(err.value)
    assert message.startswith("feature_map.n_components=1024 is invalid (M = 1024 on d=16, 15000 training points)")
    assert "solver=newton's float64 CSR design and its folds'" in message and "more than the 0.25 GiB" in message
    bound = int(message.rsplit("choose n_components <= ", 1)[1])
    assert 1 <= bound < 1024
    cfg["feature_map"]["n_components"] = bound
    components.check(cfg, 16, 15000)


def test_a_model_whose_arrays_do_not_shrink_with_m_is_named(monkeypatch):
    cfg = compose_cfg("kernel=linear", "feature_map=identity", "classifier=svc_precomputed")
    monkeypatch.setattr(config, "available_memory", lambda: 2**20)
    with pytest.raises(config.ConfigError, match=r"^classifier=svc_precomputed on dataset=spambase \(2760 training "
                                                  r"points, d=57\) is invalid: .*libsvm's precomputed .*; choose "
                                                  r"another classifier or a smaller training set"):
        check_config(cfg)


def test_the_model_is_checked_again_on_the_features_it_gets(monkeypatch):
    """Binning's width is the occupied bins, known only once the features exist."""
    cfg = compose_cfg("classifier.solver=newton")
    model = components.build_model(cfg)
    Z = sp.random(500, 4000, density=0.01, format="csr", random_state=0)
    monkeypatch.setattr(config, "available_memory", lambda: 10 * 2**20)
    with pytest.raises(config.ConfigError, match=r"^classifier=liblinear is invalid on these 500 x 4000 sparse "
                                                  r"features: a trial needs about .*solver=newton's float64 "
                                                  r"design \(densified\)"):
        components.check_model_memory(cfg, model, Z)
    components.check_model_memory(cfg, model, Z[:, :100])


def test_the_bound_of_a_map_quadratic_in_m_fits_too(monkeypatch):
    """Nystroem holds K_LL^{-1/2}, (2M)^2 numbers: the suggested n_components is the largest that fits."""
    cfg = compose_cfg("feature_map=nystroem", "feature_map.n_components=2000")
    model = components.build_model(cfg, random_state=0)

    def need(m):
        return sum(components.memory_estimate(NystroemMap(n_components=m), 57, 2760, model).values())

    monkeypatch.setattr(config, "available_memory", lambda: need(2000) // 3)
    with pytest.raises(config.ConfigError) as err:
        check_config(cfg)
    bound = int(str(err.value).rsplit("choose n_components <= ", 1)[1])
    assert need(bound) <= need(2000) // 3 < need(bound + 1)


def test_huge_m_over_d_is_refused_before_anything_is_allocated():
    with pytest.raises(config.ConfigError, match=r"feature_map.m_over_d=1000000.0 is invalid .* GiB"):
        check_config(compose_cfg("feature_map.m_over_d=1e6"))


def rfbench(tmp_path, *args):
    cmd = [sys.executable, "-m", "rfbench", "--config-dir", str(TOY_CONFIGS), *args,
           f"experiment.results_dir={tmp_path}", "experiment.trials=1", "experiment.n_gram=200"]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_toy_feature_map_and_model_from_outside_the_package_run_through_the_cli(tmp_path):
    """tests/toy_components adds both through their YAML only (no file of rfbench/ or configs/ names them)."""
    proc = rfbench(tmp_path, "dataset=spambase", "kernel=linear", "feature_map=toy_rotation",
                   "classifier=toy_centroid")
    assert proc.returncode == 0, proc.stderr
    (run,) = (tmp_path / "default" / "runs").iterdir()
    trial = records.read_trials(run / "trials.csv").iloc[0]
    assert trial["feature_map._target_"] == "tests.toy_components.toy.RandomRotation"
    assert trial["n_features"] == 57 and trial["shrink"] in (2.0 ** -8, 0.5)
    assert trial["gram_error"] < 1e-12  # a rotation keeps the linear kernel exactly
    assert 0.5 < trial["test_accuracy"] < 1 and trial["test_error"] == pytest.approx(1 - trial["test_accuracy"])
    grid = records.read_trials(run / "grid.csv")
    assert list(grid["shrink"]) == [2.0 ** -8, 0.5] and grid["cv_score"].max() == trial["cv_accuracy"]
    refused = rfbench(tmp_path, "kernel=gaussian", "feature_map=toy_rotation")
    assert refused.returncode == 2
    assert "feature_map=toy_rotation cannot approximate kernel=gaussian; feature maps for kernel=gaussian: " \
           "askrff|fastfood|nystroem|orf|qmc|rff|sorf" in refused.stderr
