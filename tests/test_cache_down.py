"""The cache is an optimisation, never a dependency: with Redis unreachable (a closed port)
every page answers as with it, from the database; a 304 is answered from the database's
version; a referee's write that committed answers as committed, and is recorded once; a
confirmation goes through. The backend itself: every operation degrades, a dead Redis costs
one short timeout, and the failure is logged once a minute with a count.

(CI also runs the live, write and confirmation test modules a second time with the cache at
a closed port: ``make test-cache-down``.)
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import warnings

import pytest
import redis.connection
from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.test import Client
from django.urls import reverse
from redis.exceptions import ConnectionError as RedisConnectionError

from guandan_cup import cache as cache_module
from guandan_cup.cache import RedisCache
from scoring.models import AuditEntry, TableEvent, TableMatch
from scoring.tests.utils import page_data
from tournaments.models import Event, Match, Official

User = get_user_model()
HTMX = {"HTTP_HX_REQUEST": "true"}
NANTONG = "nantong-2014"


def closed_port() -> int:
    """A port on loopback that nothing listens on (bound once, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_at(location: str, **options) -> dict:
    return {
        "default": {
            "BACKEND": "guandan_cup.cache.RedisCache",
            "LOCATION": location,
            "KEY_PREFIX": "gc-cache-down",
            "OPTIONS": options,
        }
    }


LOCAL = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "cache-down-test",
    }
}


@pytest.fixture(autouse=True)
def no_record_of_failures():
    """Each test starts with the process's records of cache failures empty: they are per
    process and location, and a closed port may come round again."""
    cache_module._forget_healths()
    yield
    cache_module._forget_healths()


@pytest.fixture
def cache_down(settings):
    settings.CACHES = redis_at(f"redis://127.0.0.1:{closed_port()}/0")
    assert isinstance(caches["default"], RedisCache)
    return settings


def _clear_process_copies():
    from tournaments.live import http, stamps

    stamps.clear_memo()
    http.clear_local()


def _use(settings, caches_setting):
    settings.CACHES = caches_setting
    _clear_process_copies()


# --------------------------------------------------------------------------- the pages


def _event() -> Event:
    return Event.objects.get(tournament__slug=NANTONG, slug="guandan")


def _first_table() -> TableMatch:
    match = (
        Match.objects.filter(round__stage__event=_event(), round__number=1)
        .exclude(status=Match.Status.BYE)
        .order_by("index")
        .first()
    )
    return TableMatch.objects.filter(match=match).order_by("number").first()


def _live_urls(table: TableMatch) -> list[str]:
    event = [NANTONG, "guandan"]
    return [
        reverse("live:bracket", args=event),
        reverse("live:bracket-json", args=event),
        reverse("live:screen", args=event),
        reverse("live:match", args=[*event, table.match_id]),
        reverse("live:match-json", args=[*event, table.match_id]),
        reverse("scoring:table", args=[*event, table.pk]),
        reverse("tournaments:detail", args=[NANTONG]),
        reverse("tournaments:list"),
    ]


def test_every_live_page_answers_as_with_the_cache_up(demo, settings, cache_down):
    table = _first_table()
    down = {}
    for url in _live_urls(table):
        for headers in ({}, HTMX):
            response = Client().get(url, **headers)
            down[url, bool(headers)] = (response.status_code, response.get("ETag"))
            assert response.status_code == 200, url
    json_down = Client().get(reverse("live:bracket-json", args=[NANTONG, "guandan"]))

    _use(settings, LOCAL)
    for (url, htmx), answer in down.items():
        response = Client().get(url, **(HTMX if htmx else {}))
        assert (response.status_code, response.get("ETag")) == answer, url
    json_up = Client().get(reverse("live:bracket-json", args=[NANTONG, "guandan"]))
    assert json_down.json() == json_up.json()


def test_the_bracket_page_shows_the_bracket_from_the_database(demo, cache_down):
    url = reverse("live:bracket", args=[NANTONG, "guandan"])
    full = Client().get(url)
    assert full.status_code == 200 and 'id="bracket-body"' in full.content.decode()
    poll = Client().get(url, **HTMX)
    assert poll.status_code == 200 and poll["ETag"]
    assert "\x00" not in full.content.decode()


