"""Dates and times on Chinese pages: Django's own zh_Hans formats, with the shorter day and
month the notices use (5月24日, 5月24日 14:00) for the day's schedule and the live pages."""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403  (input formats and the rest)

MONTH_DAY_FORMAT = "n月j日"  # 5月24日
SHORT_DATETIME_FORMAT = "n月j日 H:i"  # 5月24日 14:00
