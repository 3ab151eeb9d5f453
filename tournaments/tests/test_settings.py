import json
import os
import subprocess
import sys

from django.conf import settings


def test_the_interface_is_chinese_first_in_shanghai_time():
    assert settings.LANGUAGE_CODE == "zh-hans"
    assert settings.TIME_ZONE == "Asia/Shanghai"
    assert "en" in dict(settings.LANGUAGES)


def _manage_env(**env):
    unset = {
        "DEBUG",
        "TESTING",
        "SECRET_KEY",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
        "DJANGO_SETTINGS_MODULE",
    }
    return {**{k: v for k, v in os.environ.items() if k not in unset}, **env}


def _manage(args, **env):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=_manage_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_app_server_refuses_to_start_without_a_secret_key_in_production():
    result = subprocess.run(
        [sys.executable, "-c", "import guandan_cup.wsgi"],
        cwd=settings.BASE_DIR,
        env={k: v for k, v in _manage_env(DEBUG="0", TESTING="0").items()},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_check_deploy_names_the_missing_secret_key():
    result = _manage(["check", "--deploy"], DEBUG="0", TESTING="0", ALLOWED_HOSTS="cup.example.org")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_offline_commands_run_without_any_environment():
    result = subprocess.run(
        [sys.executable, "manage.py", "guandan_replay", "--ruleset", "nantong2014", "-"],
        input='[{"order": ["A", "A", "B", "B"]}]',
        cwd=settings.BASE_DIR,
        env=_manage_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert '"declarer": "A"' in result.stdout


def test_check_deploy_is_clean_with_production_like_settings():
    result = _manage(
        ["check", "--deploy", "--fail-level", "WARNING"],
        DEBUG="0",
        TESTING="0",
        SECRET_KEY="x7Kp2qL9vR4tY8wZ1aB5cD3eF6gH0jM2nP4sT7uV9xW1yZ3bC5dE7fG9hJ",
        ALLOWED_HOSTS="cup.example.org",
        CSRF_TRUSTED_ORIGINS="https://cup.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNINGS" not in result.stdout + result.stderr


PRODUCTION = {
    "DEBUG": "0",
    "TESTING": "0",
    "SECRET_KEY": "x7Kp2qL9vR4tY8wZ1aB5cD3eF6gH0jM2nP4sT7uV9xW1yZ3bC5dE7fG9hJ",
    "ALLOWED_HOSTS": "cup.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://cup.example.org",
}
SECURITY_SETTINGS = [
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SESSION_COOKIE_HTTPONLY",
    "SESSION_COOKIE_AGE",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_PROXY_SSL_HEADER",
    "PROXY_COUNT",
    "AXES_FAILURE_LIMIT",
]


def _settings_under(**env) -> dict:
    """The security settings as the app server would see them with ``env``."""
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n, None) for n in {SECURITY_SETTINGS!r}}}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=_manage_env(DJANGO_SETTINGS_MODULE="guandan_cup.settings", **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_uses_secure_cookies_hsts_and_https_redirects():
    values = _settings_under(**PRODUCTION)
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["SESSION_COOKIE_HTTPONLY"] is True
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert values["SECURE_HSTS_PRELOAD"] is True
    assert values["SESSION_COOKIE_AGE"] == 12 * 3600
    assert values["AXES_FAILURE_LIMIT"] == 5
    # No proxy unless the environment says so: X-Forwarded-Proto is not trusted by default.
    assert values["SECURE_PROXY_SSL_HEADER"] is None
    assert values["PROXY_COUNT"] == 0


def test_behind_a_tls_proxy_the_forwarded_protocol_and_address_are_trusted():
    values = _settings_under(**PRODUCTION, SECURE_PROXY_SSL_HEADER_ENABLED="1")
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert values["PROXY_COUNT"] == 1
    values = _settings_under(
        **PRODUCTION,
        SECURE_PROXY_SSL_HEADER_ENABLED="1",
        PROXY_COUNT="2",
        SECURE_SSL_REDIRECT="0",
        SECURE_HSTS_SECONDS="600",
    )
    assert values["PROXY_COUNT"] == 2
    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SECURE_HSTS_SECONDS"] == 600


def test_check_deploy_is_clean_behind_a_tls_proxy_too():
    result = _manage(
        ["check", "--deploy", "--fail-level", "WARNING"],
        **PRODUCTION,
        SECURE_PROXY_SSL_HEADER_ENABLED="1",
        TRUSTED_PROXIES="172.30.0.10",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNINGS" not in result.stdout + result.stderr


def test_behind_a_proxy_nobody_named_the_start_warns():
    """No proxy is trusted by default: behind one, TRUSTED_PROXIES must name it, and both
    the checks and the app server's start (gunicorn runs no checks) say so."""
    behind = {**PRODUCTION, "SECURE_PROXY_SSL_HEADER_ENABLED": "1"}
    result = _manage(["check", "--deploy"], **behind)
    assert "guandan_cup.W001" in result.stderr and "TRUSTED_PROXIES" in result.stderr
    start = [sys.executable, "-c", "import guandan_cup.wsgi"]
    for env, warned in ((behind, True), ({**behind, "TRUSTED_PROXIES": "172.30.0.10"}, False)):
        result = subprocess.run(
            start,
            cwd=settings.BASE_DIR,
            env=_manage_env(**env),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert ("TRUSTED_PROXIES names none" in result.stderr) is warned, result.stderr
    # Without a proxy (`make run`: runserver on loopback): no warning.
    assert "W001" not in _manage(["check"], DEBUG="1").stderr


def test_the_test_suite_runs_with_login_throttling_on():
    assert settings.AXES_ENABLED is True
    assert settings.AUTHENTICATION_BACKENDS[0] == "guandan_cup.accounts.LoginThrottleBackend"


def _settings_in_production(**env):
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.CACHES['default']['BACKEND'], s.SESSION_ENGINE, "
        "s.DATABASES['default'].get('CONN_MAX_AGE'), s.DATABASES['default'].get('CONN_HEALTH_CHECKS'), "
        "s.STORAGES['staticfiles']['BACKEND']]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env=_manage_env(
            DJANGO_SETTINGS_MODULE="guandan_cup.settings",
            DEBUG="0",
            TESTING="0",
            SECRET_KEY="x" * 50,
            **env,
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    import json

    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_shares_redis_reuses_connections_and_hashes_static_files():
    cache, sessions, max_age, health, static = _settings_in_production(
        REDIS_URL="redis://127.0.0.1:6379/0",
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/guandan_cup",
    )
    assert cache == "guandan_cup.cache.RedisCache"
    # Sessions stay in the database: every server sees them, and "log out everywhere"
    # ends them all (a cached copy would outlive the deletion).
    assert sessions == "django.contrib.sessions.backends.db"
    assert max_age == 60 and health is True
    assert static == "whitenoise.storage.CompressedManifestStaticFilesStorage"


def test_without_a_cache_url_one_process_caches_in_its_own_memory():
    cache, sessions, *_ = _settings_in_production(CACHE_URL="", REDIS_URL="")
    assert cache == "django.core.cache.backends.locmem.LocMemCache"
    assert sessions == "django.contrib.sessions.backends.db"


def test_gunicorn_takes_its_workers_from_the_cpu_count_unless_told(monkeypatch):
    import runpy

    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    config = runpy.run_path(str(settings.BASE_DIR / "gunicorn.conf.py"))
    assert config["workers"] == 2 * len(os.sched_getaffinity(0)) + 1
    assert config["worker_class"] == "gthread" and config["preload_app"] is True
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    assert runpy.run_path(str(settings.BASE_DIR / "gunicorn.conf.py"))["workers"] == 3
