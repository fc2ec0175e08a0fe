# Agent Lessons: two commands do everything.
#   make lab    set up .venv and open the lessons in JupyterLab (offline model, no key)
#   make test   set up .venv and run every test and every notebook (pytest --nbval)
# Extras: make lessons (re-execute notebooks in place), make bench (the arena), make lint,
#         make site (the lessons as a static HTML site in site/).

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test lessons bench lint clean site

$(STAMP): pyproject.toml
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10+ is needed, found " + sys.version.split()[0])'
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# JupyterLab refuses to run as root without --allow-root (containers, workshop VMs): pass it only then.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP)
	$(BIN)/jupyter lab lessons/ $(ROOT_FLAG)

# pytest exits non-zero on any failure, and with 5 when it collects nothing: both fail make.
test: $(STAMP)
	$(BIN)/python -m pytest

lessons: $(STAMP)
	$(BIN)/python -m lessonkit.notebooks lessons/*.ipynb

# The static site: every lesson as HTML, views live from stored state, no CDN (npm pack, once).
site: $(STAMP)
	$(BIN)/python -m lessonkit.site lessons/*.ipynb --out site

bench: $(STAMP)
	$(BIN)/python -m lessonkit.arena

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
