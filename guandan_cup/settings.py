"""Settings for 掼蛋杯, read from the environment.

One file on purpose: a union's IT colleague should be able to read every knob in one place.
With nothing set the app runs in development mode on a SQLite file under ``var/``.
"""

import datetime as dt
import sys
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP


class Env(environ.Env):
    """django-environ, with two differences: a boolean it cannot read is refused at start (a
    typo such as ``SECURE_SSL_REDIRECT=ture`` must not quietly mean "off"), and a value
    starting with ``$`` is taken as it is (a secret key or password may start with one;
    django-environ would read it as the name of another variable)."""

    BOOLEAN_FALSE_STRINGS = ("false", "off", "no", "n", "0", "")

    def get_value(self, var, cast=None, default=environ.Env.NOTSET, parse_default=False):
        raw = self.ENVIRON.get(var)
        if isinstance(raw, str) and raw.startswith("$"):
            return self.parse_value(raw, cast or str)
        return super().get_value(var, cast=cast, default=default, parse_default=parse_default)

    def bool(self, var, default=environ.Env.NOTSET):
        raw = self.ENVIRON.get(var)
        if raw is not None and raw.strip().lower() not in (
            *self.BOOLEAN_TRUE_STRINGS,
            *self.BOOLEAN_FALSE_STRINGS,
        ):
            raise ImproperlyConfigured(
                f"{var}={raw!r} is not a boolean; use 1/0, true/false, yes/no."
            )
        return super().bool(var, default=default)

    def names(self, var, default):
        """A comma-separated list, each item stripped, empty items dropped."""
        return [item.strip() for item in self.list(var, default=default) if item.strip()]


env = Env()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))

DEBUG = env.bool("DEBUG", default=False)
# Under pytest the suite runs with production-like settings, minus HTTPS redirects.
TESTING = env.bool("TESTING", default="pytest" in sys.modules)

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY and (DEBUG or TESTING):
    # Development and tests only: a fixed key so sessions survive restarts of `make run`.
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production-guandan"
# In production a missing key stops the app server at start (guandan_cup/wsgi.py) and fails
# `check --deploy` with a clear message; offline commands such as guandan_replay still run.
SECRET_KEY_MISSING_MESSAGE = (
    "SECRET_KEY is not set. Set it to a long random string in the environment, e.g. "
    "SECRET_KEY=$(python -c 'import secrets; print(secrets.token_urlsafe(50))'), "
    "or set DEBUG=1 for local development."
)

ALLOWED_HOSTS = env.names("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env.names("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "axes",
    "django_htmx",
    "guandan_cup",
    "tournaments",
    "scoring",
]

MIDDLEWARE = [
    # First: forwarded headers (X-Forwarded-Proto/-For …) only from TRUSTED_PROXIES.
    "guandan_cup.middleware.TrustedProxyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A live page's poll answered from this process's copy, before the rest (live/fast.py).
    "tournaments.live.fast.LiveFastPathMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "guandan_cup.middleware.ChineseFirstLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Before the CSRF check, which reads (and so stores) the whole body of a form post.
    "guandan_cup.middleware.RequestSizeLimitMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "guandan_cup.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # The reader's punctuation ({% colon %}, {% sep %} …) in every template.
            "builtins": ["guandan_cup.templatetags.punctuation"],
        },
    },
]

WSGI_APPLICATION = "guandan_cup.wsgi.application"

# DATABASE_URL: postgres://user:pass@host:5432/name[?sslmode=require] or sqlite:///path.db
# (parsed by django-environ); unset or empty, a SQLite file under VAR_DIR.
DATABASE_URL = env.str("DATABASE_URL", default="")
if DATABASE_URL:
    _engine = env.DB_SCHEMES.get(DATABASE_URL.partition(":")[0])
    if _engine not in ("django.db.backends.postgresql", "django.db.backends.sqlite3"):
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme {DATABASE_URL.partition(':')[0]!r} is not supported; "
            "use postgres://user@host:5432/name or sqlite:///path/to/file.db"
        )
    DATABASES = {"default": env.db_url_config(DATABASE_URL)}
    if not DATABASES["default"]["NAME"]:
        raise ImproperlyConfigured("DATABASE_URL names no database (…:5432/NAME).")
else:
    DATABASES = {
        "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": VAR_DIR / "guandan_cup.sqlite3"}
    }
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # Reuse connections between requests; health checks drop ones the server closed.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
else:
    # Zero-setup default: make sure the SQLite file's folder exists on a fresh clone.
    VAR_DIR.mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache holds each event's version stamp and the live fragments rendered for it
# (tournaments/live/http.py). Local memory by default: one process, development. In production
# set CACHE_URL (or REDIS_URL) to one Redis that every app server shares — nothing the
# live pages need is then kept in a single process. The cache is an optimisation, never a
# dependency: with Redis unreachable every operation degrades to a miss or a no-op
# (guandan_cup/cache.py) and the pages are rendered from the database.
# Tests use local memory whatever CACHE_URL says (the Redis test points the cache at
# REDIS_URL itself), unless TEST_CACHE_URL names a cache: `make test-cache-down` runs the
# live, write and confirmation tests again with it at a closed port.
CACHE_URL = (
    env.str("TEST_CACHE_URL", default="")
    if TESTING
    else (env.str("CACHE_URL", default="") or env.str("REDIS_URL", default=""))
)


