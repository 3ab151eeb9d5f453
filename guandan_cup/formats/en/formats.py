"""Dates and times on English pages: day, month, year and the 24-hour clock of the hall
(24 May 2014, 24 May 14:00), not Django's American defaults (May 24, 2014, 2 p.m.)."""

from django.conf.locale.en.formats import *  # noqa: F403  (input formats and the rest)

DATE_FORMAT = "j F Y"  # 24 May 2014
TIME_FORMAT = "H:i"  # 14:00
DATETIME_FORMAT = "j F Y, H:i"  # 24 May 2014, 14:00
YEAR_MONTH_FORMAT = "F Y"  # May 2014
MONTH_DAY_FORMAT = "j F"  # 24 May
SHORT_DATE_FORMAT = "j M Y"  # 24 May 2014
SHORT_DATETIME_FORMAT = "j M H:i"  # 24 May 14:00
