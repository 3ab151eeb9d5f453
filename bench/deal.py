"""What a referee's deal costs the app server, against a one-row write through the same
middleware: CPU time per request, queries, the answer's bytes.

    .venv/bin/python bench/deal.py
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/gc_deal .venv/bin/python bench/deal.py

Django runs in this process with the server's settings (DEBUG off, PostgreSQL, the shared
cache) and every request goes through its WSGI handler and the whole middleware, as under
gunicorn, without the HTTP parsing (the same for both). The two requests, from the same
logged-in referee:

- a deal: the htmx POST of the deal pad (``scoring:deal``), as the phone's tap queue sends
  it, with its key and the version the last answer showed, on the tables of a 32-team
  guandan team event until each is over;
- a one-row write: a view of this script's own URL conf (never the product's) behind
  ``login_required`` and ``require_POST`` that inserts one row and answers "ok".

They alternate, one request each in turn, in rounds; the median round's ratio is the
figure (target: a deal at most 3× the one-row write). CPU is this process's (``time.process_time``): the database's own
work is PostgreSQL's, not counted. Measurements, not tests: nothing here fails.

Environment: BENCH_DATABASE_URL (dropped and created afresh), BENCH_CACHE_URL
(redis://127.0.0.1:6379/15, keys under the prefix gc-deal-bench; ``locmem://`` for none),
BENCH_DEALS (per round, 60), BENCH_ROUNDS (5), BENCH_PROFILE=1 (and the deals' profile:
where their CPU goes, by cumulative time), BENCH_SHOW_SQL=1 (and a deal's queries).
"""

from __future__ import annotations

import os
import random
import re
import statistics
import sys
import time
import uuid
from pathlib import Path

