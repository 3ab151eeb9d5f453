"""An event's version: what the live pages compare (``tournaments/live/``)."""

from __future__ import annotations

import sqlite3

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.live import stamps


class LiveVersion(models.Model):
    """The version of everything an event's live pages show (``Event``)."""

    # Grows with every change to the draw or a result: live pages and bracket.json use it
    # to tell whether anything changed since a phone last asked.
    version = models.PositiveBigIntegerField(_("版本"), default=0)
    # When the version last grew: the live pages' Last-Modified.
    changed_at = models.DateTimeField(_("最后更新"), default=timezone.now)
    # The version at the last change that was not one table's own (``bump_version``): a
    # tie's or a table's live page is the same for every version since, while its tables'
    # rows have not changed either (``live.http``: one render per such state, not per
    # version, when a thousand tables deal at once).
    wide_version = models.PositiveBigIntegerField(_("全项目版本"), default=0)

    class Meta:
        abstract = True

    def bump_version(self, *, one_table: bool = False) -> None:
        """Record that something the live pages show changed (an UPDATE … SET version =
        version + 1), and make every app server see it at once (tournaments/live/http.py).

        ``one_table``: what changed is one table's own row and record (a deal, its undo, the
        start) and nothing else of the event — its ``wide_version`` stays, so the pages of
        the ties whose tables did not change are not rendered again."""
        from django.db import connection

        now = timezone.now()
        wide = "" if one_table else ", wide_version = version + 1"
        if connection.vendor == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
            # No UPDATE … RETURNING before SQLite 3.35: two statements.
            grown = {"version": models.F("version") + 1, "changed_at": now}
            if not one_table:
                grown["wide_version"] = models.F("version") + 1
            type(self).objects.filter(pk=self.pk).update(**grown)
            self.refresh_from_db(fields=["version", "wide_version", "changed_at"])
        else:
            table = connection.ops.quote_name(self._meta.db_table)
            with connection.cursor() as cursor:
                # One statement that also answers the new versions.
                cursor.execute(
                    f"UPDATE {table} SET version = version + 1{wide}, changed_at = %s "
                    "WHERE id = %s RETURNING version, wide_version",
                    [now, self.pk],
                )
                (self.version, self.wide_version), self.changed_at = cursor.fetchone(), now
        stamps.forget_stamp(self.tournament.slug, self.slug)