def test_a_poll_with_the_last_etag_is_answered_304_from_the_databases_version(
    demo, cache_down, django_assert_max_num_queries
):
    client = Client()
    url = reverse("live:bracket-json", args=[NANTONG, "guandan"])
    first = client.get(url)
    assert first.status_code == 200
    with django_assert_max_num_queries(1):  # the event's version, and nothing else
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    since = client.get(url, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert since.status_code == 304
    poll_url = reverse("live:bracket", args=[NANTONG, "guandan"])
    poll = client.get(poll_url, **HTMX)
    assert client.get(poll_url, HTTP_IF_NONE_MATCH=poll["ETag"], **HTMX).status_code == 304


# --------------------------------------------------------------------------- the writes


@pytest.fixture
def staff(demo):
    """The first quarter-final's table with its referee, and the chief referee."""
    table = _first_table()
    tournament = table.match.round.stage.event.tournament
    referee, chief = User.objects.create_user("referee"), User.objects.create_user("chief")
    official = Official.objects.create(
        tournament=tournament, name="裁判甲", role=Official.Role.REFEREE, user=referee
    )
    TableMatch.objects.filter(pk=table.pk).update(referee=official)
    Official.objects.create(
        tournament=tournament, name="裁判长甲", role=Official.Role.CHIEF_REFEREE, user=chief
    )
    return table, referee, chief


def _table_url(name: str, table: TableMatch) -> str:
    return reverse(name, args=[NANTONG, "guandan", table.pk])


def test_a_deal_answers_as_committed_and_a_resend_records_nothing_more(cache_down, staff):
    table, referee, _chief = staff
    client = Client()
    client.force_login(referee)
    bracket = reverse("live:bracket-json", args=[NANTONG, "guandan"])
    before = Client().get(bracket)
    deal = {"deal": "A2", "key": "deal-1", "version": "0"}
    response = client.post(_table_url("scoring:deal", table), deal, **HTMX)
    assert response.status_code == 200
    # The phone did not hear the answer and sends the same deal again.
    resent = client.post(_table_url("scoring:deal", table), deal, **HTMX)
    assert resent.status_code == 200
    events = TableEvent.objects.filter(table=table)
    assert [e.payload for e in events] == [{"order": list("AABB")}]
    # Everyone sees the new version at once: the stamp comes from the database.
    after = Client().get(bracket, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    tie = Client().get(reverse("live:match-json", args=[NANTONG, "guandan", table.match_id]))
    assert tie.status_code == 200


def test_undo_time_up_submit_and_confirm_go_through_and_move_the_bracket(cache_down, staff):
    table, referee, chief = staff
    client = Client()
    client.force_login(referee)
    url = _table_url
    assert (
        client.post(
            url("scoring:deal", table),
            page_data(url("scoring:deal", table), {"deal": "A2", "key": "d1"}),
            **HTMX,
        ).status_code
        == 200
    )
    assert (
        client.post(
            url("scoring:undo", table), page_data(url("scoring:undo", table)), **HTMX
        ).status_code
        == 200
    )
    assert (
        client.post(
            url("scoring:deal", table),
            page_data(url("scoring:deal", table), {"deal": "A2", "key": "d2"}),
            **HTMX,
        ).status_code
        == 200
    )
    assert (
        client.post(
            url("scoring:time-up", table),
            page_data(url("scoring:time-up", table), {"key": "t1"}),
            **HTMX,
        ).status_code
        == 200
    )
    assert (
        client.post(
            url("scoring:submit", table), page_data(url("scoring:submit", table)), **HTMX
        ).status_code
        == 200
    )
    bracket = reverse("live:bracket-json", args=[NANTONG, "guandan"])
    before = Client().get(bracket)
    client.force_login(chief)
    confirmed = client.post(
        url("scoring:confirm", table), page_data(url("scoring:confirm", table)), **HTMX
    )
    assert confirmed.status_code == 200
    table.refresh_from_db()
    assert table.status == TableMatch.Status.CONFIRMED
    assert AuditEntry.objects.filter(action="confirm").count() == 1
    live = TableEvent.objects.filter(table=table, undone_at__isnull=True)
    assert [e.payload for e in live.order_by("seq")] == [
        {"order": list("AABB")},
        {"time_up": True},
    ]
    after = Client().get(bracket, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after.json()["version"] > before.json()["version"]


# --------------------------------------------------------------------------- the backend


def test_every_operation_degrades_to_what_an_empty_cache_answers(cache_down):
    assert cache.get("k") is None and cache.get("k", "fallback") == "fallback"
    assert cache.get_many(["a", "b"]) == {}
    assert cache.add("k", 1) is False
    assert cache.set("k", 1) is None
    assert cache.touch("k") is False
    assert cache.delete("k") is False
    assert cache.has_key("k") is False
    assert cache.set_many({"a": 1, "b": 2}) == ["a", "b"]
    assert cache.delete_many(["a"]) is None
    assert cache.clear() is False
    assert cache.get_or_set("k", 7) == 7
    with pytest.raises(ValueError):
        cache.incr("counter")
    with pytest.raises(ValueError):
        cache.decr("counter")


def test_sockets_time_out_quickly_unless_the_options_say_otherwise():
    backend = RedisCache("redis://127.0.0.1:6379/0", {})
    assert backend._options["socket_connect_timeout"] <= 0.25
    assert backend._options["socket_timeout"] <= 0.5
    backend = RedisCache("redis://127.0.0.1:6379/0", {"OPTIONS": {"socket_timeout": 2}})
    assert backend._options["socket_timeout"] == 2
    assert "retry_after" not in backend._options  # ours, not redis-py's


@pytest.fixture
def black_hole():
    """A server that accepts connections and never answers (a hung Redis)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def test_a_hung_redis_costs_one_short_timeout_then_nothing_for_a_moment(black_hole):
    backend = RedisCache(black_hole, {"OPTIONS": {"socket_timeout": 0.2}})
    started = time.perf_counter()
    assert backend.get("k") is None
    first = time.perf_counter() - started
    assert 0.15 < first < 1.0
    started = time.perf_counter()
    for n in range(200):
        assert backend.get(f"k{n}") is None
        backend.set(f"k{n}", n)
    assert time.perf_counter() - started < 0.1  # within RETRY_AFTER nothing is tried
    assert backend.health.degraded == 401


def test_a_closed_port_costs_well_under_a_millisecond_an_operation(cache_down):
    backend = caches["default"]
    backend.health.retry_after = 0  # try Redis every time: the worst case
    started = time.perf_counter()
    for n in range(100):
        cache.get(f"k{n}")
    assert (time.perf_counter() - started) / 100 < 0.005


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_failures_are_logged_once_a_minute_with_a_count(cache_down, caplog, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(cache_module.time, "monotonic", clock)
    backend = caches["default"]
    with caplog.at_level(logging.WARNING, logger="guandan_cup.cache"):
        for _ in range(50):  # a burst of requests, within the retry pause and the minute
            cache.get("k")
        clock.now += 5
        for _ in range(30):  # Redis tried again (and failing), still within the minute
            cache.get("k")
        assert len(caplog.records) == 1
        assert "1 operation(s)" in caplog.records[0].getMessage()
        clock.now += 60
        cache.get("k")
    records = [r.getMessage() for r in caplog.records]
    assert len(records) == 2, records
    assert "80 operation(s) went without it since the last report (81 in all)" in records[1]
    assert "ConnectionError" in records[1]
    assert backend.health.degraded == 81


def _backends_in_threads(count: int, work) -> list:
    """Run ``work(backend)`` in ``count`` threads at once, each with the backend
    ``caches["default"]`` gives it (its own instance, as in a gunicorn worker's threads);
    the backends, once every thread is done."""
    backends, ready = [None] * count, threading.Barrier(count)

    def run(n):
        backends[n] = caches["default"]
        ready.wait(5)
        work(backends[n])

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
    return backends


def test_the_threads_of_a_process_share_one_pause_and_one_report(cache_down, caplog, monkeypatch):
    """The fault run: gunicorn's 3 workers × 4 threads logged 12 lines for one outage, each
    thread pausing (and waiting for its timeout) on its own."""
    clock = _Clock()
    monkeypatch.setattr(cache_module.time, "monotonic", clock)
    attempts, answered, go_on = [], threading.Semaphore(0), threading.Event()
    go_on.set()
    connect = redis.connection.Connection.connect

    def counting_connect(self):
        attempts.append(threading.get_ident())
        assert go_on.wait(5)
        return connect(self)

    monkeypatch.setattr(redis.connection.Connection, "connect", counting_connect)

    def get(backend):
        assert backend.get("k") is None
        answered.release()

    with caplog.at_level(logging.WARNING, logger="guandan_cup.cache"):
        first = _backends_in_threads(1, get)
        others = _backends_in_threads(11, get)  # within the pause: nobody tries
        assert len(attempts) == 1
        # After the pause one thread tries again; while it waits, the others do not.
        clock.now += cache_module.RETRY_AFTER + 0.1
        go_on.clear()
        later = []
        waiter = threading.Thread(target=lambda: later.extend(_backends_in_threads(12, get)))
        waiter.start()
        for _ in range(12 + 11):
            assert answered.acquire(timeout=5), f"{len(attempts) - 1} threads tried Redis again"
        go_on.set()
        waiter.join(10)
    assert len(attempts) == 2
    backends = first + others + later
    assert len({id(backend) for backend in backends}) == 24  # one instance per thread…
    assert {id(backend.health) for backend in backends} == {id(first[0].health)}  # …one record
    records = [r.getMessage() for r in caplog.records]
    assert len(records) == 1, records
    assert first[0].health.degraded == 24


def test_each_cache_location_has_its_own_record_and_a_new_process_none():
    down = RedisCache(f"redis://127.0.0.1:{closed_port()}/0", {})
    assert down.get("k") is None and down.health.down
    assert RedisCache(down._servers[0], {}).health is down.health
    elsewhere = RedisCache(f"redis://127.0.0.1:{closed_port()}/1", {})
    assert not elsewhere.health.down and elsewhere.health is not down.health
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # forking a threaded process
        child = os.fork()
    if child == 0:  # a gunicorn worker forked from the master: no record of its own yet
        os._exit(0 if not cache_module._healths else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    assert cache_module._healths


def test_a_try_that_ends_in_a_bug_lets_the_next_operation_try_again():
    backend = RedisCache("redis://127.0.0.1:6379/0", {"OPTIONS": {"retry_after": 0}})
    flaky = backend._cache = _Flaky()
    backend.set("k", 1)  # unreachable: paused (for no time at all)

    def broken(key, default=None):
        raise TypeError("a bug")

    flaky.get = broken
    with pytest.raises(TypeError):
        backend.get("k")
    flaky.up = True
    backend.set("k", 2)  # tried, not skipped as if another thread were still trying
    assert list(flaky.data.values()) == [2] and not backend.health.down


class _Flaky:
    """Stands in for Django's Redis client: unreachable until told otherwise."""

    def __init__(self):
        self.up, self.data = False, {}

    def get(self, key, default=None):
        if not self.up:
            raise RedisConnectionError("Connection refused.")
        return self.data.get(key, default)

    def set(self, key, value, timeout):
        if not self.up:
            raise RedisConnectionError("Connection refused.")
        self.data[key] = value


def test_it_says_when_the_cache_is_back_and_uses_it_again(caplog):
    backend = RedisCache("redis://127.0.0.1:6379/0", {"OPTIONS": {"retry_after": 0}})
    flaky = backend._cache = _Flaky()
    with caplog.at_level(logging.WARNING, logger="guandan_cup.cache"):
        backend.set("k", 1)
        assert backend.get("k") is None
        flaky.up = True
        backend.set("k", 2)
        assert backend.get("k") == 2
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0].startswith("Cache unreachable")
    assert messages[-1].startswith("Cache reachable again; 1 operation(s)")
    assert not backend.health.down


def test_a_bug_is_not_swallowed_as_an_outage():
    backend = RedisCache("redis://127.0.0.1:6379/0", {})

    class Broken:
        def get(self, key, default=None):
            raise TypeError("a bug")

    backend._cache = Broken()
    with pytest.raises(TypeError):
        backend.get("k")
