"""Login throttling that a header cannot undo: X-Forwarded-For is believed only from the
proxies settings.TRUSTED_PROXIES names, and failed logins are also limited per address
across usernames (password spraying). The app server listens only where the proxy reaches
it (docker-compose.yml)."""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import checks
from django.test import Client
from django.utils import timezone
from gunicorn.config import Config

from guandan_cup import proxies
from guandan_cup.accounts import client_ip
from guandan_cup.checks import check_proxy_is_named, check_trusted_proxies

User = get_user_model()
PASSWORD = "Guandan-Cup-2014"
LOGIN = "/accounts/login/"
ROOT = Path(settings.BASE_DIR)


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def behind_a_proxy(settings):
    settings.PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["127.0.0.1", "::1", "172.30.0.0/24"]
    return settings


@pytest.fixture
def referee(db):
    return User.objects.create_user("zhouling", password=PASSWORD)


def log_in(username, password, *, remote="192.0.2.10", forwarded=None):
    headers = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    return Client().post(LOGIN, {"username": username, "password": password}, **headers)


# --------------------------------------------------------------------------- the address


def test_a_client_that_reaches_the_app_itself_is_counted_under_its_own_address(rf, behind_a_proxy):
    request = rf.get("/", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert client_ip(request) == "203.0.113.5"


def test_behind_a_trusted_proxy_the_address_is_the_one_the_proxy_appended(rf, behind_a_proxy):
    for remote in ("127.0.0.1", "172.30.0.9", "::1"):
        request = rf.get(
            "/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR="6.6.6.6, 7.7.7.7, 198.51.100.4"
        )
        assert client_ip(request) == "198.51.100.4"
    # No header (a health check from the proxy's host): the proxy itself.
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1")) == "127.0.0.1"


def test_without_proxies_in_front_the_header_is_never_read(rf, settings):
    settings.PROXY_COUNT = 0
    request = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert client_ip(request) == "127.0.0.1"


def test_with_two_proxies_each_hop_must_be_trusted_to_be_believed(rf, settings):
    settings.PROXY_COUNT = 2
    settings.TRUSTED_PROXIES = ["127.0.0.1", "10.1.0.0/16"]
    # client -> load balancer 10.1.0.7 -> nginx on loopback -> app
    chain = "6.6.6.6, 198.51.100.4, 10.1.0.7"
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=chain)) == (
        "198.51.100.4"
    )
    # The entry before an untrusted hop is that hop's word only: the hop is counted.
    chain = "6.6.6.6, 198.51.100.4, 203.0.113.77"
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=chain)) == (
        "203.0.113.77"
    )


def test_nonsense_in_the_header_counts_the_proxy_that_passed_it_on(rf, behind_a_proxy):
    request = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="unknown")
    assert client_ip(request) == "127.0.0.1"


def test_a_header_from_an_untrusted_address_is_reported_once(rf, behind_a_proxy, caplog):
    proxies._warned_untrusted.clear()
    with caplog.at_level(logging.WARNING, logger="guandan_cup.accounts"):
        for n in range(5):
            client_ip(rf.get("/", REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR=f"1.1.1.{n}"))
    assert len(caplog.records) == 1
    assert "TRUSTED_PROXIES" in caplog.records[0].getMessage()
    proxies._warned_untrusted.clear()


def test_rotating_the_header_does_not_reset_the_lockout(behind_a_proxy, referee):
    """The fault run: rotating X-Forwarded-For gave 12 failed logins and then a success."""
    for n in range(12):
        response = log_in(
            "zhouling", "wrong-password", remote="203.0.113.5", forwarded=f"10.0.{n}.1"
        )
    assert response.status_code == 429
    assert log_in(
        "zhouling", PASSWORD, remote="203.0.113.5", forwarded="10.0.99.1"
    ).status_code == (429)
    assert AccessAttempt.objects.get().ip_address == "203.0.113.5"
    # Through the proxy, a forged first entry does not help either.
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in(
            "zhouling", "wrong-password", remote="127.0.0.1", forwarded=f"9.9.9.{n}, 198.51.100.4"
        )
    response = log_in("zhouling", PASSWORD, remote="127.0.0.1", forwarded="9.9.9.99, 198.51.100.4")
    assert response.status_code == 429


@pytest.fixture
def proxy_named_nowhere(settings):
    """Proxy mode (SECURE_PROXY_SSL_HEADER_ENABLED=1) with TRUSTED_PROXIES at its default."""
    settings.PROXY_COUNT = 1
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert settings.TRUSTED_PROXIES == []  # the default: no proxy, not even loopback
    return settings


