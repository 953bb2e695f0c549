# The two set-up commands of the README:
#   make demo   create .venv, install, migrate, load the demo graphs, run the pipeline, serve
#   make test   install the test dependencies and run the whole test suite
# Both run on the embedded default (SQLite, in-process tasks) unless DATABASE_URL / REDIS_URL are set.

VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000
PYTEST_ARGS ?=

.PHONY: demo test serve lint venv

# Django 6 needs Python >= 3.12. Take the first interpreter that qualifies: python3.13,
# python3.12, pyenv's 3.12/3.13, then plain python3.
$(VENV)/.created:
	@py=""; \
	for c in python3.12 python3.13 $$HOME/.pyenv/versions/3.12*/bin/python3 \
	         $$HOME/.pyenv/versions/3.13*/bin/python3 python3; do \
	  if command -v "$$c" >/dev/null 2>&1 && \
	     "$$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
	    py="$$c"; break; fi; \
	done; \
	if [ -z "$$py" ]; then \
	  echo "error: Python 3.12 or newer is required (Django 6) and none was found." >&2; \
	  echo "       Install python3.12 (apt, brew or 'pyenv install 3.12') and run make again." >&2; \
	  exit 1; \
	fi; \
	echo "using $$py ($$($$py --version))"; \
	"$$py" -m venv $(VENV) && $(PY) -m pip install --quiet --upgrade pip && touch $@

$(VENV)/.installed: $(VENV)/.created pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	@touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

venv: $(VENV)/.installed

demo: $(VENV)/.installed
	$(PY) manage.py migrate --no-input
	$(PY) manage.py demo --url http://$(HOST)/
	$(PY) manage.py runserver $(HOST)

test: $(VENV)/.installed-test
	$(PY) -m ruff check .
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
