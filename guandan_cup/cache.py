"""The shared cache (Redis): an optimisation, never a dependency.

Django's Redis backend, with two changes:

- **It degrades instead of failing.** When Redis cannot be reached (refused, timed out, or
  answering with an error), every operation answers as an empty cache would: ``get`` a
  miss, ``get_many`` nothing, ``add``/``has_key``/``touch``/``delete`` False, ``set``,
  ``set_many``, ``delete_many`` and ``clear`` do nothing, ``incr``/``decr`` raise
  ``ValueError`` as for a missing key. The live pages (tournaments/live/http.py) then render from
  the database and read versions from it; a write that committed answers as committed.
  After a failure the backend does not try Redis again for ``RETRY_AFTER`` seconds, so a
  dead Redis costs one short timeout per process per second, not one per operation.
  Failures are logged once a minute at most, with how many operations went without the
  cache since the last report (``degraded`` counts them all, for ``/readyz``).
  That record (``Health``) is one per process and cache location, shared by every thread:
  ``django.core.cache.caches`` gives each thread a backend instance of its own, and a
  record per instance would make each thread wait for its own timeout and log its own
  line (gunicorn's 3 workers × 4 threads logged 12 lines for one outage). When the pause
  is over, one thread tries Redis again; the others answer without it until that try
  has told.
- **Its client object is kept.** ``RedisCacheClient.get_client`` builds a new ``redis.Redis``
  for every command — with redis-py 8 that is a few hundred dict insertions (its table of
  response callbacks) each time, a large part of a cache hit. The connection pool is already
  kept; this keeps the client built on it too.

Sockets time out quickly (``OPTIONS`` may override): a Redis on the LAN answers in well
under a millisecond, so waiting longer only makes a dead one expensive.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.utils.functional import cached_property
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

SOCKET_CONNECT_TIMEOUT = 0.25
SOCKET_TIMEOUT = 0.5
RETRY_AFTER = 1.0
REPORT_EVERY = 60.0
# What "cannot be reached" means: redis-py's own errors (connection, timeout, a server that
# refuses commands) and socket errors it did not wrap. Anything else is a bug and is raised.
UNREACHABLE = (RedisError, OSError)


class _Client(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class Health:
    """The record of failures of one cache location, shared by every thread of the process
    (``health_of``)."""

    def __init__(self, retry_after: float, report_every: float):
        self.retry_after, self.report_every = retry_after, report_every
        self.lock = threading.Lock()
        self.down_until = 0.0  # monotonic time before which Redis is not tried (0: up)
        self.probing = False  # one thread is trying Redis again after the pause
        self.next_report = 0.0
        self.unreported = 0  # operations degraded since the last log line
        self.degraded = 0  # operations degraded since the process started
        self.last_error = ""

    def skipping(self) -> bool:
        """Whether to answer without Redis: within the pause after a failure, or after it
        while another thread is already trying Redis again."""
        if not self.down_until:
            return False
        with self.lock:
            if not self.down_until:
                return False
            if time.monotonic() >= self.down_until and not self.probing:
                self.probing = True  # this thread tries; the others wait for its answer
                return False
            self.unreported += 1
            self.degraded += 1
        self._maybe_report()
        return True

    def failed(self, operation: str, error: BaseException) -> None:
        with self.lock:
            self.down_until = time.monotonic() + self.retry_after
            self.probing = False
            self.unreported += 1
            self.degraded += 1
            self.last_error = f"{operation}: {type(error).__name__}: {error}"
        self._maybe_report()

    def succeeded(self) -> None:
        if not self.down_until:
            return
        with self.lock:
            if not self.down_until:
                return
            self.down_until = 0.0
            self.probing = False
            unreported, self.unreported = self.unreported, 0
            self.next_report = 0.0
        logger.warning(
            "Cache reachable again; %d operation(s) went without it since the last report.",
            unreported,
        )

    def abandoned(self) -> None:
        """The try after the pause ended without telling whether Redis answers."""
        with self.lock:
            self.probing = False

    def _maybe_report(self) -> None:
        now = time.monotonic()
        if now < self.next_report:
            return
        with self.lock:
            if now < self.next_report:
                return
            self.next_report = now + self.report_every
            unreported, self.unreported = self.unreported, 0
            error = self.last_error
        logger.warning(
            "Cache unreachable (%s): %d operation(s) went without it since the last report "
            "(%d in all); pages are rendered from the database. Next report in %d s at most.",
            error,
            unreported,
            self.degraded,
            self.report_every,
        )

    @property
    def down(self) -> bool:
        return time.monotonic() < self.down_until


_healths: dict[tuple, Health] = {}
_healths_lock = threading.Lock()


def health_of(location: tuple, retry_after: float, report_every: float) -> Health:
    """The process's one record for this cache location (and these pauses)."""
    key = (location, retry_after, report_every)
    health = _healths.get(key)
    if health is None:
        with _healths_lock:
            health = _healths.setdefault(key, Health(retry_after, report_every))
    return health


