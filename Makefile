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

# OpenBLAS's kernels for every target: the records' (Haswell), not the ones it would pick for this CPU,
# whose other summation order moves the QMC adaptive sequences (rfbench/blas_pin.py).
export OPENBLAS_CORETYPE ?= Haswell

ARGS    ?=
RESULTS ?= results

.PHONY: install run test lint bench sweep clean-results askrff askrff-fig1 askrff-fig2 askrff-fig3 askrff-table1 \
        askrff-equal-width tutorial report rr rr-table1 rr-cpu_act rr-census_house rr-a9a rr-kddcup99 \
        li li-more li-fig1 li-fig2 li-fig3 li-fig4 li-tables li-table1 li-table2 li-table3 li-tables-minmax li-fig6 li-fig7 li-fig7-more \
        li-fig7-k512 li-fig10

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
# RBF at the M whose 2M columns match Table 1's Asy (8M, 6M for Sinh) and Sym (4M) at M = 2d.
ASKRFF_EQUAL_WIDTH_M ?= 8,6,4

askrff: askrff-fig1 askrff-fig2 askrff-fig3 askrff-table1 askrff-equal-width

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

askrff-equal-width: askrff-table1  ## Table 1 at equal numbers of feature columns (not in the paper)
	$(SWEEP) experiment=askrff_accuracy dataset=$(ASKRFF_DATASETS) kernel=gaussian feature_map=rff \
	  feature_map.m_over_d=$(ASKRFF_EQUAL_WIDTH_M)
	$(ASKRFF_REPORT) equal_width

# --- The Bochner tutorial's demo: results/tutorial/ ------------------------------------------
tutorial: $(STAMP)  ## the tutorial's 1-D kernel estimate from K random features, error vs K
	$(BIN)/python -m rfbench.reports.tutorial --results $(RESULTS)

# --- Li (KDD 2017), linearized GMM kernels and NRFF: results/li/<target>/ -----------------
# Figs 1-4: the variance theorems with simulation points (no data). li-tables: exact kernel SVMs
# (linear, Li's RBF exp(-gamma (1 - rho)) over his 58 gammas, GMM), each selected on the test grid
# (Li's protocol) and by 5-fold CV beside it; resumable (one trial per run).
# The report (rfbench/reports/li.py) compares with rfbench/reports/published/li.csv.
LI_REPORT    = $(BIN)/python -m rfbench.reports.li --results $(RESULTS)
# LI_DATASETS: GMM and linear, test-grid selection. LI_CV_DATASETS: the same with 5-fold CV beside it
# (not Shuttle500: a class with one training row allows no stratified 5-fold). LI_RBF_DATASETS: RBF
# over Li's 58 gammas x 12 C on all but Magic (LI_RBF_CV_DATASETS: not Shuttle500, nor Letter: its
# 58 x 12 test grid alone takes 67 CPU-min). LI_RBF_SHORT_DATASETS: RBF on Magic, test grid only and C up
# to 2^10 (LI_RBF_SHORT_C): there one libsvm fit at larger C takes minutes (gamma 7: 9 s at C = 2^10,
# 492 s at 2^16), so the full grid, or CV, would take days (README, Li: the measured costs).
# li-tables and li-fig7 run their sweeps as sub-targets (LI_TABLES_PARTS; li-fig7 in two groups, below), LI_JOBS
# at a time (make -j), each one job at a time on one core, listed longest first and datasets the
# costliest first: a target's longest run then overlaps the others, instead of idling a core at the
# end of its sweep as one sweep after another would (li-tables' Letter RBF, one job, is a third of
# its CPU time). The other li targets run each sweep's jobs in parallel (LAUNCHER=joblib).
LI_JOBS ?= 2
LI_PART_SWEEP = $(BIN)/rfbench -m hydra/launcher=basic experiment.blas_threads=1 experiment.results_dir=$(RESULTS) $(ARGS)
LI_SMALL        := satimage_li,musk_li,robot_navigation_li,spambase_li,car_li,splice_li,ctg_li,page_blocks_li,thyroid_li,imageseg_li,vowel_li
LI_DATASETS    ?= letter_li,magic_li,skin10k_li,$(LI_SMALL),shuttle500_li
LI_CV_DATASETS ?= letter_li,magic_li,skin10k_li,$(LI_SMALL)
LI_RBF_DATASETS ?= letter_li,skin10k_li,$(LI_SMALL),shuttle500_li
LI_RBF_CV_DATASETS ?= skin10k_li,$(LI_SMALL)
LI_RBF_SHORT_DATASETS ?= magic_li
LI_RBF_SHORT_C ?= [-6,-4,-2,0,2,4,6,8,10]
LI_SVM       = $(LI_PART_SWEEP) experiment=li_kernel_svm kernel=linear feature_map=identity classifier=svc_named
LI_GMM_LINEAR := classifier.metric=gmm,linear
# LI_TABLE (a comma list; empty: no restriction) keeps a part's datasets to those of one table (li-table<n>).
comma := ,
empty :=
space := $(empty) $(empty)
li_words = $(subst $(comma),$(space),$(1))
li_in_table = $(if $(LI_TABLE),$(subst $(space),$(comma),$(strip $(filter $(call li_words,$(LI_TABLE)),$(call li_words,$(1))))),$(1))
# $(call li_svm_on,DATASETS,ARGS): the SVM sweep over DATASETS (those in LI_TABLE), or a note when none is
li_svm_on = $(if $(call li_in_table,$(1)),$(LI_SVM) dataset=$(call li_in_table,$(1)) $(2),@echo "$@: no dataset of LI_TABLE=$(LI_TABLE)")

