# The two set-up commands of the README:
#   make demo   create .venv, install, migrate, load the demo graphs, run the pipeline, serve
#   make test   install the test dependencies and run the whole test suite
#   make typecheck  mypy with django-stubs over the product code (config: pyproject.toml)
#   make mutation  the issue #18 mutations (mutation/named.py), then mutmut over the modules that
#               carry the guarantees, one at a time (mutation/run.py; MUTATION_ARGS=engine ...)
# Both run on the embedded default (SQLite, in-process tasks) unless DATABASE_URL / REDIS_URL are set.

VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000
PYTEST_ARGS ?=

.PHONY: demo test serve lint typecheck venv mutation

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

$(VENV)/.installed-mutation: $(VENV)/.installed-test pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,mutation]'
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

typecheck: $(VENV)/.installed-test
	$(PY) -m mypy

# Slow and niced (CPU only when nobody else wants it): not part of make test or CI.
mutation: $(VENV)/.installed-mutation
	$(PY) mutation/named.py; named=$$?; $(PY) mutation/run.py $(MUTATION_ARGS); \
	  status=$$?; exit $$(( named || status ))
