# rfbench: `make help` lists the targets. `make run` runs the default experiment, `make test` the
# test suite; both create the virtualenv .venv on first use (a fresh machine needs only python3).
# A paper target runs its campaign (configs/campaign/<paper>.yaml) through Hydra's launcher:
#   make li-fig7                      # resumes: only runs missing from results/ are computed
#   make li-fig7 LAUNCHER=slurm       # the same jobs on a cluster (or ray_cluster)
#   make rr ARGS=experiment.trials=2 RESULTS=/tmp/r
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# Offline data: the workplace mirror beside the repo, unless RFBENCH_DATA_MIRROR is set.
MIRROR_DIR := $(abspath ../shared/datasets)
ifeq ($(origin RFBENCH_DATA_MIRROR), undefined)
  ifneq ($(wildcard $(MIRROR_DIR)),)
    export RFBENCH_DATA_MIRROR := file://$(MIRROR_DIR)
  endif
endif

# OpenBLAS's kernels for every target: the records' (Haswell), not the ones it would pick for this CPU,
# whose other summation order moves the QMC adaptive sequences (rfbench/engine/blas_pin.py); only where
# the CPU runs them (AVX2 and FMA), and never over a value already set.
ifneq ($(shell grep -m1 -ow avx2 /proc/cpuinfo 2>/dev/null)$(shell grep -m1 -ow fma /proc/cpuinfo 2>/dev/null),)
  export OPENBLAS_CORETYPE ?= Haswell
endif

ARGS     ?=
RESULTS  ?= results
LAUNCHER ?= joblib
# pytest-xdist workers of `make test`: one per core (0: the whole suite in one process)
TEST_WORKERS ?= auto
PAPERS   := askrff li qmc rr tutorial
CAMPAIGNS := $(PAPERS) atlas example
CAMPAIGN  = $(BIN)/rfbench-campaign --results $(RESULTS) --launcher $(LAUNCHER)

.PHONY: help install run test lint bench sweep report verify all atlas clean-results $(PAPERS)

help:  ## this list
	@echo "make <target> [RESULTS=dir] [LAUNCHER=joblib|basic|ray|ray_cluster|slurm] [ARGS='overrides']"
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-24s %s\n", $$1, $$2}'
	@echo "Paper targets (configs/campaign/<paper>.yaml):"
	@$(BIN)/rfbench-campaign --list 2>/dev/null | sed 's/^/  /' || echo "  (make install first)"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(STAMP)  ## the virtualenv .venv with rfbench and its test tools

run: $(STAMP)  ## the default experiment (Gaussian RFF, M = 2d, spambase, 10 trials)
	$(BIN)/rfbench $(ARGS)

test: $(STAMP)  ## lint, then the test suite
	$(BIN)/ruff check rfbench tests benchmarks hydra_plugins
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=25 $(PYTEST_ARGS)

lint: $(STAMP)  ## ruff, configured in pyproject.toml
	$(BIN)/ruff check rfbench tests benchmarks hydra_plugins

bench: $(STAMP)  ## engine benchmark vs scikit-learn and bare BLAS -> results/bench/bench.csv + Markdown table
	$(BIN)/python benchmarks/bench.py $(ARGS)
	$(BIN)/python -m benchmarks.structured_maps $(STRUCTURED_ARGS)  # SORF, Fastfood vs dense and peers -> results/bench/structured.csv

sweep: $(STAMP)  ## example sweep over M, aggregated into one CSV and figures
	$(BIN)/rfbench -m experiment.name=sweep_m experiment.results_dir=$(RESULTS) feature_map.m_over_d=1,2,4,8 $(ARGS)
	$(BIN)/rfbench-aggregate $(RESULTS)/sweep_m

report: $(STAMP)  ## results/REPORT.md: every paper beside its published values, verdicts counted
	$(BIN)/python -m rfbench.report.project --results $(RESULTS)

verify: $(STAMP)  ## recompute trial 0 of a sample of every paper's runs and jobs -> results/verify.csv (VERIFY_SECONDS=240)
	$(BIN)/python -m rfbench.engine.verify $(RESULTS) --max-seconds $(or $(VERIFY_SECONDS),240) --out $(RESULTS)/verify.csv

all: $(PAPERS) report  ## every paper's campaign, then the project report

atlas: $(STAMP)  ## every random feature map on six datasets: error, accuracy, time, memory -> results/atlas/
	$(CAMPAIGN) atlas atlas $(if $(ARGS),-- $(ARGS))

$(PAPERS): $(STAMP)
	$(CAMPAIGN) $@ $@ $(if $(ARGS),-- $(ARGS))

# <paper>-<target>: that target of the paper's campaign (make li-fig7-more: target fig7_more).
define paper_rule
$(1)-%: $$(STAMP)
	$$(CAMPAIGN) $(1) $$(subst -,_,$$*) $$(if $$(ARGS),-- $$(ARGS))
endef
$(foreach paper,$(CAMPAIGNS),$(eval $(call paper_rule,$(paper))))

clean-results:  ## remove what git does not track under results/ (scratch runs, logs, locks)
	git clean -fdx -- $(RESULTS)