# li-fig7 / li-fig10: LibLinear on GCWS (b-bit codes, sparse: solver 1) and NRFF features against C,
# every C scored on the test set (Li's protocol), with the linear baseline on the data; Li averages
# 10 repetitions, and experiment=li_hashing runs his 10 (ARGS=experiment.trials=2 for a quick look). C here is
# LibLinear's on features of unit-norm rows (GCWS: k nonzeros of 1/sqrt(k)), so Li's C is ours / k.
# NRFF's best C lies higher than GCWS's (ijcnn1: at 2^12 for k <= 256): its grid reaches 2^16.
LI_HASH_ARGS = experiment=li_hashing classifier=liblinear classifier.selection=test_grid
LI_HASH      = $(SWEEP) $(LI_HASH_ARGS)
LI_HASH_C   ?= [-2,0,2,4,6,8,10,12]
LI_NRFF_C   ?= [-2,0,2,4,6,8,10,12,14,16]
# Li's k: 16..256, 1024 and 4096 (his panels; k = 512 is ours: li-fig7-more, not run by make li).
LI_FIG7_K   ?= 1024,256,128,64,32,16
# GCWS on Letter, k = 16..1024 at b = 1, 2, 4, 5: all b = 1 codes and those of 2^b k <= 512 columns go
# to the exact Newton solver (densified, solved on their row space: (2^b - 1) k + 1 columns; 11x
# faster than -s 1 at b = 1, k = 256, 3x at k = 1024), the wider b = 2, 4, 5 codes to LibLinear -s 1
# on the sparse codes (as fast as Newton there, faster above). Same problem, same C grid.
LI_FIG7      = $(LI_PART_SWEEP) $(LI_HASH_ARGS) dataset=letter_li
LI_FIG7_GCWS = $(LI_FIG7) kernel=gmm 'classifier.log2_C=$(LI_HASH_C)'
# $(call li_fig7_nrff,GAMMAS,KS): NRFF on Letter over those gammas and k
li_fig7_nrff = $(LI_FIG7) kernel=cosine_rbf kernel.gamma=$(1) feature_map.n_components=$(2) 'classifier.log2_C=$(LI_NRFF_C)'
LI_FIG7_NARROW_K2 ?= 16,32,64,128
LI_FIG7_WIDE_K2   ?= 1024,256
LI_FIG7_NARROW_K4 ?= 16,32
LI_FIG7_WIDE_K4   ?= 1024,256,128,64
LI_FIG7_NARROW_K5 ?= 16
LI_FIG7_WIDE_K5   ?= 1024,256,128,64,32
LI_FIG7_GAMMA ?= 11
# NRFF at its best gamma per k (Li's caption): the gamma of Li's exact RBF on Letter (11) at every k,
# LI_FIG7_NRFF_GAMMAS beside it at k <= 256 (and 512), where one trial costs seconds, and at k = 1024 (a minute
# per trial and gamma) LI_FIG7_NRFF_1024_GAMMAS, around the best gamma of k = 512 (1) and above it.
LI_FIG7_NRFF_GAMMAS ?= 0.0625,0.125,0.25,0.5,1,2,4
LI_FIG7_NRFF_K ?= 256,128,64,32,16
# k <= 64 do best at the smallest of those gammas: smaller ones there (a second or two per trial).
LI_FIG7_NRFF_SMALL_GAMMAS ?= 0.015625,0.03125
LI_FIG7_NRFF_SMALL_K ?= 64,32,16
LI_FIG7_NRFF_1024_GAMMAS ?= 1,2,4
LI_FIG7_NRFF_1024_MORE_GAMMAS ?= 0.5
# Li's right panels end at k = 4096: there one trial costs 7 to 12 min of CPU (GCWS b = 4 to 1) and 18 (NRFF)
# (README, Li), so LI_FIG7_4096_TRIALS of Li's 10 (the report's trials column says how many each k has),
# and make li runs GCWS there at b = 5 only (Li's b = 8), li-fig7-more at LI_FIG7_4096_MORE_B.
LI_FIG7_4096_TRIALS ?= 2
LI_FIG7_4096_MORE_B ?= 4,2,1
LI_FIG7_4096 = $(LI_FIG7) feature_map.n_components=4096 experiment.trials=$(LI_FIG7_4096_TRIALS)
LI_FIG10_K  ?= 1024,512,256,128
LI_FIG10_GAMMA ?= 0.0625,0.125,0.25,0.5,1,2,4,16

