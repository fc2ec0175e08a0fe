# Agent Lessons: two commands do everything.
#   make lab    set up .venv and open the lessons in JupyterLab (offline model, no key)
#   make test   set up .venv and run every test and every notebook (pytest --nbval)
# Extras: make lessons (re-execute notebooks in place), make bench (the arena), make lint,
#         make site (the lessons as a static HTML site in site/).

PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: lab test test-slow lessons bench lint clean student progress reset test-hub test-hub-here hub site

# One implementation on every OS: lessonkit/cli/commands.py (standard library only) creates or refreshes
# .venv when pyproject.toml is newer than the stamp, then runs JupyterLab or pytest.
$(STAMP): pyproject.toml
	$(PY) -m lessonkit setup

# JupyterLab refuses to run as root without --allow-root (containers, workshop VMs): passed only then.
lab:
	$(PY) -m lessonkit lab

# pytest exits non-zero on any failure, and with 5 when it collects nothing: both fail make.
test:
	$(PY) -m lessonkit test

# Every lesson run again in other settings (another backend, a cassette, a student copy, JupyterLab
# in Chromium), verify end to end, every test over half a second: marker `slow`, 16-19 minutes on
# 2 cores; CI runs it after make test.
test-slow:
	$(PY) -m lessonkit test --slow

# The English lessons re-executed in place, then the Chinese ones generated from them (lessons/zh/).
lessons: $(STAMP)
	$(BIN)/python -m lessonkit.cli.notebooks lessons/*.ipynb
	$(BIN)/python -m lessonkit.i18n build zh

# The static site: every lesson as HTML, views live from stored state, no CDN (npm pack, once).
site: $(STAMP)
	$(BIN)/python -m lessonkit.cli.site lessons/*.ipynb --out site

bench: $(STAMP)
	$(BIN)/python -m arena

lint: $(STAMP)
	$(BIN)/ruff check .

# The workshop (workshop/README.md): student notebooks in work/, the room's progress, a hub.
student: $(STAMP)
	$(BIN)/python -m lessonkit.workshop student

progress: $(STAMP)
	$(BIN)/python -m lessonkit.workshop progress

reset: $(STAMP)
	$(BIN)/python -m lessonkit.workshop reset $(LESSON)

HUB_STAMP := $(VENV)/.hub-installed
$(HUB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,hub]'
	@touch $(HUB_STAMP)

# The students' servers run as their own Unix users, so the hub's Python must be one every user can
# read: .hub/venv, made from HUB_PYTHON (a pyenv Python under /root is not), with the 'hub' extra.
HUB_PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
HUB_VENV := .hub/venv
$(HUB_VENV)/.installed: pyproject.toml
	mkdir -p .hub && chmod 755 .hub
	$(HUB_PYTHON) -m venv $(HUB_VENV)
	$(HUB_VENV)/bin/python -m pip install --quiet -e '.[hub]'
	@touch $@

# As root (the hub starts each student's server as that student's own user); tests/test_hub.py.
# A kit in a folder other users cannot reach (a clone under /root) is tested from a clone of it in /tmp
# (what is committed: the same as CI's clone).
test-hub:
	@if $(PY) -c "import os, sys; os.setgid(65534); os.setuid(65534); sys.exit(not os.access('$(CURDIR)/workshop/start-user', os.X_OK))" 2>/dev/null; then \
		$(MAKE) test-hub-here; \
	else \
		copy=$$(mktemp -d /tmp/agent-lessons-hub.XXXXXX) && chmod 755 $$copy && \
		echo "test-hub: other users cannot reach $(CURDIR); testing a copy of the kit in $$copy" && \
		git clone --quiet --no-hardlinks "$(CURDIR)" $$copy && chmod 755 $$copy && \
		$(MAKE) -C $$copy test-hub-here; status=$$?; rm -rf $$copy; exit $$status; \
	fi

test-hub-here: $(HUB_STAMP) $(HUB_VENV)/.installed
	LESSONS_HUB_TEST=1 WORKSHOP_HUB_VENV=$(CURDIR)/$(HUB_VENV) $(BIN)/python -m pytest -n 0 -m hub -s tests/test_hub.py

# JupyterHub on http://127.0.0.1:8000; homes in .hub/homes, the hub's state in .hub/state (0700).
hub: $(HUB_VENV)/.installed
	cd .hub && WORKSHOP_STATE=state $(CURDIR)/$(HUB_VENV)/bin/jupyterhub -f $(CURDIR)/workshop/jupyterhub_config.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
