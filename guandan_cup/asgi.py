"""ASGI entry point."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_cup.settings")

application = get_asgi_application()

from guandan_cup.checks import report_at_start, require_secret_key  # noqa: E402  (needs settings)

require_secret_key()
report_at_start()