# make li: the paper's figures and tables within 6 h on 2 cores (README, Li: Times). li-more: our runs
# beyond them (li-tables-minmax's preprocessing study, li-fig7-more's extra points), committed, so the
# reports show them; a report made by make li alone says where they are missing.
li: li-fig1 li-fig2 li-fig3 li-fig4 li-tables li-fig6 li-fig7 li-fig10
li-more: li-tables-minmax li-fig7-more
li li-more li-tables-minmax li-fig10: LAUNCHER = joblib

li-fig1 li-fig2 li-fig3 li-fig4: $(STAMP)
	$(LI_REPORT) $(@:li-%=%)

LI_TABLES_PARTS = li-tables-rbf li-tables-svm-cv li-tables-rbf-cv li-tables-rbf-short li-tables-svm
.PHONY: $(LI_TABLES_PARTS)

li-tables: $(STAMP)
	$(MAKE) --no-print-directory -j$(LI_JOBS) $(LI_TABLES_PARTS)
	$(LI_REPORT) tables

li-tables-svm: $(STAMP)
	$(call li_svm_on,$(LI_DATASETS),classifier.selection=test_grid $(LI_GMM_LINEAR))
li-tables-svm-cv: $(STAMP)
	$(call li_svm_on,$(LI_CV_DATASETS),classifier.selection=cv $(LI_GMM_LINEAR))
li-tables-rbf: $(STAMP)
	$(call li_svm_on,$(LI_RBF_DATASETS),classifier.selection=test_grid classifier.metric=cosine_rbf)
li-tables-rbf-cv: $(STAMP)
	$(call li_svm_on,$(LI_RBF_CV_DATASETS),classifier.selection=cv classifier.metric=cosine_rbf)