def cache_config(url: str) -> dict:
    """A CACHES entry from ``redis://host:6379/0`` (also ``rediss://``, ``unix://``),
    ``locmem://`` or ``dummy://``; django-environ parses the URL."""
    scheme = url.partition(":")[0]
    if scheme == "unix":
        return {"BACKEND": "guandan_cup.cache.RedisCache", "LOCATION": url}
    if scheme in ("redis", "rediss"):
        # Django's own Redis backend, keeping its client object (guandan_cup/cache.py).
        return {**env.cache_url_config(url), "BACKEND": "guandan_cup.cache.RedisCache"}
    if scheme in ("locmem", "dummy"):
        config = env.cache_url_config(f"{scheme}cache{url[len(scheme) :]}")
        return {**config, "LOCATION": config["LOCATION"] or "guandan-cup"}
    raise ImproperlyConfigured(
        f"cache URL scheme {scheme!r} is not supported; "
        "use redis://host:6379/0, locmem:// or dummy://"
    )


CACHES = {
    "default": {
        **(
            cache_config(CACHE_URL)
            if CACHE_URL
            else {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "LOCATION": "guandan-cup",
            }
        ),
        "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="gc"),
        "TIMEOUT": 3600,
    }
}
# How long a process may reuse the event version stamp it last read from the cache before
# asking again (tournaments/live/http.py): every app server sees a change within this time.
LIVE_STAMP_MEMO_SECONDS = 0 if TESTING else env.float("LIVE_STAMP_MEMO_SECONDS", default=1.0)
# A live page whose render took at least LIVE_RENDER_PACE_FROM seconds (a 2,048-pair Swiss
# bracket: seconds) is rendered again at most every LIVE_RENDER_PACE × that long, on all app
# servers together; meanwhile the latest copy is served (tournaments/live/http.py). So such
# a page takes at most a quarter of one core however fast results come (0: every version).
LIVE_RENDER_PACE = 0 if TESTING else env.float("LIVE_RENDER_PACE", default=4.0)
LIVE_RENDER_PACE_FROM = env.float("LIVE_RENDER_PACE_FROM", default=0.25)

# Accounts (docs/permissions.md). Organisers, chief referees and team leaders have real
# passwords: at least 10 characters, not like the username, not common, not all digits.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # django-axes first: it refuses a locked-out username+address before the password is
    # even checked.
    "guandan_cup.accounts.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Login throttling (django-axes): 5 failures for one username from one address lock that
# pair out for 15 minutes; a success clears the count. Another address, or another
# username, is not affected, so a typo-prone referee does not lock out the whole hall.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = dt.timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "guandan_cup.accounts.lockout_response"
AXES_CLIENT_IP_CALLABLE = "guandan_cup.accounts.client_ip"
AXES_VERBOSE = False
# Behind a reverse proxy every request comes from the proxy: the client's address is the
# one the proxy appended to X-Forwarded-For (PROXY_COUNT proxies in front of the app).
PROXY_COUNT = env.int(
    "PROXY_COUNT", default=1 if env.bool("SECURE_PROXY_SSL_HEADER_ENABLED", default=False) else 0
)
# …but X-Forwarded-For (and -Proto …) is believed only from these proxies (addresses or
# networks, comma-separated): a client that reaches the app server itself cannot choose the
# address it is throttled under. None unless the deployment names its proxy, not even
# loopback: anyone with a shell on the host (or anything a loopback port forwards) would
# otherwise rotate the header past the login limit. docker-compose.yml names its nginx;
# behind a proxy without it a system check warns (guandan_cup/checks.py). The app server
# should listen only where the proxy reaches it (docker-compose.yml: the compose network;
# README: two servers).
TRUSTED_PROXIES = env.names("TRUSTED_PROXIES", default=[])
# Password spraying: this many failed logins from one address within the cool-off, whatever
# the usernames, lock that address out (0: no such limit).
LOGIN_ADDRESS_FAILURE_LIMIT = env.int("LOGIN_ADDRESS_FAILURE_LIMIT", default=20)

# Sessions live in the database, so "log out everywhere" can find and end them all, and
# every app server sees the same logins. A login lasts one tournament day; a referee's
# one-time link ends at midnight of its day.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_AGE = 12 * 60 * 60
# A one-time link to choose a new password (guandan_cup/passwords.py) lasts no longer.
PASSWORD_RESET_TIMEOUT = 12 * 60 * 60
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_FAILURE_VIEW = "guandan_cup.accounts.csrf_failure"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
# Our own date formats per language (guandan_cup/formats/): the notices' short 5月24日 14:00
# in Chinese, a 24-hour day-month-year in English.
FORMAT_MODULE_PATH = ["guandan_cup.formats"]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not (DEBUG or TESTING)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# In development and tests serve straight from the source folders (no collectstatic).
WHITENOISE_USE_FINDERS = DEBUG or TESTING
WHITENOISE_AUTOREFRESH = DEBUG or TESTING

# Content Security Policy: everything is served by us (offline LAN, no CDN). No inline
# script or style is allowed; htmx gets its nonce through {% htmx_script %}.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

# Production hardening. Behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER_ENABLED=1.
if env.bool("SECURE_PROXY_SSL_HEADER_ENABLED", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not (DEBUG or TESTING))
# The health checks of the proxy and the container ask over plain HTTP, inside.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not (DEBUG or TESTING))
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not (DEBUG or TESTING))
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Uploads: the Excel registration form is the only file a user sends (5 MB at most, checked
# again by tournaments.registration.spreadsheets); anything much larger is refused before
# it is read.
MAX_REQUEST_BYTES = env.int("MAX_REQUEST_BYTES", default=6 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 6 * 1024 * 1024


LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"level": "WARNING"},
        # WeasyPrint narrates every rendering step at INFO.
        "weasyprint": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
        # django-axes narrates every login at INFO; failures and lockouts are WARNING.
        "axes": {"level": "WARNING"},
    },
}
