# Two commands do everything on a fresh machine: `make demo` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-fast bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# CPU-only torch first: a bare `torch` requirement would pull GBs of CUDA wheels.
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/rlviz demo

test: $(STAMP)
	# The browser test drives Debian's chromium (never `playwright install`, which downloads a browser).
	test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium)
	$(PY) -m pytest

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow and not browser and not notebook"

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) rlviz-out .pytest_cache
