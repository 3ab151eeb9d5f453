"""The draw (抽签) and what it produces: stages (阶段), rounds (轮) and matches (场).

A match is a tie between two entries: for guandan teams, three table matches at once (the
tables live in ``scoring``); for pairs and singles, one table or one board/court. Knockout
matches are wired to the next match their winner (and, for the semi-finals, their loser)
moves on to, so confirming a result is "fill in the winner, follow the wire".
"""

from django.conf import settings
from django.db import models
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from guandan_cup.words import plain, versus
from tournaments.draw.rules.common import THIRD_PLACE_NAME, name_words
from tournaments.models.core import Event, Venue
from tournaments.models.entries import Entry

# A match's note as the draw stores it, in Chinese whatever the language of the page that
# made it; Match.note_label words it for the reader. Other notes are reasons people typed.
BYE_NOTE = "轮空"
BOTH_OUT_NOTE = "双方均已退出"


def out_note(entry) -> str:
    """The walkover note of a match ``entry`` is out of, as stored (王芳已退赛)."""
    with translation.override("zh-hans"):
        return f"{entry.name}{entry.get_status_display()}"


def worded(name: str) -> str:
    """A stored stage, round or group name in the reader's language."""
    return plain(name_words(name))


class Draw(models.Model):
    """One draw of an event, kept for the record even after it is undone."""

    class Method(models.TextChoices):
        RANDOM = "random", _("系统随机抽签")
        PHYSICAL = "physical", _("现场抽签录入")

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="draws", verbose_name=_("项目")
    )
    method = models.CharField(_("抽签方式"), max_length=16, choices=Method.choices)
    # The random draw's seed: re-running the draw with it gives the same bracket.
    seed = models.BigIntegerField(_("随机种子"), null=True, blank=True)
    # entry id -> lot number (physical) / seed number (seeded entries), as JSON objects.
    lots = models.JSONField(_("签号"), default=dict, blank=True)
    seeds = models.JSONField(_("种子"), default=dict, blank=True)
    plan = models.JSONField(_("赛制"), default=dict, help_text=_("阶段与赛制设置"))
    slots = models.JSONField(
        _("签位"), default=list, help_text=_("第一轮签位的参赛队id，null为轮空")
    )
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("抽签人"),
    )
    made_at = models.DateTimeField(_("抽签时间"), default=timezone.now)
    undone_at = models.DateTimeField(_("撤销时间"), null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("撤销人"),
    )

    class Meta:
        ordering = ["-made_at", "-id"]
        verbose_name = _("抽签记录")
        verbose_name_plural = _("抽签记录")

    def __str__(self) -> str:
        return f"{self.event} · {self.get_method_display()} · {self.made_at:%Y-%m-%d %H:%M}"


class Stage(models.Model):
    class Format(models.TextChoices):
        KNOCKOUT = "knockout", _("淘汰赛")
        GROUPS = "groups", _("小组循环赛")
        SWISS = "swiss", _("积分编排（瑞士制）")

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="stages", verbose_name=_("项目")
    )
    draw = models.ForeignKey(
        Draw, on_delete=models.CASCADE, related_name="stages", verbose_name=_("抽签")
    )
    order = models.PositiveSmallIntegerField(_("顺序"), default=1)
    name = models.CharField(_("阶段名称"), max_length=50)
    format = models.CharField(_("赛制"), max_length=16, choices=Format.choices)
    settings = models.JSONField(_("设置"), default=dict, blank=True)

    class Meta:
        ordering = ["event_id", "order"]
        verbose_name = _("阶段")
        verbose_name_plural = _("阶段")

    def __str__(self) -> str:
        return f"{self.event.name} · {self.name}"

    @property
    def label(self) -> str:
        """The stage's name in the reader's language (淘汰赛, Knockout)."""
        return worded(self.name)


class Round(models.Model):
    stage = models.ForeignKey(
        Stage, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("阶段")
    )
    number = models.PositiveSmallIntegerField(_("轮次"))
    name = models.CharField(_("名称"), max_length=50)
    starts_at = models.DateTimeField(_("开始时间"), null=True, blank=True)

    class Meta:
        ordering = ["stage_id", "number"]
        verbose_name = _("轮")
        verbose_name_plural = _("轮")
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="round_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.stage} · {self.name}"

    @property
    def label(self) -> str:
        """The round's name in the reader's language (1/4决赛, Quarter-final; 第2轮, Round 2)."""
        return worded(self.name)


