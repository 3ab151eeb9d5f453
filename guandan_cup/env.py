"""Small helpers that turn environment variables into settings values."""

import os
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}

_ENGINES = {
    "postgres": "django.db.backends.postgresql",
    "postgresql": "django.db.backends.postgresql",
    "pgsql": "django.db.backends.postgresql",
    "sqlite": "django.db.backends.sqlite3",
}


def env_bool(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no.")


def env_list(name: str, *, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def parse_database_url(url: str) -> dict:
    """Turn ``postgres://user:pass@host:port/name?sslmode=require`` into a DATABASES entry.

    ``sqlite:///relative.db`` and ``sqlite:////absolute/path.db`` name a SQLite file.
    """
    parts = urlsplit(url)
    engine = _ENGINES.get(parts.scheme)
    if engine is None:
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme {parts.scheme!r} is not supported; "
            "use postgres://user@host:5432/name or sqlite:///path/to/file.db"
        )
    if engine.endswith("sqlite3"):
        path = unquote(parts.path)
        # sqlite:///x.db -> path "/x.db" (relative); sqlite:////abs/x.db -> "//abs/x.db"
        name = path[1:] if path.startswith("/") else path
        return {"ENGINE": engine, "NAME": name or ":memory:"}
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured("DATABASE_URL names no database (…:5432/NAME).")
    config = {
        "ENGINE": engine,
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "",
        "PORT": str(parts.port or ""),
    }
    options = dict(parse_qsl(parts.query))
    if options:
        config["OPTIONS"] = options
    return config


_CACHE_BACKENDS = {
    # Django's Redis backend, keeping its client object between commands (guandan_cup/cache.py).
    "redis": "guandan_cup.cache.RedisCache",
    "rediss": "guandan_cup.cache.RedisCache",
    "unix": "guandan_cup.cache.RedisCache",
    "locmem": "django.core.cache.backends.locmem.LocMemCache",
    "dummy": "django.core.cache.backends.dummy.DummyCache",
}


def parse_cache_url(url: str) -> dict:
    """Turn ``redis://host:6379/0`` (or ``locmem://``, ``dummy://``) into a CACHES entry.

    Redis is what production uses: every app server shares it, so a fragment rendered by
    one server is served by all, and a version bumped by one is seen by all.
    """
    scheme = urlsplit(url).scheme
    backend = _CACHE_BACKENDS.get(scheme)
    if backend is None:
        raise ImproperlyConfigured(
            f"cache URL scheme {scheme!r} is not supported; "
            "use redis://host:6379/0, locmem:// or dummy://"
        )
    if scheme in ("locmem", "dummy"):
        return {"BACKEND": backend, "LOCATION": urlsplit(url).netloc or "guandan-cup"}
    return {"BACKEND": backend, "LOCATION": url}