def test_a_local_client_rotating_the_header_is_locked_out_at_the_limit(
    proxy_named_nowhere, referee
):
    """The fault run: loopback was trusted by default, so anyone on the host (or anything a
    loopback port forwards) chose a new address for every attempt."""
    for n in range(settings.AXES_FAILURE_LIMIT):
        response = log_in(
            "zhouling", "wrong-password", remote="127.0.0.1", forwarded=f"198.51.100.{n}"
        )
        assert response.status_code == (200 if n < settings.AXES_FAILURE_LIMIT - 1 else 429)
    response = log_in("zhouling", PASSWORD, remote="127.0.0.1", forwarded="198.51.100.99")
    assert response.status_code == 429
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["127.0.0.1"]


def test_the_proxy_the_deployment_names_is_believed_and_only_it(rf, settings, referee):
    settings.PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["172.30.0.10"]  # docker-compose.yml's nginx
    forwarded = {"HTTP_X_FORWARDED_FOR": "198.51.100.4"}
    assert client_ip(rf.get("/", REMOTE_ADDR="172.30.0.10", **forwarded)) == "198.51.100.4"
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1", **forwarded)) == "127.0.0.1"
    log_in("zhouling", "wrong-password", remote="172.30.0.10", forwarded="198.51.100.4")
    assert AccessAttempt.objects.get().ip_address == "198.51.100.4"


def test_behind_a_proxy_that_trusted_proxies_does_not_name_the_checks_warn(settings):
    settings.PROXY_COUNT, settings.TRUSTED_PROXIES = 1, []
    [warning] = check_proxy_is_named(None)
    assert warning.level == checks.WARNING and warning.id == "guandan_cup.W001"
    assert "TRUSTED_PROXIES" in warning.msg and "172.30.0.10" in warning.hint
    settings.PROXY_COUNT = 0
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert [w.id for w in check_proxy_is_named(None)] == ["guandan_cup.W001"]
    settings.TRUSTED_PROXIES = ["172.30.0.10"]
    assert check_proxy_is_named(None) == []
    # Without a proxy (`make run`, or an app server the clients reach directly): nothing.
    settings.TRUSTED_PROXIES, settings.SECURE_PROXY_SSL_HEADER = [], None
    assert check_proxy_is_named(None) == []


