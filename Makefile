# 掼蛋杯 — two commands do everything on a fresh machine:
#   make run    set up, migrate, load the demo, serve http://127.0.0.1:8000
#   make test   set up and run every test (set DATABASE_URL to test against PostgreSQL)
#   make bench  the live pages under load: gunicorn + PostgreSQL + Redis on this machine
#   make bench-big  the big day: 2,048 pairs, seven Swiss rounds, 1,024 score sheets (PostgreSQL)
#   make lock   after editing requirements*.txt: refresh the locks (UPGRADE=1 also moves the
#               packages they pull in to their newest releases)
VENV   := .venv
PY     := $(VENV)/bin/python
# Every package in .venv, and the ones they pull in, at the version and hash in the lock.
LOCKS  := requirements.lock requirements-dev.lock
STAMP  := $(VENV)/.installed-$(shell cat $(LOCKS) | cksum | cut -d' ' -f1)
PIP    := $(PY) -m pip --disable-pip-version-check
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: setup run serve test test-cache-down bench bench-big lint lock messages check-compose clean

$(STAMP): $(LOCKS)
	@if [ -x $(PY) ] && ! $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then \
		echo "Removing $(VENV): its Python is older than 3.12"; rm -rf $(VENV); fi
	@if [ ! -x $(PY) ]; then PYBIN=$$(scripts/find-python) && echo "Creating $(VENV) with $$PYBIN" && "$$PYBIN" -m venv $(VENV); fi
	$(PIP) install --quiet --require-hashes -r requirements-dev.lock
	@$(PY) scripts/venv-extras requirements-dev.lock | xargs -r $(PIP) uninstall --quiet -y
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

# The live, write and confirmation tests once more with the cache at a closed port: the cache
# is an optimisation, never a dependency (guandan_cup/cache.py). CI runs it. The modules are
# named by the end of their path, found wherever they live; a name that matches no file
# fails the run.
CACHE_DOWN_TESTS := live/tests/test_http.py draw/tests/test_pages.py scoring/tests/test_table_views.py
# What only a working cache can give: a 304 or a cached page answered without any query,
# another server's render lock honoured, a tie's page found by its tables' state, a slow
# page's pace kept.
CACHE_DOWN_SKIP  := not answered_304_without_the_database \
	and not the_others_get_the_previous_one \
	and not cached_with_a_fresh_csrf_token_and_nonce_each_time \
	and not not_rendered_again_while_only_other_ties_deal \
	and not rendered_again_after_any_change_but_another_tables_own \
	and not rendered_again_only_at_its_pace \
	and not slow_to_render_keeps_its_pace_too
CACHE_DOWN_URL   ?= redis://127.0.0.1:1/0

test-cache-down: setup
	@files=$$(for name in $(CACHE_DOWN_TESTS); do \
		found=$$(find . -path "*/$$name" -not -path "./.venv/*"); \
		[ -n "$$found" ] || { echo "make test-cache-down: no test module named $$name" >&2; exit 1; }; \
		echo $$found; done) && \
	echo "TEST_CACHE_URL=$(CACHE_DOWN_URL) pytest $$files" && \
	TEST_CACHE_URL=$(CACHE_DOWN_URL) $(PY) -m pytest -n $(PYTEST_WORKERS) -k "$(CACHE_DOWN_SKIP)" $$files $(PYTEST_ARGS)

# Not part of `make test` or CI: it takes a few minutes and needs PostgreSQL, Redis and wrk.
bench: setup
	@scripts/ensure-wrk
	$(PY) bench/live.py

# Not part of `make test` or CI either: the big day on PostgreSQL (database gc_bench_big,
# dropped and created; BENCH_BIG_DATABASE_URL to change it), some ten minutes.
bench-big: setup
	$(PY) bench/big.py

# The locks are made by pip-tools in a venv of its own (.venv/lock-tools), so the project's
# venv holds exactly what the locks name. Hashes cover every platform's files, so the
# Dockerfile installs requirements.lock as it is.
PIP_TOOLS := pip-tools==7.6.2
LOCK_PY   := $(VENV)/lock-tools/bin/python
COMPILE   := $(LOCK_PY) -m piptools compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links --no-emit-trusted-host $(if $(UPGRADE),--upgrade)

lock:
	@if [ ! -x $(LOCK_PY) ]; then PYBIN=$$(scripts/find-python) && "$$PYBIN" -m venv $(VENV)/lock-tools; fi
	$(LOCK_PY) -m pip install --quiet --disable-pip-version-check $(PIP_TOOLS)
	$(COMPILE) --output-file requirements.lock requirements.txt
	$(COMPILE) --constraint requirements.lock --output-file requirements-dev.lock requirements-dev.txt

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

messages: setup
	DEBUG=1 $(PY) manage.py makemessages -l en --ignore=.venv --ignore=var --ignore="*/tests/*" \
		--ignore=tests --ignore=bench
	DEBUG=1 $(PY) manage.py compilemessages --ignore=.venv

check-compose:
	SECRET_KEY=placeholder docker-compose -f docker-compose.yml config --quiet

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis var/staticfiles
