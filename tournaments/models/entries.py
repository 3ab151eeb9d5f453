"""Who enters a tournament: units (单位, 联队), players (选手), entries (参赛队/选手) and pairs (对)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from guandan_cup.words import listing
from tournaments.models.core import Event, Tournament
from tournaments.models.names import InvisiblesKeptOut, KeyedName


class Unit(KeyedName):
    class Kind(models.TextChoices):
        UNION_GROUP = "union_group", _("工会小组")
        DEPARTMENT = "department", _("系")
        LAB_CENTRE = "lab_centre", _("实验中心")
        OFFICE = "office", _("部门")
        JOINT = "joint", _("联队")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="units", verbose_name=_("比赛")
    )
    name = models.CharField(_("单位名称"), max_length=100)
    kind = models.CharField(_("类型"), max_length=32, choices=Kind.choices)
    members = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="joint_teams",
        verbose_name=_("联队组成单位"),
        help_text=_("仅联队：组成该联队的单位，例如教务、物理"),
    )
    leaders = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="led_units", verbose_name=_("领队账号")
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("单位")
        verbose_name_plural = _("单位")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "name"], name="unit_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Player(KeyedName):
    class Gender(models.TextChoices):
        MALE = "M", _("男")
        FEMALE = "F", _("女")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="players", verbose_name=_("比赛")
    )
    unit = models.ForeignKey(
        Unit, on_delete=models.PROTECT, related_name="players", verbose_name=_("单位")
    )
    name = models.CharField(_("姓名"), max_length=50)
    gender = models.CharField(_("性别"), max_length=1, choices=Gender.choices, blank=True)
    # Personal data: never shown on public pages (docs/permissions.md).
    phone = models.CharField(_("手机号"), max_length=32, blank=True)
    staff_number = models.CharField(_("工号"), max_length=32, blank=True)

    class Meta:
        ordering = ["unit_id", "id"]
        verbose_name = _("选手")
        verbose_name_plural = _("选手")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "unit", "name"], name="player_unique_name_in_unit"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name}（{self.unit.name}）"


class EntryQuerySet(models.QuerySet):
    def with_people(self):
        """Entries with their players and pairs loaded in a fixed number of queries."""
        return self.select_related("player__unit").prefetch_related(
            models.Prefetch(
                "pairs", queryset=Pair.objects.select_related("first__unit", "second__unit")
            )
        )


class Entry(InvisiblesKeptOut, models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("已报名")
        WITHDRAWN = "withdrawn", _("已退赛")
        ELIMINATED = "eliminated", _("资格终止")
        DISQUALIFIED = "disqualified", _("取消资格")

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="entries", verbose_name=_("项目")
    )
    unit = models.ForeignKey(
        Unit, on_delete=models.PROTECT, related_name="entries", verbose_name=_("单位")
    )
    # A pair's name is both players' names; a clash adds the unit: up to ~260 characters.
    name = models.CharField(_("名称"), max_length=300)
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="single_entries",
        verbose_name=_("选手（个人项目）"),
    )
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.REGISTERED
    )
    status_reason = models.CharField(_("原因"), max_length=200, blank=True)
    on_site = models.BooleanField(_("现场报名"), default=False)
    participation_award_only = models.BooleanField(_("只获参与奖"), default=False)
    seed = models.PositiveSmallIntegerField(_("种子序号"), null=True, blank=True)
    registered_at = models.DateTimeField(_("报名时间"), default=timezone.now)
    registered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("报名人"),
    )

    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["event_id", "id"]
        verbose_name = _("参赛队/选手")
        verbose_name_plural = _("参赛队/选手")
        constraints = [models.UniqueConstraint(fields=["event", "name"], name="entry_unique_name")]

    def __str__(self) -> str:
        return self.name


class Pair(models.Model):
    """Two players who play together for the whole event (配对选手不得重组)."""

    entry = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="pairs", verbose_name=_("参赛队")
    )
    number = models.PositiveSmallIntegerField(_("序号"), default=1)
    first = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("选手一")
    )
    second = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("选手二")
    )

    class Meta:
        ordering = ["entry_id", "number"]
        verbose_name = _("对")
        verbose_name_plural = _("对")
        constraints = [
            models.UniqueConstraint(fields=["entry", "number"], name="pair_unique_number"),
            models.CheckConstraint(
                condition=~models.Q(first=models.F("second")), name="pair_two_people"
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        """How a pair is shown everywhere: its two players' names (钱立、肖慧; in English
        钱立, 肖慧)."""
        return listing((self.first.name, self.second.name))
