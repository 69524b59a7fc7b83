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

ARGS    ?=
RESULTS ?= results

.PHONY: install run test lint bench sweep clean-results askrff askrff-fig1 askrff-fig2 askrff-fig3 askrff-table1 tutorial

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(STAMP)

run: $(STAMP)  ## the default experiment (Gaussian RFF, M = 2d, spambase, 10 trials)
	$(BIN)/rfbench $(ARGS)

bench: $(STAMP)  ## engine benchmark vs scikit-learn and bare BLAS -> results/bench/bench.csv + Markdown table
	$(BIN)/python benchmarks/bench.py $(ARGS)

sweep: $(STAMP)  ## example sweep over M, aggregated into one CSV and figures
	$(BIN)/rfbench -m experiment.name=sweep_m experiment.results_dir=$(RESULTS) feature_map.m_over_d=1,2,4,8 $(ARGS)
	$(BIN)/rfbench-aggregate $(RESULTS)/sweep_m

test: $(STAMP)  ## lint, then the test suite
	$(BIN)/ruff check rfbench tests benchmarks
	$(BIN)/pytest -q $(PYTEST_ARGS)

lint: $(STAMP)  ## ruff, configured in pyproject.toml
	$(BIN)/ruff check rfbench tests benchmarks

# --- AsK-RFF (He et al. 2022) reproductions: results/askrff/<target>/ -------------------
# Table 1 and Fig. 3 sweep one tree of runs (results/askrff/accuracy/runs): the points they
# share (Asy at M = 2d, Linear) are computed by whichever target runs first.
# LAUNCHER=joblib runs the sweep's jobs in parallel (see README, "Launchers").
# RESULTS moves the output tree; ARGS adds overrides to every sweep (e.g. experiment.trials=2).
# The reports (rfbench/reports/askrff.py) compare with rfbench/reports/published/askrff.csv.
LAUNCHER        ?= basic
SWEEP            = $(BIN)/rfbench -m hydra/launcher=$(LAUNCHER) experiment.results_dir=$(RESULTS) $(ARGS)
ASKRFF_REPORT    = $(BIN)/python -m rfbench.reports.askrff --results $(RESULTS)
ASKRFF_DATASETS ?= spambase,letter,ijcnn1,cod_rna_stratified
ASKRFF_KERNELS  := shift_gaussian,sinh_gaussian,cosh_gaussian
ASKRFF_FIG2_M   ?= 2,4,8,16,32,64,128,256,512,1024
ASKRFF_FIG3_M   ?= 1,2,4

askrff: askrff-fig1 askrff-fig2 askrff-fig3 askrff-table1

askrff-fig1: $(STAMP)
	$(ASKRFF_REPORT) fig1

askrff-fig2: $(STAMP)
	$(SWEEP) experiment=askrff_fig2 dataset=$(ASKRFF_DATASETS) kernel=$(ASKRFF_KERNELS) \
	  feature_map=askrff classifier=none feature_map.m_over_d=$(ASKRFF_FIG2_M)
	$(ASKRFF_REPORT) fig2

askrff-fig3: $(STAMP)
	$(SWEEP) experiment=askrff_accuracy dataset=$(ASKRFF_DATASETS) kernel=$(ASKRFF_KERNELS) \
	  feature_map=askrff feature_map.m_over_d=$(ASKRFF_FIG3_M)
	$(SWEEP) experiment=askrff_accuracy dataset=$(ASKRFF_DATASETS) kernel=linear feature_map=identity
	$(ASKRFF_REPORT) fig3

askrff-table1: $(STAMP)
	$(SWEEP) experiment=askrff_accuracy dataset=$(ASKRFF_DATASETS) kernel=$(ASKRFF_KERNELS) \
	  feature_map=askrff feature_map.part=asymmetric,symmetric
	$(SWEEP) experiment=askrff_accuracy dataset=$(ASKRFF_DATASETS) kernel=gaussian feature_map=rff
	$(SWEEP) experiment=askrff_accuracy dataset=$(ASKRFF_DATASETS) kernel=linear feature_map=identity
	$(ASKRFF_REPORT) table1

# --- The Bochner tutorial's demo: results/tutorial/ ------------------------------------------
tutorial: $(STAMP)  ## the tutorial's 1-D kernel estimate from K random features, error vs K
	$(BIN)/python -m rfbench.reports.tutorial --results $(RESULTS)

# --- QMC feature maps (Avron et al. 2016): results/qmc/<target>/ ---------------------------------
# rfbench/reports/qmc.py computes the trials itself (one CSV per trial with its seed, resumable:
# rerun the target after an interruption) and compares with rfbench/reports/published/qmc.csv.
# qmc-fig2 and qmc-fig3 share the Gram-error trials (results/qmc/gram/): the second is a report.
.PHONY: qmc qmc-fig2 qmc-fig3 qmc-table1 qmc-table2
QMC_REPORT   = nice $(BIN)/python -m rfbench.reports.qmc --results $(RESULTS)
QMC_TRIALS  ?= 10
QMC_GRAM    ?= uspst cpu census mnist
QMC_TABLE1  ?= cpu_act_qmc house_16h

qmc: qmc-fig2 qmc-fig3 qmc-table1 qmc-table2

qmc-fig2: $(STAMP)  ## relative Gram error (Frobenius, spectral) vs s, per sequence
	$(QMC_REPORT) gram --datasets $(QMC_GRAM) --trials $(QMC_TRIALS)
	$(QMC_REPORT) fig2

qmc-fig3: qmc-fig2  ## scrambled / plain Gram-error ratio (same trials as qmc-fig2)
	$(QMC_REPORT) fig3

qmc-table1: $(STAMP)  ## approximate kernel ridge regression error per sequence and s
	$(QMC_REPORT) table1 --datasets $(QMC_TABLE1) --trials $(QMC_TRIALS)

qmc-table2: $(STAMP)  ## box discrepancy of Halton and the adaptive sequences, cpu (Table 1's sigma)
	nice $(BIN)/python -m rfbench.reports.qmc_table2 --results $(RESULTS)

clean-results:
	find $(RESULTS) -mindepth 1 ! -name README.md -exec rm -rf {} +
