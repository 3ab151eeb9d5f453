"""/readyz: each dependency's state as JSON — 200 while the database answers (naming what
is degraded: the cache, the Chinese font), 503 when it does not. /healthz stays the cheap
liveness answer."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import OperationalError
from django.test import Client

from guandan_cup import views
from tournaments.documents import pdf

ROOT = Path(settings.BASE_DIR)


@pytest.fixture
def fonts(monkeypatch):
    def installed(*names):
        monkeypatch.setattr(pdf, "installed_cjk_fonts", lambda: tuple(names))

    installed("Noto Sans CJK SC")
    return installed


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_all_up_is_200_ok_with_each_check(client, db, fonts):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"]
    body = response.json()
    assert body["status"] == "ok" and body["degraded"] == []
    assert set(body["checks"]) == {"database", "cache", "cjk_font"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["cjk_font"]["fonts"] == ["Noto Sans CJK SC"]
    assert all(check["ms"] >= 0 for check in body["checks"].values())


def test_with_the_cache_unreachable_it_is_still_ready_and_says_so(client, db, fonts, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "guandan_cup.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
        }
    }
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded" and body["degraded"] == ["cache"]
    assert "ConnectionError" in body["checks"]["cache"]["error"]
    assert body["checks"]["cache"]["ms"] < 500


def test_with_redis_up_the_cache_check_pings_it(client, db, fonts, settings):
    import redis

    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/5")
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        if os.environ.get("CI"):
            pytest.fail(f"no Redis at {url} in CI: {error}")
        pytest.skip(f"no Redis at {url}")
    settings.CACHES = {"default": {"BACKEND": "guandan_cup.cache.RedisCache", "LOCATION": url}}
    body = client.get("/readyz").json()
    assert body["checks"]["cache"]["ok"] is True
    assert body["checks"]["cache"]["backend"] == "RedisCache"


def test_without_a_chinese_font_it_is_ready_but_degraded(client, db, fonts):
    fonts()
    body = client.get("/readyz").json()
    assert body["degraded"] == ["cjk_font"]
    assert "fonts-noto-cjk" in body["checks"]["cjk_font"]["hint"]


def test_with_the_database_down_it_is_503(client, db, fonts, monkeypatch):
    class DownConnection:
        vendor = "postgresql"

        def cursor(self):
            raise OperationalError("connection to server at 10.0.0.5 failed: Connection refused")

        def close_if_unusable_or_obsolete(self):
            pass

    monkeypatch.setattr(views, "connection", DownConnection())
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and "database" in body["degraded"]
    assert "Connection refused" in body["checks"]["database"]["error"]


def test_with_a_postgres_nobody_listens_on_the_app_server_answers_503():
    """The real thing, in a process of its own: DATABASE_URL at a closed port."""
    code = (
        "import django, json; django.setup(); from django.test import Client; "
        "r = Client().get('/readyz', HTTP_HOST='localhost'); "
        "print(json.dumps([r.status_code, r.json()]))"
    )
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_URL", "TEST_CACHE_URL", "CACHE_URL", "REDIS_URL")
        },
        "DJANGO_SETTINGS_MODULE": "guandan_cup.settings",
        "TESTING": "0",
        "DEBUG": "1",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{closed_port()}/nothing",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    status, body = json.loads(result.stdout.strip().splitlines()[-1])
    assert status == 503
    assert body["checks"]["database"]["ok"] is False
    assert body["checks"]["cache"]["ok"] is True  # the local-memory cache of one process


def test_it_only_reads(client, db):
    assert client.post("/readyz").status_code == 405


def test_the_health_checks_are_not_redirected_to_https(db, fonts, settings):
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    assert client.get("/readyz").status_code == 200
    assert client.get("/healthz").status_code == 200
    assert client.get("/").status_code == 301  # every other page is


def test_healthz_stays_the_cheap_liveness_answer(client, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.content == b"ok"


@pytest.mark.django_db(transaction=True)
def test_the_container_probe_reads_it(live_server, fonts):
    probe = ROOT / "scripts" / "readyz-probe"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "READYZ_URL": f"{live_server.url}/readyz",
        "ALLOWED_HOSTS": "localhost,cup.example.org",
    }
    result = subprocess.run(
        [sys.executable, str(probe)], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout)["checks"]["database"]["ok"] is True
    env["READYZ_URL"] = f"http://127.0.0.1:{closed_port()}/readyz"
    result = subprocess.run(
        [sys.executable, str(probe)], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and "not ready" in result.stdout