def test_an_entry_of_trusted_proxies_that_is_not_an_address_fails_the_checks(settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1", "172.30.0.0/24", "proxy.local"]
    [error] = check_trusted_proxies(None)
    assert error.level == checks.ERROR and "proxy.local" in error.msg
    settings.TRUSTED_PROXIES = ["127.0.0.1", "::1", "fd00::/8"]
    assert check_trusted_proxies(None) == []


# --------------------------------------------------------------------------- spraying


def test_spraying_one_password_over_many_usernames_locks_the_address(db, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 6
    User.objects.create_user("xiaohui", password=PASSWORD)
    for n in range(6):
        response = log_in(f"user{n}", "Spring-2026!", remote="198.51.100.9")
        assert response.status_code == 200  # each username fails once only
    response = log_in("xiaohui", PASSWORD, remote="198.51.100.9")
    assert response.status_code == 429
    page = response.content.decode()
    assert "这台设备登录失败次数过多" in page and "15分钟" in page
    assert log_in("xiaohui", PASSWORD, remote="198.51.100.10").status_code == 302
    # A refused attempt counts as a failure, as django-axes counts one during a lockout.
    assert AccessAttempt.objects.filter(username="xiaohui").count() == 1
    # It lifts when the failures age past the cool-off.
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timezone.timedelta(minutes=1)
    )
    assert log_in("xiaohui", PASSWORD, remote="198.51.100.9").status_code == 302


def test_the_default_address_limit_leaves_room_for_a_hall_of_typos(db):
    assert settings.LOGIN_ADDRESS_FAILURE_LIMIT >= 4 * settings.AXES_FAILURE_LIMIT
    User.objects.create_user("xiaohui", password=PASSWORD)
    for n in range(3):  # three people at one desk, each mistyping a few times
        for _ in range(settings.AXES_FAILURE_LIMIT - 1):
            log_in(f"leader{n}", "typo", remote="192.0.2.50")
    assert log_in("xiaohui", PASSWORD, remote="192.0.2.50").status_code == 302


def test_spraying_through_the_proxy_is_counted_per_client(behind_a_proxy, settings, referee):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 4
    for n in range(4):
        log_in(f"user{n}", "x", remote="127.0.0.1", forwarded="198.51.100.9")
    assert log_in(
        "zhouling", PASSWORD, remote="127.0.0.1", forwarded="198.51.100.9"
    ).status_code == (429)
    # Another phone behind the same proxy is not affected.
    assert log_in(
        "zhouling", PASSWORD, remote="127.0.0.1", forwarded="198.51.100.8"
    ).status_code == (302)


# --------------------------------------------------------------------------- where it listens


def _service(compose: str, name: str) -> str:
    """The lines of one service of docker-compose.yml (two-space indented blocks)."""
    match = re.search(rf"^  {name}:\n((?:    .*\n|\s*\n)+)", compose, re.M)
    assert match, name
    return match.group(1)


def test_the_app_publishes_no_port_only_the_proxy_does():
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    web, proxy = _service(compose, "web"), _service(compose, "proxy")
    assert "ports:" not in web
    assert "ports:" in proxy
    for name in ("db", "redis"):
        assert "ports:" not in _service(compose, name)
    # The app believes forwarded addresses from the proxy's fixed address only.
    proxy_address = re.search(r"ipv4_address: ([\d.]+)", proxy).group(1)
    for name in ("TRUSTED_PROXIES", "FORWARDED_ALLOW_IPS"):  # the app's, and gunicorn's
        assert re.search(rf"{name}: \"?{re.escape(proxy_address)}\"?$", web, re.M), name
    # The proxy replaces X-Forwarded-For with the address it saw, never appends to a forged
    # one (its configuration: deploy/nginx/, mounted by the proxy service).
    assert "./deploy/nginx:/etc/nginx/conf.d:ro" in proxy
    nginx = "".join(p.read_text() for p in (ROOT / "deploy" / "nginx").iterdir())
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in nginx
    assert "proxy_add_x_forwarded_for" not in compose + nginx


def test_gunicorn_listens_on_loopback_unless_told(monkeypatch):
    import runpy

    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert config["bind"] == "127.0.0.1:8000"
    # …and believes no proxy's X-Forwarded-Proto unless told (gunicorn's own default is
    # loopback).
    assert config["forwarded_allow_ips"] == ""
    gunicorn_config = Config()
    gunicorn_config.set("forwarded_allow_ips", config["forwarded_allow_ips"])
    assert gunicorn_config.forwarded_allow_ips == []
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "172.30.0.10")
    assert runpy.run_path(str(ROOT / "gunicorn.conf.py"))["forwarded_allow_ips"] == "172.30.0.10"


@pytest.mark.skipif(not shutil.which("docker-compose"), reason="docker-compose not installed")
def test_docker_compose_still_parses():
    result = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "config", "--quiet"],
        cwd=ROOT,
        env={"SECRET_KEY": "placeholder", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------- other headers


@pytest.fixture
def https_behind_a_proxy(behind_a_proxy):
    behind_a_proxy.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    behind_a_proxy.SECURE_SSL_REDIRECT = True
    return behind_a_proxy


def test_https_is_believed_from_the_proxy(db, https_behind_a_proxy):
    response = Client().get("/healthz", REMOTE_ADDR="172.30.0.2", HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 200


def test_a_client_past_the_proxy_cannot_claim_https(db, https_behind_a_proxy):
    # Straight to the app server, claiming the proxy's header: it is plain HTTP, and the
    # answer is the redirect to HTTPS (a secure cookie would go out over plain HTTP).
    home = Client().get("/", REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_PROTO="https")
    assert home.status_code == 301
    assert home["Location"].startswith("https://")


def test_forwarded_headers_from_an_untrusted_peer_never_reach_a_view(rf, behind_a_proxy):
    from guandan_cup.middleware import FORWARDED_HEADERS, TrustedProxyMiddleware

    seen = {}

    def view(request):
        seen.update(request.META)
        return None

    headers = {name: "https" for name in FORWARDED_HEADERS}
    TrustedProxyMiddleware(view)(rf.get("/", REMOTE_ADDR="203.0.113.5", **headers))
    assert not set(FORWARDED_HEADERS) & set(seen)
    TrustedProxyMiddleware(view)(rf.get("/", REMOTE_ADDR="172.30.0.9", **headers))
    assert set(FORWARDED_HEADERS) <= set(seen)
