"""Documents built in the background (:class:`SheetBuild`, a round's score sheets): how far
the build is, where every app server reads it, and the finished PDF."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.models.core import Event


class SheetBuild(models.Model):
    """A round's score sheets (记分表) for one kind of reader, as the event stood at one
    version: built once (``tournaments.documents.sheets``), then offered as a file until the
    event changes. The key — the event, round, links, language, address, day and version —
    is unique, so a second click while it builds finds this row instead of starting again."""

    class State(models.TextChoices):
        BUILDING = "building", _("生成中")
        DONE = "done", _("已生成")
        FAILED = "failed", _("生成失败")

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="sheet_builds", verbose_name=_("项目")
    )
    round_number = models.PositiveSmallIntegerField(_("轮次"), default=0)  # 0: every open round
    # The QR codes: the tables' players' links (an official's copy) or their public pages.
    players_links = models.BooleanField(_("选手录分链接"), default=False)
    language = models.CharField(_("语言"), max_length=16)
    base_url = models.CharField(_("网址"), max_length=200)  # scheme and host of the QR codes
    made_on = models.DateField(_("生成日期"))  # the players' links are valid for a day
    version = models.PositiveBigIntegerField(_("版本"))  # the event's version the sheets show
    state = models.CharField(
        _("状态"), max_length=16, choices=State.choices, default=State.BUILDING
    )
    done = models.PositiveIntegerField(_("已生成张数"), default=0)
    total = models.PositiveIntegerField(_("总张数"), default=0)
    error = models.CharField(_("错误"), max_length=300, blank=True)
    pdf = models.BinaryField(_("文件"), blank=True, default=b"")
    started_at = models.DateTimeField(_("开始时间"), default=timezone.now)
    # Moved on with each step of the build: a build that stopped moving has died.
    updated_at = models.DateTimeField(_("更新时间"), default=timezone.now)
    finished_at = models.DateTimeField(_("完成时间"), null=True, blank=True)

    class Meta:
        verbose_name = _("记分表生成")
        verbose_name_plural = _("记分表生成")
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "event",
                    "round_number",
                    "players_links",
                    "language",
                    "base_url",
                    "made_on",
                    "version",
                ],
                name="sheet_build_unique_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} · {self.round_number} · {self.get_state_display()}"
