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
