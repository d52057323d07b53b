# Two commands do everything on a fresh machine: `make demo` and `make test`.
# `make docs` executes the notebooks and builds the documentation site into site/ (strict).
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-fast docs site bench clean bundle

# The Explorer's front end: esbuild (from npm, js/package-lock.json) bundles rlviz/viz/static/*.js into
# rlviz/viz/static/explorer.bundle.js, which is committed and shipped: `pip install` never needs node.
JS_STAMP := js/node_modules/.installed

$(JS_STAMP): js/package.json js/package-lock.json
	# node and npm build the bundle and run the Explorer's JS unit tests (a test that cannot run fails): install when missing.
	command -v node >/dev/null && command -v npm >/dev/null || (apt-get update -qq && apt-get install -y -qq nodejs npm)
	cd js && npm ci --no-audit --no-fund
	touch $(JS_STAMP)

bundle: $(JS_STAMP)
	node js/build.mjs

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# CPU-only torch first: a bare `torch` requirement would pull GBs of CUDA wheels.
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[dev,docs]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/rlviz demo

test: $(STAMP) $(JS_STAMP)
	# The browser test drives Debian's chromium (never `playwright install`, which downloads a browser).
	test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium)
	# pytest executes every notebook into build/notebooks/ and builds the site from them into site/ (strict),
	# in tests/test_site.py: no second build here
	$(PY) -m pytest --durations=25

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow and not browser and not notebook"

docs: $(STAMP)
	$(PY) -m pytest -q -m notebook tests/test_notebooks.py
	$(MAKE) site

# The strict build alone (a warning or a broken link fails it), from the executed notebooks.
site: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) js/node_modules rlviz-out notebooks/rlviz-out .pytest_cache build site
