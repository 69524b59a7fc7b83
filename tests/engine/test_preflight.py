"""The command line checked before Hydra acts on it (no job runs here)."""
import pytest

from rfbench.cli import CONFIG_DIR
from rfbench.engine.config import ConfigError
from rfbench.engine.preflight import check_command_line


def check(*argv: str) -> None:
    check_command_line(list(argv), CONFIG_DIR)


@pytest.mark.parametrize("argv, message", [
    # unknown names: the closest key, and every key of the group
    (["feature_map.m_over=2"],
     "feature_map.m_over=2 is invalid: feature_map=rff has no key 'm_over'; did you mean feature_map.m_over_d? "
     "Valid keys of feature_map: name, m_over_d, n_components, variant, dtype"),
    (["kernel=sinh_gaussian", "kernel.bta=1"],
     "kernel.bta=1 is invalid: kernel=sinh_gaussian has no key 'bta'; did you mean kernel.beta? "
     "Valid keys of kernel: name, sigma, beta"),
    (["featuremap.m_over_d=2"], "the config has no key 'featuremap'; did you mean feature_map.m_over_d?"),
    (["dataset.split.sed=1"], "dataset.split has no key 'sed'; did you mean dataset.split.seed?"),
    # a key only some jobs of a sweep have: named before any job runs
    (["-m", "kernel=gaussian,sinh_gaussian", "kernel.beta=1"],
     "kernel.beta=1 is invalid: kernel=gaussian has no key 'beta'. Valid keys of kernel: name, sigma"),
    # empty: a group given no option
    (["dataset=null"], "dataset=null is invalid: dataset takes one option; choose one of a9a,"),
    (["-m", "dataset=[]"], "dataset=[] is invalid: dataset takes one option; choose one of a9a,"),
    (["~kernel"],
     "~kernel is invalid: kernel takes one option; choose one of cosh_gaussian, cosine_rbf, gaussian, gmm, laplacian"),
    # an option the group does not have: the closest one and every one (Hydra would end in status 1)
    (["dataset=spambse"], "dataset=spambse is invalid: dataset has no option 'spambse'; did you mean "
                          "dataset=spambase? Valid options: a9a,"),
    (["kernel=nope"], "kernel=nope is invalid: kernel has no option 'nope'. Valid options: cosh_gaussian,"),
    (["feature_map=nope"], "feature_map has no option 'nope'. Valid options: askrff,"),
    (["classifier=nope"], "classifier has no option 'nope'; did you mean classifier=none?"),
    (["job=nope"], "job has no option 'nope'. Valid options: askrff_masses, atlas_bandwidth, li_variance_grid,"),
    (["experiment=nope"], "experiment has no option 'nope'. Valid options: askrff_accuracy,"),
    (["-m", "kernel=gaussian,nope"], "kernel has no option 'nope'"),
    (["--config-dir", "/nonexistent"], "--config-dir '/nonexistent' is invalid: not a folder"),
    (["hydra/launcher=nope"], "hydra/launcher=nope is invalid: hydra/launcher has no option 'nope'. Valid options: "),
    # a boolean key given something else
    (["experiment.force=maybe"], "experiment.force=maybe is invalid: experiment.force is true or false"),
    (["dataset.allow_unverified=2"],
     "dataset.allow_unverified=2 is invalid: dataset.allow_unverified is true or false"),
    (["classifier=ridge", "classifier.fit_intercept=null"], "classifier.fit_intercept is true or false"),
    (["experiment.force=${oc.env:HOME}"], "experiment.force is true or false"),
    # an added key no component reads (it would only change the run id), or one that exists
    (["+foo=1"], "+foo=1 is invalid: the config has no key 'foo'. Valid keys of the config: dataset,"),
    (["++foo=1"], "++foo=1 is invalid: the config has no key 'foo'."),
    (["+experiment.bar=1"], "+experiment.bar=1 is invalid: experiment=default has no key 'bar'. Valid keys of "
                            "experiment: name,"),
    (["+experiment.force=true"], "experiment.force is already set; drop the '+' to change it"),
    # an interpolation that does not resolve
    (["experiment.name=${oc.env:RFBENCH_SURELY_UNSET}"], "experiment.name does not resolve: "),
    # conflicting
    (["feature_map.n_components=300", "feature_map.m_over_d=4"],
     "feature_map.n_components=300 and feature_map.m_over_d=4 are both set"),
    # a value config.validate rejects, in any job of a sweep
    (["-m", "feature_map.m_over_d=1,0"], "feature_map.m_over_d=0 is invalid: a number > 0"),
])
def test_mistakes_are_named_before_hydra_runs(argv, message):
    with pytest.raises(ConfigError) as err:
        check(*argv)
    assert message in str(err.value)


def test_the_suggested_key_works():
    with pytest.raises(ConfigError, match="did you mean feature_map.m_over_d"):
        check("feature_map.m_over=4")
    check("feature_map.m_over_d=4")


@pytest.mark.parametrize("argv", [
    [],
    ["kernel=sinh_gaussian", "dataset=letter"],
    ["feature_map.n_components=300"],  # m_over_d keeps its default, n_components wins (documented)
    ["feature_map.n_components=300", "feature_map.m_over_d=null"],
    ["-m", "kernel=gaussian,sinh_gaussian", "feature_map.m_over_d=1,2"],
    ["--cfg", "job", "kernel.sigma=-1"],  # --cfg prints the config; only running validates it
    ["--help"],
    ["experiment.force=true", "++dataset.scale=minmax_unit_rows"],  # ++ on a key that exists overrides it
    ["-m", "experiment.force=false,true"],
    ["hydra/launcher=basic"],
])
def test_valid_command_lines_pass(argv):
    check(*argv)


@pytest.mark.parametrize("argv", [
    ["feature_map.m_over_d=1,2"],  # a sweep without -m: Hydra explains
    ["kernel=gaussian,linear"],
    ["--config-path", "/nonexistent", "kernel=nope"],
])
def test_what_hydra_reports_is_left_to_hydra(argv):
    check(*argv)