class Match(models.Model):
    """A tie (场) between two entries, or a bye."""

    class Status(models.TextChoices):
        PENDING = "pending", _("未开始")
        IN_PROGRESS = "in_progress", _("进行中")
        FINISHED = "finished", _("已结束")
        WALKOVER = "walkover", _("不战而胜")
        BYE = "bye", _("轮空")

    class Side(models.TextChoices):
        HOME = "home", _("主")
        AWAY = "away", _("客")

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="matches", verbose_name=_("轮")
    )
    index = models.PositiveIntegerField(_("序号"), help_text=_("在本轮中的位置，从0开始"))
    group = models.CharField(_("小组"), max_length=16, blank=True)
    is_third_place = models.BooleanField(_("季军争夺战"), default=False)
    home = models.ForeignKey(
        Entry,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("主队"),
    )
    away = models.ForeignKey(
        Entry,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("客队"),
    )
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    winner = models.CharField(_("胜方"), max_length=4, choices=Side.choices, blank=True)
    home_score = models.PositiveSmallIntegerField(_("主队得分"), default=0)
    away_score = models.PositiveSmallIntegerField(_("客队得分"), default=0)
    # Level points (级分) or level difference for round-robin and Swiss tie-breaks.
    home_level_points = models.FloatField(_("主队级分"), default=0)
    away_level_points = models.FloatField(_("客队级分"), default=0)
    result_note = models.CharField(_("说明"), max_length=200, blank=True)
    # Knockout wiring: where the winner / the loser goes next.
    winner_to = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("胜者进入"),
    )
    winner_to_side = models.CharField(max_length=4, choices=Side.choices, blank=True)
    loser_to = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("负者进入"),
    )
    loser_to_side = models.CharField(max_length=4, choices=Side.choices, blank=True)
    # Schedule: where and when (three consecutive tables for a guandan team tie).
    venue = models.ForeignKey(
        Venue,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("场地"),
    )
    first_table = models.PositiveSmallIntegerField(_("桌号"), null=True, blank=True)
    scheduled_at = models.DateTimeField(_("开始时间"), null=True, blank=True)
    finished_at = models.DateTimeField(_("结束时间"), null=True, blank=True)
    referee = models.ForeignKey(
        "tournaments.Official",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="refereed_matches",
        verbose_name=_("裁判"),
        help_text=_("负责本场各台的裁判"),
    )
    # Set when a correction upstream changed who should have played this match after it
    # was already decided: the chief referee has to look at it (裁判长复核).
    # The organiser kept a clash of this match's time, place or official on purpose: the
    # plan shows it marked until it is resolved.
    clash_accepted = models.BooleanField(_("接受冲突"), default=False)
    # A hall that calls by queue (Venue.by_queue): when this match was called to its court,
    # whether the chief referee holds it back, and its place in the queue set by the chief.
    called_at = models.DateTimeField(_("叫号时间"), null=True, blank=True)
    queue_held = models.BooleanField(_("暂缓叫号"), default=False)
    queue_position = models.IntegerField(_("叫号顺序"), null=True, blank=True)
    needs_review = models.BooleanField(_("待复核"), default=False)
    review_note = models.CharField(_("复核说明"), max_length=300, blank=True)

    class Meta:
        ordering = ["round_id", "group", "index"]
        verbose_name = _("场次")
        verbose_name_plural = _("场次")
        constraints = [
            models.UniqueConstraint(
                fields=["round", "group", "index"], name="match_unique_position"
            )
        ]

    def __str__(self) -> str:
        unknown = _("轮空") if self.status == self.Status.BYE else _("待定")
        home = self.home.name if self.home_id else unknown
        away = self.away.name if self.away_id else unknown
        return f"{home}{versus()}{away}"

    @property
    def round_label(self) -> str:
        """The match's round as people call it: the third-place match is 季军争夺战, not the
        决赛 it is played beside."""
        return worded(THIRD_PLACE_NAME) if self.is_third_place else self.round.label

    @property
    def note_label(self) -> str:
        """The match's note in the reader's language: the draw's own notes worded, a reason
        people typed as it is."""
        note = self.result_note
        if note == BYE_NOTE:
            return str(_("轮空"))
        if note == BOTH_OUT_NOTE:
            return str(_("双方均已退出"))
        for side in (self.home, self.away) if self.status == self.Status.WALKOVER else ():
            if side is not None and note == out_note(side):
                status = side.get_status_display()
                return str(_("%(name)s%(status)s") % {"name": side.name, "status": status})
        return note

    @property
    def group_label(self) -> str:
        """The match's group in the reader's language (A组, Group A); "" outside groups."""
        return worded(self.group) if self.group else ""

    @property
    def is_decided(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.WALKOVER, self.Status.BYE)

    def entry(self, side: str):
        return self.home if side == self.Side.HOME else self.away

    @property
    def winner_entry(self):
        return self.entry(self.winner) if self.winner else None

    @property
    def loser_entry(self):
        if not self.winner:
            return None
        return self.away if self.winner == self.Side.HOME else self.home