import live_setup  # noqa: E402  (bench/: the fresh database, one way)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gc_deal_bench"
)
CACHE_URL = os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6379/15")
DEALS = int(os.environ.get("BENCH_DEALS", "60"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
TEAMS = 32
T, E = "deal-bench", "teams"
HOST = "127.0.0.1"
# The bench live_load.py reads the same attributes from a deal's answer.
VERSION_RE = re.compile(rb'id="table-panel"[^>]*data-version="(\d+)" data-over="([01])"')

os.environ.update(
    DATABASE_URL=DATABASE_URL,
    CACHE_URL=CACHE_URL,
    CACHE_KEY_PREFIX="gc-deal-bench",
    DEBUG="0",
    TESTING="0",
    SECRET_KEY="bench-" + uuid.uuid4().hex + uuid.uuid4().hex,
    ALLOWED_HOSTS=HOST,
    SECURE_SSL_REDIRECT="0",
    SESSION_COOKIE_SECURE="0",
    CSRF_COOKIE_SECURE="0",
    SECURE_HSTS_SECONDS="0",
    LOG_LEVEL="WARNING",
    DJANGO_SETTINGS_MODULE="guandan_cup.settings",
    VAR_DIR=os.environ.get("VAR_DIR", str(ROOT / "var" / "bench-deal")),
)


def fresh_database() -> None:
    live_setup.fresh_database(DATABASE_URL)


# --------------------------------------------------------------------------- the URL conf

WRITE_TABLE = "bench_one_row"


def one_row_write(request):
    """The floor of a logged-in write: the login, one INSERT, a short answer."""
    from django.db import connection
    from django.http import HttpResponse
    from django.utils import timezone

    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {WRITE_TABLE} (user_id, at, note) VALUES (%s, %s, %s)",
            [request.user.pk, timezone.now(), request.POST.get("note", "")[:100]],
        )
    return HttpResponse("ok", content_type="text/plain")


def _urlconf():
    """This script's URL conf: the product's, and the one-row write beside it."""
    import types

    from django.contrib.auth.decorators import login_required
    from django.urls import include, path
    from django.views.decorators.http import require_POST

    module = types.ModuleType("bench_deal_urls")
    module.urlpatterns = [
        path("bench/one-row/", login_required(require_POST(one_row_write))),
        path("", include("guandan_cup.urls")),
    ]
    sys.modules[module.__name__] = module
    return module.__name__


# --------------------------------------------------------------------------- requests


class Wsgi:
    """Requests straight into Django's WSGI handler, with the referee's cookies."""

    def __init__(self, session: str, csrf: str):
        from django.core.handlers.wsgi import WSGIHandler
        from django.test.client import RequestFactory

        class Environ(RequestFactory):
            def request(self, **request):
                return self._base_environ(**request)

        self.handler = WSGIHandler()
        self.factory = Environ()
        self.headers = {
            "HTTP_HOST": HOST,
            "HTTP_COOKIE": f"sessionid={session}; csrftoken={csrf}",
            "HTTP_X_CSRFTOKEN": csrf,
            "HTTP_HX_REQUEST": "true",
        }

    def post(self, path: str, data: dict) -> tuple[int, bytes]:
        environ = self.factory.post(path, data, **self.headers)
        status = []
        chunks = self.handler(environ, lambda s, h, *a: status.append(s))
        try:
            body = b"".join(chunks)
        finally:
            getattr(chunks, "close", lambda: None)()
        return int(status[0].split()[0]), body


class Referee:
    """Deals on the event's tables, one after another, each until it is over."""

    def __init__(self, client: Wsgi, tables: list[int]):
        self.client = client
        self.tables = list(tables)
        self.versions: dict[int, int] = {}
        self.rng = random.Random(2026)
        self.sizes: list[int] = []
        self.whole = 0  # answered with the whole panel (a table's first and last deal …)
        self.cpu = {True: [], False: []}  # each deal's CPU seconds, by whether answered whole
        self.finished = 0

    def deal(self) -> int:
        table = self.tables[0]
        data = {
            "deal": self.rng.choice(["A2", "A3", "A4", "B2", "B3", "B4"]),
            "key": uuid.uuid4().hex,
            "version": str(self.versions.get(table, 0)),
        }
        start = time.process_time()
        status, body = self.client.post(f"/t/{T}/{E}/tables/{table}/deal/", data)
        self.cpu[b"data-follows" not in body].append(time.process_time() - start)
        found = VERSION_RE.search(body)
        if status != 200 or found is None:
            raise SystemExit(f"deal on table {table} answered {status}: {body[:300]!r}")
        self.sizes.append(len(body))
        self.whole += b"data-follows" not in body
        self.versions[table] = int(found.group(1))
        if found.group(2) == b"1":
            self.tables.pop(0)
            self.finished += 1
        return status

    def write(self) -> int:
        status, body = self.client.post("/bench/one-row/", {"note": "x"})
        if status != 200:
            raise SystemExit(f"the one-row write answered {status}: {body[:300]!r}")
        return status


def cpu_per_request(fn, count: int) -> float:
    """This process's CPU seconds per call of ``fn``."""
    start = time.process_time()
    for _ in range(count):
        fn()
    return (time.process_time() - start) / count


def queries_of(fn) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        fn()
    return [q["sql"] for q in ctx.captured_queries]


# --------------------------------------------------------------------------- main


def main() -> None:
    fresh_database()
    import django

    django.setup()
    from django.conf import settings

    settings.ROOT_URLCONF = _urlconf()

    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.utils.crypto import get_random_string

    from scoring.models import TableMatch
    from tournaments.draw import make as draw_make
    from tournaments.models import Match, Official, Tournament
    from tournaments.ops import synthetic

    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE {WRITE_TABLE} (id bigserial PRIMARY KEY, user_id bigint, "
            "at timestamptz NOT NULL, note varchar(100) NOT NULL)"
        )
    cache.clear() if CACHE_URL.startswith("locmem") else None
    event = synthetic.create_event(tournament_slug=T, event_slug=E, entries=TEAMS)
    Tournament.objects.filter(slug=T).update(status=Tournament.Status.RUNNING)
    draw_make.draw_event(event=event, seed=2026)
    tournament = Tournament.objects.get(slug=T)
    user = get_user_model().objects.create_user("bench-referee")
    official = Official.objects.create(
        tournament=tournament, name="裁判甲", role=Official.Role.REFEREE, user=user
    )
    Match.objects.filter(round__stage__event=event).update(referee=official)
    tables = list(
        TableMatch.objects.filter(match__round__stage__event=event, match__round__number=1)
        .exclude(match__status=Match.Status.BYE)
        .order_by("match__index", "number")
        .values_list("pk", flat=True)
    )
    store = SessionStore()
    store["_auth_user_id"] = str(user.pk)
    store["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    store["_auth_user_hash"] = user.get_session_auth_hash()
    store.create()
    referee = Referee(Wsgi(store.session_key, get_random_string(32)), tables)
    print(
        f"bench/deal.py: PostgreSQL {connection.pg_version // 10000}, cache "
        f"{settings.CACHES['default']['BACKEND'].rsplit('.', 1)[-1]}, {TEAMS} teams, "
        f"{len(tables)} tables, {ROUNDS} rounds of {DEALS} deals and {DEALS} one-row writes"
    )

    # Warm: templates, URL resolvers, the connection, the first deal of a few tables.
    for _ in range(20):
        referee.deal()
        referee.write()
    deal_sql = queries_of(referee.deal)
    write_sql = queries_of(referee.write)

    deals, writes, ratios = [], [], []
    for _round in range(ROUNDS):
        # One deal, one write, in turn: both meet the machine as it is at that moment.
        d = w = 0.0
        for _ in range(DEALS):
            d += cpu_per_request(referee.deal, 1)
            w += cpu_per_request(referee.write, 1)
        deals.append(d / DEALS)
        writes.append(w / DEALS)
        ratios.append(d / w)
    deal_cpu, write_cpu = statistics.median(deals), statistics.median(writes)
    ratio = statistics.median(ratios)
    print(
        f"deal:          {deal_cpu * 1e3:6.2f} ms CPU/request, {len(deal_sql)} queries, "
        f"answer {statistics.median(referee.sizes) / 1024:.1f} KB (median)"
    )
    print(f"one-row write: {write_cpu * 1e3:6.2f} ms CPU/request, {len(write_sql)} queries")
    print(
        f"deals:         {len(referee.sizes)} on {referee.finished} tables played to the end "
        f"(and one in play), {referee.whole} answered with the whole panel"
    )
    for whole, label in ((False, "in part"), (True, "whole")):
        if referee.cpu[whole]:
            print(
                f"  answered {label + ':':9s} {statistics.median(referee.cpu[whole]) * 1e3:6.2f} ms "
                "CPU (median of each deal's)"
            )
    print(
        f"ratio:         {ratio:.1f}× (median of {ROUNDS} rounds; target ≤ 3×) "
        f"{'met' if ratio <= 3 else 'NOT met'}"
    )
    if os.environ.get("BENCH_PROFILE"):
        import cProfile
        import pstats

        profile = cProfile.Profile(time.process_time)  # CPU, not waiting
        profile.runcall(lambda: [referee.deal() for _ in range(DEALS)])
        pstats.Stats(profile).sort_stats("cumulative").print_stats(
            os.environ.get(
                "BENCH_PROFILE_FILTER",
                r"/(scoring|tournaments|guandan_cup|django/template|django/db/models/sql)/",
            ),
            int(os.environ.get("BENCH_PROFILE_LINES", "45")),
        )
    if os.environ.get("BENCH_SHOW_SQL"):
        for sql in deal_sql:
            print("   ", sql[:160])
    connection.close()


if __name__ == "__main__":
    main()
