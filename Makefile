# 掼蛋杯 — two commands do everything on a fresh machine:
#   make run    set up, migrate, load the demo, serve http://127.0.0.1:8000
#   make test   set up and run every test (set DATABASE_URL to test against PostgreSQL)
#   make bench  the live pages under load: gunicorn + PostgreSQL + Redis on this machine
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: setup run serve test bench lint messages check-compose clean

$(STAMP): requirements.txt requirements-dev.txt
	@if [ -x $(PY) ] && ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		echo "Removing $(VENV): its Python is older than 3.12"; rm -rf $(VENV); fi
	@if [ ! -x $(PY) ]; then PYBIN=$$(scripts/find-python) && echo "Creating $(VENV) with $$PYBIN" && "$$PYBIN" -m venv $(VENV); fi
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@rm -f $(VENV)/.installed-*; touch $@

setup: $(STAMP)
	@mkdir -p var

run: setup
	@scripts/ensure-cjk-font
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 $(PY) manage.py load_demo
	@DEBUG=1 $(PY) manage.py ensure_organiser
	@echo "Serving on http://$(HOST):$(PORT)/  (Ctrl-C to stop; the data stays in var/)"
	DEBUG=1 $(PY) manage.py runserver $(HOST):$(PORT)

# Tests run in one process per CPU core (pytest-xdist; each has its own test database).
# PYTEST_WORKERS=0 runs them in this process, e.g. to use a debugger.
PYTEST_WORKERS ?= auto

test: setup
	$(PY) -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# Not part of `make test` or CI: it takes a few minutes and needs PostgreSQL, Redis and wrk.
bench: setup
	@scripts/ensure-wrk
	$(PY) bench/live.py

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

messages: setup
	DEBUG=1 $(PY) manage.py makemessages -l en --ignore=.venv --ignore=var --ignore="*/tests/*" \
		--ignore=tests --ignore=bench --ignore="templates/pdf/*"
	DEBUG=1 $(PY) manage.py compilemessages --ignore=.venv

check-compose:
	SECRET_KEY=placeholder docker-compose -f docker-compose.yml config --quiet

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis var/staticfiles
