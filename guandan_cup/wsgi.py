"""WSGI entry point (gunicorn guandan_cup.wsgi:application)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_cup.settings")

application = get_wsgi_application()

from guandan_cup.checks import require_secret_key  # noqa: E402  (needs settings loaded)

require_secret_key()