li-tables-rbf-short: $(STAMP)
	$(call li_svm_on,$(LI_RBF_SHORT_DATASETS),classifier.selection=test_grid classifier.metric=cosine_rbf \
	  'classifier.log2_C=$(LI_RBF_SHORT_C)')

# li-table1, li-table2, li-table3: li-tables on one table's datasets (LI_TABLE<n>; Table 3's MNIST
# variants are not in the mirror, so li-table3 trains nothing), then the one report of all three.
LI_TABLE1 := magic_li,skin10k_li,$(LI_SMALL),shuttle500_li
LI_TABLE2 := letter_li
LI_TABLE3 := none
li-table1 li-table2 li-table3: li-table%: $(STAMP)
	$(MAKE) --no-print-directory li-tables LI_TABLE=$(LI_TABLE$*)

# li-tables-minmax: an investigation beside li-tables, whose unit rows stay the primary reading of
# Li: the same SVMs on dataset.scale=minmax_unit_rows (each feature to [0, 1] first, as LIBSVM's
# guide advises, then unit rows), test-grid selection, in results/li/kernel_svm_minmax/ (its own
# tree: Fig. 6 reads li-tables' runs only). No RBF on Magic (its cost: 18 min on unit rows at C <= 2^10).
LI_MINMAX_DATASETS ?= ctg_li,vowel_li,satimage_li,imageseg_li,magic_li
LI_MINMAX_RBF_DATASETS ?= ctg_li,vowel_li,satimage_li,imageseg_li
LI_MINMAX    = $(SWEEP) experiment=li_kernel_svm experiment.name=li/kernel_svm_minmax ++dataset.scale=minmax_unit_rows \
	  kernel=linear feature_map=identity classifier=svc_named classifier.selection=test_grid

li-tables-minmax: $(STAMP)
	$(LI_MINMAX) dataset=$(LI_MINMAX_DATASETS) classifier.metric=gmm,linear
	$(LI_MINMAX) dataset=$(LI_MINMAX_RBF_DATASETS) classifier.metric=cosine_rbf
	$(LI_REPORT) tables

li-fig6: $(STAMP)  ## accuracy vs C from li-tables' grid.csv files (no training)
	$(LI_REPORT) fig6

# li-fig7 runs its parts in two groups, one after the other, each LI_JOBS at a time and listed longest
# first: li-fig7-main, the figure's headline (GCWS at b = 5, the whole index as Li's b = 8, at every k;
# NRFF over its gammas), then li-fig7-lowb (GCWS at b = 1, 2, 4; NRFF at Li's gamma 11; linear).
# Each group was measured from nothing (README, Li: Times), so li-fig7 takes their sum. Within a group
# LibLinear's parts (sparse wide codes) come first: beside li-fig7-nrff-gammas' many small dense Newton
# runs, LibLinear's runs took 1.9-2.8x their earlier records, beside another LibLinear part 0.8-1.3x.
LI_FIG7_NRFF_1024_PARTS = $(addprefix li-fig7-nrff-1024-g,$(call li_words,$(LI_FIG7_NRFF_1024_GAMMAS)))
LI_FIG7_MAIN_PARTS = li-fig7-b5-wide li-fig7-4096-gcws li-fig7-nrff-gammas $(LI_FIG7_NRFF_1024_PARTS) \
	li-fig7-b5-narrow
LI_FIG7_LOWB_PARTS = li-fig7-b2-wide li-fig7-b4-wide li-fig7-4096-nrff li-fig7-b1 li-fig7-nrff \
	li-fig7-b2-narrow li-fig7-b4-narrow li-fig7-linear
.PHONY: li-fig7-main li-fig7-lowb $(LI_FIG7_MAIN_PARTS) $(LI_FIG7_LOWB_PARTS)

li-fig7: $(STAMP)  ## Letter: GCWS (b = 1, 2, 4, 5: letter's 32 indices, all bits as Li's b = 8) vs NRFF at its best gamma
	$(MAKE) --no-print-directory li-fig7-main li-fig7-lowb
	$(LI_REPORT) fig7

