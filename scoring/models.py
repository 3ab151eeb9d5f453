"""Table results (台/桌): what referees record event by event (deals, games, penalties,
forfeits), the reports and check-ins, and the audit trail.

A table match's state is never stored as the truth: it is the replay of its recorded events
through its sport's engine (``scoring.engines.scorer``). ``TableMatch.state`` is a cache of
that replay for lists and boards; every write recomputes it.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from scoring.engines.board import Words
from tournaments.models import Match, Pair, Tournament

# The people a table page shows: both pairs' players.
PEOPLE = ("home_pair__first", "home_pair__second", "away_pair__first", "away_pair__second")


class TableMatchQuerySet(models.QuerySet):
    def with_people(self, *more: str) -> "TableMatchQuerySet":
        """Both pairs and their players (and ``more`` relations) in the same query."""
        return self.select_related(*PEOPLE, *more)


class InPlayManager(models.Manager.from_queryset(TableMatchQuerySet)):
    """The tables that count: a tie voided for a replay (作废重赛) keeps its old tables and
    their events as its record (``TableMatch.kept``), out of every list, board and result."""

    def get_queryset(self):
        return super().get_queryset().filter(voided_at__isnull=True)


class TableMatch(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("进行中")
        SUBMITTED = "submitted", _("待确认")
        CONFIRMED = "confirmed", _("已确认")
        # The tie was decided on its other tables (2 of 3): this one stops where it was.
        NOT_PLAYED = "not_played", _("不再进行")

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="tables", verbose_name=_("场次")
    )
    number = models.PositiveSmallIntegerField(_("台序"), help_text=_("团体赛中的第几台（1–3）"))
    home_pair = models.ForeignKey(
        Pair,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("主方（A）"),
    )
    away_pair = models.ForeignKey(
        Pair,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("客方（B）"),
    )
    table_number = models.PositiveSmallIntegerField(_("桌号"), null=True, blank=True)
    referee = models.ForeignKey(
        "tournaments.Official",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="refereed_tables",
        verbose_name=_("裁判"),
    )
    status = models.CharField(_("状态"), max_length=16, choices=Status.choices, default=Status.OPEN)
    # Optimistic locking: every write bumps it; a device writing on an old version is refused.
    version = models.PositiveIntegerField(_("版本"), default=0)
    state = models.JSONField(_("状态缓存"), default=dict, blank=True)
    winner = models.CharField(_("胜方"), max_length=1, blank=True)  # "A" (home) / "B" (away)
    started_at = models.DateTimeField(_("开始时间"), null=True, blank=True)  # the first record
    # The referee's 开始 at the table: where a rule set's time limit counts from it
    # (``time_from`` "start"); else the first record stands in.
    start_called_at = models.DateTimeField(_("宣布开始时间"), null=True, blank=True)
    time_called_at = models.DateTimeField(_("鸣哨时间"), null=True, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("提交人"),
    )
    submitted_at = models.DateTimeField(_("提交时间"), null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("确认人"),
    )
    confirmed_at = models.DateTimeField(_("确认时间"), null=True, blank=True)
    # The players' link (扫码录分): the side whose players submitted the result, and the side
    # whose players confirmed it ("A"/"B"; blank when an official did).
    submitted_side = models.CharField(_("提交方选手"), max_length=1, blank=True)
    confirmed_side = models.CharField(_("确认方选手"), max_length=1, blank=True)
    # The chief referee locks a table: its players' link enters nothing from then on.
    players_locked_at = models.DateTimeField(_("锁定选手录入时间"), null=True, blank=True)
    players_locked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("锁定人"),
    )
    # 作废重赛: the tie is played again on new tables; this one stays as the record.
    voided_at = models.DateTimeField(_("作废时间"), null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("作废人"),
    )

    objects = InPlayManager()
    kept = TableMatchQuerySet.as_manager()  # the voided tables too, for the record

    class Meta:
        ordering = ["match_id", "number"]
        base_manager_name = "kept"
        verbose_name = _("台")
        verbose_name_plural = _("台")
        constraints = [
            models.UniqueConstraint(
                fields=["match", "number"],
                condition=models.Q(voided_at__isnull=True),
                name="table_unique_number",
            )
        ]

    def __str__(self) -> str:
        return f"{self.match} · {_('第%(n)s台') % {'n': self.number}}"

    @property
    def is_over(self) -> bool:
        return bool(self.state.get("match_over"))

    def save_new_version(self, *fields: str) -> None:
        """Save ``fields`` as the table's next version: the one place a write bumps
        ``version``, so a device still on the old one is refused (the services hold the
        row locked, or compare the version they read, around it)."""
        self.version += 1
        self.save(update_fields=[*fields, "version"])


class TableEvent(models.Model):
    """One recorded event of a table, in its engine's JSON format (Guandan: the public
    examples', ``scoring/engines/tests/data/guandan-vectors.json``). Undone
    events are kept (``undone_at``) and skipped by the replay: nothing is deleted."""

    table = models.ForeignKey(
        TableMatch, on_delete=models.CASCADE, related_name="events", verbose_name=_("台")
    )
    seq = models.PositiveIntegerField(_("序号"))
    payload = models.JSONField(_("内容"))
    # The phone's key for this submission: a resent request records nothing twice.
    key = models.CharField(_("提交标识"), max_length=64)
    reason = models.CharField(_("原因"), max_length=200, blank=True)
    reported_by = models.CharField(_("举报/报告人"), max_length=100, blank=True)
    # Entered by the players at the table from its link (created_by is then empty).
    by_players = models.BooleanField(_("选手录入"), default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("录入人"),
    )
    created_at = models.DateTimeField(_("录入时间"), default=timezone.now)
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
        ordering = ["table_id", "seq"]
        verbose_name = _("记录")
        verbose_name_plural = _("记录")
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="table_event_unique_seq"),
            models.UniqueConstraint(fields=["table", "key"], name="table_event_unique_key"),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.seq}"


class Report(models.Model):
    """A reported minor violation (举报), ruled on by the arbitration panel (Anhui:
    三次举报…属实，实施扣级 — see docs/rules.md, penalty sizes)."""

    table = models.ForeignKey(
        TableMatch, on_delete=models.CASCADE, related_name="reports", verbose_name=_("台")
    )
    team = models.CharField(_("被举报方"), max_length=1)  # A / B
    description = models.CharField(_("内容"), max_length=200)
    reported_by = models.CharField(_("举报人"), max_length=100, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    upheld = models.BooleanField(_("属实"), null=True, blank=True)
    ruled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    ruled_at = models.DateTimeField(null=True, blank=True)
    # The penalty that the third upheld report led to, once applied.
    penalty = models.ForeignKey(
        TableEvent, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The phone's key for this submission: a resent report is recorded once.
    key = models.CharField(_("提交标识"), max_length=64, blank=True)

    class Meta:
        ordering = ["table_id", "created_at"]
        verbose_name = _("举报")
        verbose_name_plural = _("举报")
        constraints = [
            models.UniqueConstraint(
                fields=["table", "key"], condition=~models.Q(key=""), name="report_unique_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.table} · {self.team} · {self.description}"


class TableCall(models.Model):
    """呼叫裁判: the players at a table ask for the referee from its link — they disagree
    with the result submitted (有异议), or need a ruling the link cannot make (a penalty, a
    forfeit). Shown on the desk and on the hall's officials' 我的台 until an official
    resolves it."""

    class Kind(models.TextChoices):
        DISPUTE = "dispute", _("对结果有异议")
        HELP = "help", _("需要裁判")

    table = models.ForeignKey(
        TableMatch, on_delete=models.CASCADE, related_name="calls", verbose_name=_("台")
    )
    kind = models.CharField(_("呼叫原因"), max_length=16, choices=Kind.choices)
    side = models.CharField(_("呼叫方"), max_length=1, blank=True)  # A / B, blank: the table
    note = models.CharField(_("说明"), max_length=200, blank=True)
    # The phone's key: a call sent twice (a resend) is one call.
    key = models.CharField(_("提交标识"), max_length=64)
    created_at = models.DateTimeField(_("呼叫时间"), default=timezone.now)
    resolved_at = models.DateTimeField(_("处理时间"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("处理人"),
    )

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("呼叫裁判")
        verbose_name_plural = _("呼叫裁判")
        constraints = [
            models.UniqueConstraint(fields=["table", "key"], name="table_call_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.table} · {self.get_kind_display()}"


class CheckIn(models.Model):
    """签到: a pair present at its table for a tie."""

    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="checkins", verbose_name=_("场次")
    )
    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="+", verbose_name=_("对"))
    checked_in_at = models.DateTimeField(_("签到时间"), default=timezone.now)
    checked_in_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("签到")
        verbose_name_plural = _("签到")
        constraints = [models.UniqueConstraint(fields=["match", "pair"], name="checkin_unique")]

    def __str__(self) -> str:
        return f"{self.match} · {self.pair}"


class AuditEntry(models.Model):
    """Who did what, when, before and after. Append-only: no code path updates or deletes."""

    class Action(models.TextChoices):
        """What ``action`` records (the services write these codes; pages show the label)."""

        EVENT = "event", _("录入")
        UNDO = "undo", _("撤销")
        SUBMIT = "submit", _("提交结果")
        CONFIRM = "confirm", _("确认结果")
        CORRECT = "correct", _("更正记录")
        TIE_DECIDED = "tie_decided", _("本场结果")
        TIE_REOPENED = "tie_reopened", _("本场重新进行")
        TIE_CORRECTED = "tie_corrected", _("本场结果更正")
        NOT_PLAYED = "not_played", _("不再进行")
        RESUMED = "resumed", _("继续比赛")
        RULING = "ruling", _("仲裁裁决")
        REPLAY = "replay", _("作废重赛")
        WHISTLE = "whistle", _("鸣哨")
        START = "start", _("宣布开始")
        CHECK_IN = "check_in", _("签到")
        REPORT = "report", _("举报")
        REPORT_RULING = "report_ruling", _("举报裁定")
        CALL = "call", _("呼叫裁判")
        CALL_RESOLVED = "call_resolved", _("处理呼叫")
        REOPEN = "reopen", _("退回重录")
        LOCK = "lock", _("锁定选手录入")
        UNLOCK = "unlock", _("解除锁定")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="audit", verbose_name=_("比赛")
    )
    table = models.ForeignKey(
        TableMatch,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit",
        verbose_name=_("台"),
    )
    match = models.ForeignKey(
        Match,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("场次"),
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("操作人"),
    )
    action = models.CharField(_("操作"), max_length=32)
    # Done by the players at the table from its link (no login: ``actor`` is empty).
    by_players = models.BooleanField(_("选手操作"), default=False)
    # What happened in Chinese (search, export, entries written before ``words``) …
    summary = models.CharField(_("摘要"), max_length=300, blank=True)
    # … and as its message and arguments (``Words.to_json``), worded for each reader.
    words = models.JSONField(_("摘要（词句）"), null=True, blank=True)
    before = models.JSONField(_("之前"), null=True, blank=True)
    after = models.JSONField(_("之后"), null=True, blank=True)
    reason = models.CharField(_("原因"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("时间"), default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("操作记录")
        verbose_name_plural = _("操作记录")

    def __str__(self) -> str:
        return f"{self.created_at:%H:%M:%S} {self.action_label} {self.summary}"

    @property
    def pairing(self) -> dict | None:
        """The pairing a ruling on a match was made on, kept with it since rulings keep it
        (``{"home": {"id", "name"}, "away": …}``, a side not known None): the match's
        entries may change afterwards (作废重赛, a correction upstream). None for other
        entries and for rulings recorded before."""
        kept = self.before.get("pairing") if isinstance(self.before, dict) else None
        return kept if isinstance(kept, dict) else None

    @property
    def said(self) -> Words | str:
        """What happened as the reader reads it (``{{ entry.said|say }}``): the words kept
        with the entry, or the Chinese summary of an entry written before they were."""
        return Words.from_json(self.words) if self.words else self.summary

    @property
    def action_label(self) -> str:
        """The action in words (a code no longer written reads as 其他操作, never as code)."""
        if self.action in self.Action.values:
            return str(self.Action(self.action).label)
        return str(_("其他操作"))
