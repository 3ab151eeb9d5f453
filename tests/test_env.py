"""What the settings make of the environment (django-environ parses it; these tests check
the values our settings end up with, for the variables the README lists)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

SETTINGS = Path(settings.BASE_DIR) / "guandan_cup" / "settings.py"
VARIABLES = [
    "DEBUG",
    "TESTING",
    "SECRET_KEY",
    "VAR_DIR",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "DATABASE_URL",
    "CONN_MAX_AGE",
    "CACHE_URL",
    "REDIS_URL",
    "TEST_CACHE_URL",
    "CACHE_KEY_PREFIX",
    "SECURE_PROXY_SSL_HEADER_ENABLED",
    "SECURE_SSL_REDIRECT",
    "PROXY_COUNT",
    "TRUSTED_PROXIES",
]


@pytest.fixture
def settings_with(monkeypatch, tmp_path):
    """The settings module run afresh (in this process, without configuring Django) with
    exactly these variables set, as production would see them (TESTING=0)."""

    def run(**env) -> dict:
        for name in VARIABLES:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("TESTING", "0")
        monkeypatch.setenv("VAR_DIR", str(tmp_path / "var"))
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return runpy.run_path(str(SETTINGS))

    return run


def test_without_a_database_url_it_is_a_sqlite_file_under_var(settings_with, tmp_path):
    for env in ({}, {"DATABASE_URL": ""}):
        db = settings_with(**env)["DATABASES"]["default"]
        assert db["ENGINE"] == "django.db.backends.sqlite3"
        assert Path(db["NAME"]) == tmp_path / "var" / "guandan_cup.sqlite3"
        assert (tmp_path / "var").is_dir()  # made on a fresh clone
        assert "CONN_MAX_AGE" not in db


def test_a_postgres_url_gives_credentials_options_and_reused_connections(settings_with):
    url = "postgres://user:p%40ss@db.example:6543/guandan?sslmode=require"
    db = settings_with(DATABASE_URL=url)["DATABASES"]["default"]
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"]) == ("guandan", "user", "p@ss")
    assert (db["HOST"], str(db["PORT"])) == ("db.example", "6543")
    assert db["OPTIONS"] == {"sslmode": "require"}
    assert db["CONN_MAX_AGE"] == 60 and db["CONN_HEALTH_CHECKS"] is True
    db = settings_with(DATABASE_URL=url, CONN_MAX_AGE="0")["DATABASES"]["default"]
    assert db["CONN_MAX_AGE"] == 0


def test_the_trust_auth_url_of_the_development_machines(settings_with):
    db = settings_with(DATABASE_URL="postgres://postgres@127.0.0.1:5432/guandan_cup")["DATABASES"][
        "default"
    ]
    assert (db["USER"], db["PASSWORD"], db["HOST"], str(db["PORT"])) == (
        "postgres",
        "",
        "127.0.0.1",
        "5432",
    )
    assert not db.get("OPTIONS")


@pytest.mark.parametrize(
    ("url", "name"),
    [("sqlite:///var/x.sqlite3", "var/x.sqlite3"), ("sqlite:////tmp/x.sqlite3", "/tmp/x.sqlite3")],
)
def test_sqlite_urls_name_a_relative_or_absolute_file(settings_with, url, name):
    db = settings_with(DATABASE_URL=url)["DATABASES"]["default"]
    assert db["ENGINE"] == "django.db.backends.sqlite3"
    assert str(db["NAME"]) == name


@pytest.mark.parametrize("url", ["mysql://root@localhost/x", "postgres://host:5432/", "nonsense"])
def test_an_unsupported_database_url_is_refused_with_a_clear_message(settings_with, url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        settings_with(DATABASE_URL=url)


@pytest.mark.parametrize(
    ("raw", "value"),
    [("1", True), ("true", True), ("Yes", True), (" on ", True), ("0", False), ("off", False)]
    + [("no", False), ("", False)],
)
def test_booleans_read_the_usual_spellings(settings_with, raw, value):
    assert settings_with(SECURE_SSL_REDIRECT=raw)["SECURE_SSL_REDIRECT"] is value


def test_a_boolean_it_cannot_read_stops_the_start(settings_with):
    with pytest.raises(ImproperlyConfigured, match="SECURE_SSL_REDIRECT"):
        settings_with(SECURE_SSL_REDIRECT="ture")


def test_booleans_default_to_production_values(settings_with):
    values = settings_with()
    assert values["DEBUG"] is False
    assert values["SECURE_SSL_REDIRECT"] is True
    assert "SECURE_PROXY_SSL_HEADER" not in values
    assert values["PROXY_COUNT"] == 0


def test_lists_are_comma_separated_with_spaces_and_empty_items_ignored(settings_with):
    values = settings_with(
        ALLOWED_HOSTS=" cup.example.org, 10.0.0.5 ,,",
        CSRF_TRUSTED_ORIGINS="https://cup.example.org",
    )
    assert values["ALLOWED_HOSTS"] == ["cup.example.org", "10.0.0.5"]
    assert values["CSRF_TRUSTED_ORIGINS"] == ["https://cup.example.org"]
    assert settings_with()["ALLOWED_HOSTS"] == []
    assert settings_with(DEBUG="1")["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost"]


def test_no_proxy_is_trusted_unless_the_deployment_names_it(settings_with):
    assert settings_with()["TRUSTED_PROXIES"] == []
    assert settings_with(SECURE_PROXY_SSL_HEADER_ENABLED="1")["TRUSTED_PROXIES"] == []
    assert settings_with(TRUSTED_PROXIES="172.30.0.10, 10.0.0.0/24")["TRUSTED_PROXIES"] == [
        "172.30.0.10",
        "10.0.0.0/24",
    ]


def test_a_secret_that_starts_with_a_dollar_is_taken_as_it_is(settings_with):
    assert settings_with(SECRET_KEY="$ecret-key-1234")["SECRET_KEY"] == "$ecret-key-1234"


@pytest.mark.parametrize(
    ("env", "backend", "location"),
    [
        ({"CACHE_URL": "redis://127.0.0.1:6379/0"}, "guandan_cup.cache.RedisCache", None),
        ({"REDIS_URL": "redis://127.0.0.1:6379/0"}, "guandan_cup.cache.RedisCache", None),
        (
            {"CACHE_URL": "rediss://:secret@cache.example:6380/1"},
            "guandan_cup.cache.RedisCache",
            None,
        ),
        ({"CACHE_URL": "unix:///run/redis.sock"}, "guandan_cup.cache.RedisCache", None),
        (
            {"CACHE_URL": "locmem://"},
            "django.core.cache.backends.locmem.LocMemCache",
            "guandan-cup",
        ),
        ({"CACHE_URL": "dummy://"}, "django.core.cache.backends.dummy.DummyCache", "guandan-cup"),
        ({}, "django.core.cache.backends.locmem.LocMemCache", "guandan-cup"),
    ],
)
def test_cache_urls(settings_with, env, backend, location):
    cache = settings_with(**env)["CACHES"]["default"]
    assert cache["BACKEND"] == backend
    assert cache["LOCATION"] == (location or next(iter(env.values())))
    assert cache["KEY_PREFIX"] == "gc"


def test_cache_url_wins_over_redis_url_and_the_prefix_is_configurable(settings_with):
    cache = settings_with(
        CACHE_URL="redis://a:6379/1", REDIS_URL="redis://b:6379/2", CACHE_KEY_PREFIX="cup2"
    )["CACHES"]["default"]
    assert cache["LOCATION"] == "redis://a:6379/1" and cache["KEY_PREFIX"] == "cup2"


def test_an_unsupported_cache_url_is_refused(settings_with):
    with pytest.raises(ImproperlyConfigured, match="cache URL"):
        settings_with(CACHE_URL="memcached://127.0.0.1:11211")


def test_tests_use_local_memory_whatever_the_cache_url_says(settings_with):
    cache = settings_with(TESTING="1", CACHE_URL="redis://127.0.0.1:6379/0")["CACHES"]["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


def test_tests_use_the_test_cache_url_when_one_is_named(settings_with):
    # `make test-cache-down` runs the live and write tests with the cache at a closed port.
    cache = settings_with(TESTING="1", TEST_CACHE_URL="redis://127.0.0.1:1/0")["CACHES"]["default"]
    assert cache["BACKEND"] == "guandan_cup.cache.RedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:1/0"
