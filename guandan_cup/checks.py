"""System checks of the project's settings: a secret key in production, trusted proxies that
are addresses, and named at all behind a proxy."""

import logging

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)


def _has_secret_key() -> bool:
    try:
        return bool(settings.SECRET_KEY)
    except ImproperlyConfigured:  # Django refuses to read an empty SECRET_KEY
        return False


def require_secret_key() -> None:
    """Called by the WSGI/ASGI entry points: never serve without a real secret key."""
    if not _has_secret_key():
        raise ImproperlyConfigured(settings.SECRET_KEY_MISSING_MESSAGE)


@checks.register(checks.Tags.security, deploy=True)
def check_secret_key(app_configs, **kwargs):
    if _has_secret_key():
        return []
    return [checks.Error(settings.SECRET_KEY_MISSING_MESSAGE, id="guandan_cup.E001")]


@checks.register(checks.Tags.security)
def check_trusted_proxies(app_configs, **kwargs):
    """Every TRUSTED_PROXIES entry is an address or a network (a typo would quietly trust
    nobody, and throttle the whole hall under the proxy's address)."""
    import ipaddress

    errors = []
    for entry in settings.TRUSTED_PROXIES:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            errors.append(
                checks.Error(
                    f"TRUSTED_PROXIES: {entry!r} is not an IP address or network.",
                    hint="Comma-separated addresses or networks, e.g. 127.0.0.1,172.30.0.0/24",
                    id="guandan_cup.E002",
                )
            )
    return errors


PROXY_NOT_NAMED = (
    "Behind a proxy (SECURE_PROXY_SSL_HEADER_ENABLED or PROXY_COUNT) but TRUSTED_PROXIES "
    "names none: X-Forwarded-For and X-Forwarded-Proto are ignored from every peer, so every "
    "visitor is counted under the proxy's address for login throttling (a few typos lock the "
    "whole hall out) and no request is taken as HTTPS (with SECURE_SSL_REDIRECT, every page "
    "redirects to its https:// address, endlessly)."
)


@checks.register(checks.Tags.security)
def check_proxy_is_named(app_configs, **kwargs):
    """Behind a proxy, TRUSTED_PROXIES names it: no proxy is trusted by default, not even
    one on loopback."""
    behind_a_proxy = settings.PROXY_COUNT > 0 or getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if not behind_a_proxy or settings.TRUSTED_PROXIES:
        return []
    return [
        checks.Warning(
            PROXY_NOT_NAMED,
            hint="Set TRUSTED_PROXIES, and gunicorn's FORWARDED_ALLOW_IPS, to the proxy's "
            "address: 172.30.0.10 in docker-compose.yml, 127.0.0.1 for a proxy on this host.",
            id="guandan_cup.W001",
        )
    ]


def report_at_start() -> None:
    """Called by the WSGI/ASGI entry points: gunicorn runs no system checks, so the ones
    about serving behind a proxy are logged when the app is loaded."""
    for warning in check_proxy_is_named(None):
        logger.warning("%s %s (%s)", warning.msg, warning.hint, warning.id)