li-fig7-main: $(STAMP)
	$(MAKE) --no-print-directory -j$(LI_JOBS) $(LI_FIG7_MAIN_PARTS)
li-fig7-lowb: $(STAMP)
	$(MAKE) --no-print-directory -j$(LI_JOBS) $(LI_FIG7_LOWB_PARTS)

li-fig7-b1: $(STAMP)
	$(LI_FIG7_GCWS) feature_map.b=1 feature_map.n_components=$(LI_FIG7_K) classifier.solver=newton
li-fig7-b2-wide li-fig7-b4-wide li-fig7-b5-wide: li-fig7-b%-wide: $(STAMP)
	$(LI_FIG7_GCWS) feature_map.b=$* feature_map.n_components=$(LI_FIG7_WIDE_K$*) classifier.solver=1
li-fig7-b2-narrow li-fig7-b4-narrow li-fig7-b5-narrow: li-fig7-b%-narrow: $(STAMP)
	$(LI_FIG7_GCWS) feature_map.b=$* feature_map.n_components=$(LI_FIG7_NARROW_K$*) classifier.solver=newton
li-fig7-nrff: $(STAMP)
	$(call li_fig7_nrff,$(LI_FIG7_GAMMA),$(LI_FIG7_K))
li-fig7-nrff-gammas: $(STAMP)
	$(call li_fig7_nrff,$(LI_FIG7_NRFF_GAMMAS),$(LI_FIG7_NRFF_K))
	$(call li_fig7_nrff,$(LI_FIG7_NRFF_SMALL_GAMMAS),$(LI_FIG7_NRFF_SMALL_K))
$(LI_FIG7_NRFF_1024_PARTS): li-fig7-nrff-1024-g%: $(STAMP)
	$(call li_fig7_nrff,$*,1024)
li-fig7-4096-gcws: $(STAMP)
	$(LI_FIG7_4096) kernel=gmm 'classifier.log2_C=$(LI_HASH_C)' feature_map.b=5 classifier.solver=1
li-fig7-4096-nrff: $(STAMP)
	$(LI_FIG7_4096) kernel=cosine_rbf kernel.gamma=$(LI_FIG7_GAMMA) 'classifier.log2_C=$(LI_NRFF_C)'
li-fig7-linear: $(STAMP)
	$(LI_FIG7) kernel=linear feature_map=identity 'classifier.log2_C=$(LI_HASH_C)'

# li-fig7-more: li-fig7's runs beyond make li's 6 h budget (their runs are committed, so the report shows
# them): k = 512, between Li's panels (not in his Fig. 7), with every method of the figure (about 80
# CPU-min); GCWS at b = 1, 2, 4 for k = 4096 (b = 5 there is make li's; 55-90 CPU-min); NRFF at
# gamma 1/2 for k = 1024 (below gamma 1, 2 and 4 there: about 12 CPU-min).
li-fig7-more: li-fig7-k512 $(STAMP)
	$(LI_FIG7_4096) kernel=gmm 'classifier.log2_C=$(LI_HASH_C)' feature_map.b=$(LI_FIG7_4096_MORE_B) classifier.solver=1
	$(call li_fig7_nrff,$(LI_FIG7_NRFF_1024_MORE_GAMMAS),1024)
	$(LI_REPORT) fig7
li-fig7-k512: $(STAMP)
	$(LI_FIG7_GCWS) feature_map.b=1 feature_map.n_components=512 classifier.solver=newton
	$(LI_FIG7_GCWS) feature_map.b=5,4,2 feature_map.n_components=512 classifier.solver=1
	$(call li_fig7_nrff,$(LI_FIG7_NRFF_GAMMAS),512)
	$(call li_fig7_nrff,$(LI_FIG7_GAMMA),512)
	$(LI_REPORT) fig7

