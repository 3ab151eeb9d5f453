"""WSGI entry point (gunicorn guandan_cup.wsgi:application)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_cup.settings")

application = get_wsgi_application()

from guandan_cup.checks import report_at_start, require_secret_key  # noqa: E402  (needs settings)

require_secret_key()
report_at_start()
