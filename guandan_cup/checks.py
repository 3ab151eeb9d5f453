"""System checks of the project's settings: a secret key in production, trusted proxies that
are addresses."""

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured


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