li-fig10: $(STAMP)  ## ijcnn1: GCWS b = 6 (its 44 indices: Li's b = 8 keeps them all too) vs NRFF over gammas
	$(LI_HASH) dataset=ijcnn1_li kernel=gmm feature_map.n_components=$(LI_FIG10_K) feature_map.b=6 classifier.solver=1 \
	  'classifier.log2_C=$(LI_HASH_C)'
	$(LI_HASH) dataset=ijcnn1_li kernel=cosine_rbf kernel.gamma=$(LI_FIG10_GAMMA) feature_map.n_components=$(LI_FIG10_K) \
	  'classifier.log2_C=$(LI_NRFF_C)'
	$(LI_HASH) dataset=ijcnn1_li kernel=linear feature_map=identity 'classifier.log2_C=$(LI_HASH_C)'
	$(LI_REPORT) fig10

# --- The project's report: results/REPORT.md from every paper's committed results ---------------
report: $(STAMP)  ## every paper beside its published values, verdict counts per paper (REPORT.png)
	$(BIN)/python -m rfbench.reports.project --results $(RESULTS)

# --- Rahimi & Recht (2007) Table 1: results/rr/ ---------------------------------------------
# Ridge (lambda by 5-fold CV) on random Fourier features (D frequencies, sqrt(2/D) cos(w'x + b))
# and on random binning features (P grids), D and P as in Table 1, per row (dataset). The
# kernel bandwidth is swept (RR_SIGMA_*) and the report picks each cell's sigma by its CV score.
# One target per row, so each row's wall time can be measured; resumable like every sweep.
# Binning uses the eigen solver: each sigma grid keeps the occupied bins below its 8192 columns.
RR_REPORT    = $(BIN)/python -m rfbench.reports.rr --results $(RESULTS)
RR_FOURIER   = $(SWEEP) experiment=rr_table1 classifier=ridge kernel=gaussian feature_map=rff \
               feature_map.variant=cos_offset feature_map.m_over_d=null
RR_BINNING   = $(SWEEP) experiment=rr_table1 classifier=ridge classifier.solver=eigen \
               kernel=laplacian feature_map=binning
RR_SIGMA_RFF_cpu_act      ?= 0.25,0.5,1,2,4
RR_SIGMA_BIN_cpu_act      ?= 4,8,16
RR_SIGMA_RFF_census_house ?= 0.25,0.5,1,2
RR_SIGMA_BIN_census_house ?= 1,2,4
RR_SIGMA_RFF_a9a          ?= 2,4,8,16,32
RR_SIGMA_BIN_a9a          ?= 12,16,32,64
RR_SIGMA_RFF_kddcup99     ?= 0.5,1,2,4,8
RR_SIGMA_BIN_kddcup99     ?= 2,4,8,16

rr: rr-table1

rr-table1: rr-cpu_act rr-census_house rr-a9a rr-kddcup99
	$(RR_REPORT) table1

rr-cpu_act: $(STAMP)  ## CPU: D = 300, P = 350
	$(RR_FOURIER) dataset=cpu_act feature_map.n_components=300 kernel.sigma=$(RR_SIGMA_RFF_cpu_act)
	$(RR_BINNING) dataset=cpu_act feature_map.n_components=350 kernel.sigma=$(RR_SIGMA_BIN_cpu_act)

rr-census_house: $(STAMP)  ## Census (census_house stands in): D = 500, P = 30
	$(RR_FOURIER) dataset=census_house feature_map.n_components=500 kernel.sigma=$(RR_SIGMA_RFF_census_house)
	$(RR_BINNING) dataset=census_house feature_map.n_components=30 kernel.sigma=$(RR_SIGMA_BIN_census_house)

rr-a9a: $(STAMP)  ## Adult: D = 500, P = 30
	$(RR_FOURIER) dataset=a9a feature_map.n_components=500 kernel.sigma=$(RR_SIGMA_RFF_a9a)
	$(RR_BINNING) dataset=a9a feature_map.n_components=30 kernel.sigma=$(RR_SIGMA_BIN_a9a)