def _forget_healths() -> None:
    """A new process starts with no record (gunicorn forks its workers from the master)."""
    global _healths_lock
    _healths.clear()
    _healths_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_healths)


def _degrading(operation: str, fallback):
    """Wrap Django's method ``operation``: on a failure to reach Redis, answer
    ``fallback(*args, **kwargs)`` (or raise what it raises)."""
    original = getattr(DjangoRedisCache, operation)

    def method(self, *args, **kwargs):
        health = self.health
        if health.skipping():
            return fallback(*args, **kwargs)
        try:
            result = original(self, *args, **kwargs)
        except UNREACHABLE as error:
            health.failed(operation, error)
            return fallback(*args, **kwargs)
        except BaseException:
            health.abandoned()  # a bug, or Django's own ValueError: the next one tries
            raise
        health.succeeded()
        return result

    method.__name__ = operation
    method.__doc__ = original.__doc__
    return method


def _missing_key(key, *args, **kwargs):
    raise ValueError(f"Key '{key}' not found (the cache is unreachable).")


def _get_default(key, default=None, version=None):
    return default


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        options = dict(self._options)
        retry_after = float(options.pop("retry_after", RETRY_AFTER))
        report_every = float(options.pop("report_every", REPORT_EVERY))
        options.setdefault("socket_connect_timeout", SOCKET_CONNECT_TIMEOUT)
        options.setdefault("socket_timeout", SOCKET_TIMEOUT)
        self._options = options
        self.health = health_of(tuple(self._servers), retry_after, report_every)

    @cached_property
    def _cache(self):
        return _Client(self._servers, **self._options)

    add = _degrading("add", lambda *a, **k: False)
    get = _degrading("get", _get_default)
    set = _degrading("set", lambda *a, **k: None)
    touch = _degrading("touch", lambda *a, **k: False)
    delete = _degrading("delete", lambda *a, **k: False)
    get_many = _degrading("get_many", lambda *a, **k: {})
    has_key = _degrading("has_key", lambda *a, **k: False)
    incr = _degrading("incr", _missing_key)
    set_many = _degrading(
        "set_many", lambda data, timeout=DEFAULT_TIMEOUT, version=None: list(data)
    )
    delete_many = _degrading("delete_many", lambda *a, **k: None)
    clear = _degrading("clear", lambda *a, **k: False)

    def ping(self) -> None:
        """Ask Redis itself, whatever the recent failures (``/readyz``); raises when it
        cannot be reached."""
        try:
            self._cache.get_client(write=True).ping()
        except UNREACHABLE as error:
            self.health.failed("ping", error)
            raise
        self.health.succeeded()


def status(alias: str = "default") -> dict:
    """The cache as ``/readyz`` reports it: ``{"ok": bool, "backend": …, …}``. Never raises."""
    backend = caches[alias]
    name = type(backend).__name__
    if isinstance(backend, RedisCache):
        try:
            backend.ping()
        except UNREACHABLE as error:
            return {
                "ok": False,
                "backend": name,
                "error": f"{type(error).__name__}: {error}",
                "degraded_operations": backend.health.degraded,
            }
        return {"ok": True, "backend": name, "degraded_operations": backend.health.degraded}
    try:
        backend.set("readyz-probe", 1, 5)
        ok = backend.get("readyz-probe") == 1 or name == "DummyCache"
    except Exception as error:  # another backend's own failure
        return {"ok": False, "backend": name, "error": f"{type(error).__name__}: {error}"}
    return {"ok": ok, "backend": name}
