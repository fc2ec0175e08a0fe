# Agent Lessons: two commands do everything.
#   make lab    set up .venv and open the lessons in JupyterLab (offline model, no key)
#   make test   set up .venv and run every test and every notebook (pytest --nbval)
# Extras: make lessons (re-execute notebooks in place), make bench (the arena), make lint.

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test lessons bench lint clean

# One implementation on every OS: lessonkit/commands.py (standard library only) creates or refreshes
# .venv when pyproject.toml is newer than the stamp, then runs JupyterLab or pytest.
$(STAMP): pyproject.toml
	$(PY) -m lessonkit setup

# JupyterLab refuses to run as root without --allow-root (containers, workshop VMs): passed only then.
lab:
	$(PY) -m lessonkit lab

# pytest exits non-zero on any failure, and with 5 when it collects nothing: both fail make.
test:
	$(PY) -m lessonkit test

lessons: $(STAMP)
	$(BIN)/python -m lessonkit.notebooks lessons/*.ipynb

bench: $(STAMP)
	$(BIN)/python -m lessonkit.arena

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