rr-kddcup99: $(STAMP)  ## KDDCUP99 (its 10% subset): D = 50, P = 10
	$(RR_FOURIER) dataset=kddcup99 feature_map.n_components=50 kernel.sigma=$(RR_SIGMA_RFF_kddcup99)
	$(RR_BINNING) dataset=kddcup99 feature_map.n_components=10 kernel.sigma=$(RR_SIGMA_BIN_kddcup99)

# --- QMC feature maps (Avron et al. 2016): results/qmc/<target>/ ---------------------------------
# rfbench/reports/qmc.py computes the trials itself (one CSV per trial with its seed, resumable:
# rerun the target after an interruption) and compares with rfbench/reports/published/qmc.csv.
# qmc-fig2 and qmc-fig3 share the Gram-error trials (results/qmc/gram/): the second is a report.
.PHONY: qmc qmc-fig2 qmc-fig3 qmc-fig4 qmc-fig5 qmc-fig6 qmc-fig7 qmc-table1 qmc-table2 qmc-table3
QMC_REPORT   = nice $(BIN)/python -m rfbench.reports.qmc --results $(RESULTS)
QMC_TRIALS  ?= 10
QMC_GRAM    ?= uspst cpu census mnist
QMC_TABLE1  ?= cpu_act_qmc house_16h
QMC_TABLE3  ?= cpu_act_qmc house_16h
QMC_MAX_S   ?= 800

# qmc-table3 before qmc-table2: Table 2's census rows read the sequences Table 3 learns.
qmc: qmc-fig2 qmc-fig3 qmc-fig4 qmc-fig5 qmc-fig6 qmc-fig7 qmc-table1 qmc-table3 qmc-table2

qmc-fig2: $(STAMP)  ## relative Gram error (Frobenius, spectral) vs s, per sequence
	$(QMC_REPORT) gram --datasets $(QMC_GRAM) --trials $(QMC_TRIALS)
	$(QMC_REPORT) fig2

qmc-fig3: qmc-fig2  ## scrambled / plain Gram-error ratio (same trials as qmc-fig2)
	$(QMC_REPORT) fig3

qmc-table1: $(STAMP)  ## approximate kernel ridge regression error per sequence and s
	$(QMC_REPORT) table1 --datasets $(QMC_TABLE1) --trials $(QMC_TRIALS)

qmc-table2: $(STAMP)  ## box discrepancy of Halton and the adaptive sequences, cpu (Table 1's sigma)
	nice $(BIN)/python -m rfbench.reports.qmc_table2 --results $(RESULTS)

qmc-fig4: qmc-fig2  ## D^{box b/2} per sequence vs s (cpu, census substitute), Gram error vs D (reads qmc-fig2's trials)
	nice $(BIN)/python -m rfbench.reports.qmc_fig4 --results $(RESULTS) --trials $(QMC_TRIALS)

qmc-fig5: $(STAMP)  ## 2-D integration error of MC, Halton and global adaptive sequences (box b, b/2)
	nice $(BIN)/python -m rfbench.reports.qmc_fig5 --results $(RESULTS)

qmc-fig6: $(STAMP)  ## Gram metrics along the global sequence's CG iterations (cpu, housing; s = 100)
	nice $(BIN)/python -m rfbench.reports.qmc_fig67 fig6 --results $(RESULTS)

qmc-fig7: qmc-fig6  ## Gram metrics of the greedy sequence vs its number of points (cpu, housing)
	nice $(BIN)/python -m rfbench.reports.qmc_fig67 fig7 --results $(RESULTS)

qmc-table3: $(STAMP)  ## ridge regression error of the adaptive sequences (cpu; census substitute)
	nice $(BIN)/python -m rfbench.reports.qmc_table3 --results $(RESULTS) --datasets $(QMC_TABLE3) --max-s $(QMC_MAX_S)

clean-results:
	find $(RESULTS) -mindepth 1 ! -name README.md -exec rm -rf {} +
