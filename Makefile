# rfbench: `make run` runs the default experiment, `make test` the test suite.
# Both create the virtualenv .venv on first use (a fresh machine needs only python3).
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

ARGS ?=

.PHONY: install run test sweep clean-results

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(STAMP)

run: $(STAMP)  ## the default experiment (Gaussian RFF, M = 2d, spambase, 10 trials)
	$(BIN)/rfbench $(ARGS)

sweep: $(STAMP)  ## example sweep over M, aggregated into one CSV and figures
	$(BIN)/rfbench -m experiment.name=sweep_m feature_map.m_over_d=1,2,4,8 $(ARGS)
	$(BIN)/rfbench-aggregate results/sweep_m

test: $(STAMP)
	$(BIN)/pytest -q $(PYTEST_ARGS)

clean-results:
	find results -mindepth 1 ! -name README.md -exec rm -rf {} +
