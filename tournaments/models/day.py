"""The day as one plan (全天赛程): what the organiser states once for the whole day — its
hours and breaks (:class:`DayPlan`), which courts or tables of which hall each event may use
(:class:`EventHall`) — and the officials placed on a hall for a time (:class:`HallDuty`).
The planner itself is :mod:`tournaments.day.planner`."""

from __future__ import annotations

import datetime as dt

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.models.core import Event, Official, Tournament, Venue


class DayPlan(models.Model):
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="day_plan", verbose_name=_("比赛")
    )
    starts_at = models.TimeField(_("当天开始"), default=dt.time(8, 30))
    ends_at = models.TimeField(_("当天结束"), default=dt.time(17, 30))
    # "12:00-13:30" or several, separated by commas: no match is planned across a break.
    breaks = models.CharField(_("休息时段"), max_length=200, blank=True, default="12:00-13:30")
    changeover_minutes = models.PositiveSmallIntegerField(_("换场时间（分钟）"), default=5)
    planned_at = models.DateTimeField(_("排定时间"), null=True, blank=True)

    class Meta:
        verbose_name = _("全天赛程")
        verbose_name_plural = _("全天赛程")

    def __str__(self) -> str:
        return str(self.tournament)


class EventHall(models.Model):
    """An event may use these courts or tables of a hall (all of them when ``places`` is
    blank). An event with none uses its own venue, all of it."""

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="halls", verbose_name=_("项目")
    )
    venue = models.ForeignKey(
        Venue, on_delete=models.CASCADE, related_name="event_uses", verbose_name=_("场地")
    )
    places = models.CharField(_("可用桌号/场号"), max_length=200, blank=True)

    class Meta:
        ordering = ["event_id", "id"]
        verbose_name = _("项目场地")
        verbose_name_plural = _("项目场地")
        constraints = [models.UniqueConstraint(fields=["event", "venue"], name="event_hall_unique")]

    def __str__(self) -> str:
        return f"{self.event} · {self.venue} {self.places}"


class HallDuty(models.Model):
    """An official on a hall for a time window: in it they enter and confirm any match there
    (two referees for twenty tables), instead of one official per match."""

    official = models.ForeignKey(
        Official, on_delete=models.CASCADE, related_name="duties", verbose_name=_("裁判")
    )
    venue = models.ForeignKey(
        Venue, on_delete=models.CASCADE, related_name="duties", verbose_name=_("场地")
    )
    starts_at = models.DateTimeField(_("开始"))
    ends_at = models.DateTimeField(_("结束"))

    class Meta:
        ordering = ["starts_at", "venue_id", "official_id"]
        verbose_name = _("场地执裁")
        verbose_name_plural = _("场地执裁")

    def __str__(self) -> str:
        return f"{self.official.name} · {self.venue} {self.starts_at:%H:%M}–{self.ends_at:%H:%M}"
