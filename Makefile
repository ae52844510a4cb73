# tracekit: the two commands are `make demo` and `make test` (see README.md).
# Both set everything up from a fresh Debian machine: system packages with
# apt-get where missing, then a virtual environment in .venv with the project.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# Run-time system libraries (WeasyPrint needs Pango) and the recorder's toolchain.
RUNTIME_DEBS := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core
RECORD_DEBS  := oclgrind liboclgrind-dev llvm-14-dev opencl-headers ocl-icd-opencl-dev g++
# Intel's offline compiler (ocloc) and ISA disassembler (iga64): machine code for the Intel targets.
ISA_DEBS     := intel-opencl-icd libigc-tools
# Only the tests need these: a real browser and the PDF tools read our reports.
TEST_DEBS    := poppler-utils chromium

DEMO_OUT ?= out/demo
DEMO_TRACE ?= sample_traces/transpose_tiled_2048.tkt
DEMO_TARGETS ?= --target powervr-g6400 --target adreno-640 --target intel-hd530

.PHONY: demo test lint setup setup-test system system-test samples bench clean

system:
	@scripts/ensure-debs.sh $(RUNTIME_DEBS) $(RECORD_DEBS) $(ISA_DEBS)

system-test:
	@scripts/ensure-debs.sh $(RUNTIME_DEBS) $(RECORD_DEBS) $(ISA_DEBS) $(TEST_DEBS)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $(STAMP)

setup: system $(STAMP)

setup-test: system-test $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check tracekit analyzers report_templates tests bench

test: setup-test lint
	$(BIN)/python -m pytest -q

demo: setup
	@mkdir -p $(DEMO_OUT)
	$(BIN)/tracekit info $(DEMO_TRACE)
	$(BIN)/tracekit analyze $(DEMO_TRACE) $(DEMO_TARGETS) --format text
	$(BIN)/tracekit analyze $(DEMO_TRACE) $(DEMO_TARGETS) --format json -o $(DEMO_OUT)/report.json
	$(BIN)/tracekit analyze $(DEMO_TRACE) $(DEMO_TARGETS) --format html -o $(DEMO_OUT)/report.html
	$(BIN)/tracekit analyze $(DEMO_TRACE) $(DEMO_TARGETS) --format pdf -o $(DEMO_OUT)/report.pdf
	@echo "demo report: $(DEMO_OUT)/report.html and $(DEMO_OUT)/report.pdf"

samples: setup
	$(BIN)/python sample_traces/record_all.py

bench: setup
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache
