"""The tournament domain: a notice (比赛), its venues, officials and events (项目); who enters
(单位, 选手, 对, 参赛队) is ``models.entries``.

Vocabulary (English in code, Chinese in the interface; see docs/interfaces.md):
- Tournament 比赛/活动: one notice with a date, venues and one or more events.
- Event 项目: one competition inside it (guandan team, guandan pairs, xiangqi, …).
- Unit 单位: who registers — a 工会小组, 系, 实验中心 or 部门; a 联队 (joint team) combines units.
- Player 选手, Pair 对 (two players who stay together for the whole event: 不得重组),
  Entry 参赛队/选手 (what the draw places: a unit's team of pairs, one pair, or one player).
"""

from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop, pgettext_lazy

from guandan_cup.words import listing
from scoring.engines.common import RuleSetError
from tournaments.live import stamps
from tournaments.models.names import KeyedName
from tournaments.models.versions import LiveVersion

if TYPE_CHECKING:
    from scoring.engines.scorer import Scorer


def ruleset_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every preset rule set, grouped by sport (a form shows them as option groups)."""
    # Imported lazily so the engine modules stay importable without Django and vice versa.
    from scoring.engines.scorer import preset_choices

    groups = preset_choices()
    labels = {
        "guandan": _("掼蛋"),
        "xiangqi": _("象棋"),
        "badminton": _("羽毛球"),
        "table_tennis": _("乒乓球"),
    }
    # A preset's name is a message of the app (安徽农业大学教职工掼蛋规程（2021）): read in
    # the reader's language wherever the choice is shown.
    return [
        (labels[sport], [(key, _(name)) for key, name in choices])
        for sport, choices in groups.items()
    ]


# The certificate (奖状) as the app words it, until the organiser words their own; a document
# shows these in its reader's language (documents.build.certificate_text).
CERTIFICATE_TITLE = gettext_noop("荣誉证书")
CERTIFICATE_TEXT = gettext_noop("{name}在{tournament}{event}中荣获{prize}。\n特发此证，以资鼓励。")


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("草稿")
        REGISTRATION_OPEN = "registration_open", _("报名中")
        REGISTRATION_CLOSED = "registration_closed", pgettext_lazy("status", "报名截止")
        DRAWN = "drawn", _("已抽签")
        RUNNING = "running", _("比赛中")
        FINISHED = "finished", _("已结束")

    slug = models.SlugField(_("标识"), max_length=64, unique=True)
    name = models.CharField(_("比赛名称"), max_length=200)
    organiser_name = models.CharField(
        _("主办单位"), max_length=200, help_text=_("落款，例如“江苏省南通中学工会”")
    )
    notice_title = models.CharField(_("通知标题"), max_length=300)
    notice_addressee = models.CharField(
        _("通知对象"), max_length=100, blank=True, help_text=_("例如“各工会小组：”")
    )
    notice_text = models.TextField(
        _("通知正文"), help_text=_("每段一行；以“一、”“（一）”开头的行显示为标题")
    )
    notice_date = models.DateField(_("发文日期"), null=True, blank=True)
    rules_title = models.CharField(_("规则标题"), max_length=300, blank=True)
    rules_text = models.TextField(_("比赛规则"), blank=True)
    starts_on = models.DateField(_("比赛日期"))
    start_time = models.TimeField(_("开始时间"), null=True, blank=True)
    registration_deadline = models.DateTimeField(_("报名截止时间"), null=True, blank=True)
    leaders_meeting_at = models.DateTimeField(_("领队会议时间"), null=True, blank=True)
    leaders_meeting_place = models.CharField(_("领队会议地点"), max_length=200, blank=True)
    one_event_per_person = models.BooleanField(
        _("每人限报一项"), default=False, help_text=_("安徽农大：只能参加一个比赛项目")
    )

    class Confirmation(models.TextChoices):
        OFFICIAL = "official", _("另一位裁判或裁判长")
        CHIEF = "chief", _("只由裁判长或仲裁组")
        OPPONENTS = "opponents", _("另一位裁判，或对方选手在裁判手机上确认")

    # Who confirms a table's result (never the one who entered, submitted or corrected it).
    # The notices name a 裁判长 and referees and no more: any second official confirms.
    confirmation = models.CharField(
        _("结果确认"),
        max_length=16,
        choices=Confirmation.choices,
        default=Confirmation.OFFICIAL,
        help_text=_("录入、提交或更正结果的人都不能确认它"),
    )

    class ResultEntry(models.TextChoices):
        REFEREES = "referees", _("裁判录入")
        PLAYERS = "players", _("选手扫码录入，对方选手确认")
        BOTH = "both", _("选手扫码录入，对方选手或裁判确认")

    # Who enters a table's result (docs/permissions.md, the players' link): the referees, or
    # the players at the table from its QR code, the other side confirming (扫码录分).
    result_entry = models.CharField(
        _("结果录入"),
        max_length=16,
        choices=ResultEntry.choices,
        default=ResultEntry.REFEREES,
        help_text=_(
            "选手扫码录入时，记分表和桌卡上的二维码让本台选手不登录即可录入本台（当天有效），"
            "提交后由对方选手确认；有异议时呼叫裁判。判罚、判负、取消资格仍由裁判办理"
        ),
    )

    class CorrectionSignoff(models.TextChoices):
        SECOND = "second", _("更正后由另一人再确认")
        PANEL = "panel", _("由两名仲裁组成员署名更正，即时生效")

    # A correction of a confirmed result (更正): re-submitted in the corrector's name and
    # confirmed again by someone else, or made by the arbitration panel with two names.
    correction_signoff = models.CharField(
        _("已确认结果的更正"),
        max_length=16,
        choices=CorrectionSignoff.choices,
        default=CorrectionSignoff.SECOND,
        help_text=_(
            "默认：更正后的结果由更正人重新提交，须另一人确认后生效；选仲裁组署名时，"
            "须由一名仲裁组成员更正、另一名成员在更正页输入密码共同署名，结果立即生效"
        ),
    )

    class TeamDisqualification(models.TextChoices):
        TABLE = "table", _("只判负该台")
        TEAM = "team", _("全队取消比赛资格")

    # 取消比赛资格 of one pair in a team tie: the notices say no more than 可取消比赛资格, so
    # by default the pair loses its table only; or its whole team loses the tie and leaves
    # the event (later matches walkovers, no place), as a forfeit that ends the event would.
    team_disqualification = models.CharField(
        _("团体赛中一对被取消资格"),
        max_length=16,
        choices=TeamDisqualification.choices,
        default=TeamDisqualification.TABLE,
        help_text=_(
            "只判负该台：该对输掉这一台，本队照常比赛；全队取消比赛资格：本队输掉本场，"
            "此后的比赛对手不战而胜，本队不排名次"
        ),
    )
    status = models.CharField(
        _("状态"), max_length=32, choices=Status.choices, default=Status.DRAFT
    )
    # The units' standings across every event (团体总分): points per place, 1st first.
    # A staff sports meet's 9/7/6/5/4/3/2/1 for places 1–8 unless the organiser sets others.
    DEFAULT_STANDINGS_POINTS = [9, 7, 6, 5, 4, 3, 2, 1]

    class JointPoints(models.TextChoices):
        SHARED = "shared", _("由组成单位平分")
        OWN = "own", _("计入联队本身")

    standings_points = models.JSONField(
        _("团体总分名次分"),
        default=list,
        blank=True,
        help_text=_("第1名起各名次的得分，如 9/7/6/5/4/3/2/1；留空则用 9/7/6/5/4/3/2/1"),
    )
    standings_joint = models.CharField(
        _("联队得分"),
        max_length=16,
        choices=JointPoints.choices,
        default=JointPoints.SHARED,
    )
    # The Anhui notice: 现场报名，只获参与奖 — no place, so no points by default.
    standings_award_only_score = models.BooleanField(
        _("只获参与奖者计团体分"), default=False, help_text=_("安徽农大：现场报名者只获参与奖")
    )
    # A disqualified entry's 比赛资格 is ended (Anhui): no points by default.
    standings_disqualified_score = models.BooleanField(_("取消资格者计团体分"), default=False)
    # The award certificate (奖状) the organiser can word as they like.
    certificate_title = models.CharField(_("奖状标题"), max_length=50, default=CERTIFICATE_TITLE)
    certificate_text = models.TextField(
        _("奖状正文"),
        default=CERTIFICATE_TEXT,
        help_text=_(
            "可用占位：{name} 获奖者（个人与双人附单位），{unit} 单位，{tournament} 比赛，{event} 项目，{prize} 奖项，{rank} 名次"
        ),
    )
    certificate_signature = models.CharField(
        _("奖状落款"), max_length=200, blank=True, help_text=_("留空则用主办单位")
    )
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)
    updated_at = models.DateTimeField(_("更新时间"), auto_now=True)

    class Meta:
        ordering = ["-starts_on", "name"]
        verbose_name = _("比赛")
        verbose_name_plural = _("比赛")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.slug])

    @property
    def is_public(self) -> bool:
        return self.status != self.Status.DRAFT

    def bump_event_versions(self) -> None:
        """Something every event's live pages show changed (the tournament's name, status,
        units): bump each event's version."""
        events = Event.objects.filter(tournament_id=self.pk)
        grown = models.F("version") + 1
        events.update(version=grown, wide_version=grown, changed_at=timezone.now())
        for event_slug in events.values_list("slug", flat=True):
            stamps.forget_stamp(self.slug, event_slug)

    def points_table(self) -> list[int]:
        """The standings' points per place (place 1 first)."""
        return list(self.standings_points or self.DEFAULT_STANDINGS_POINTS)

    def registration_is_open(self, now=None) -> bool:
        now = now or timezone.now()
        if self.status != self.Status.REGISTRATION_OPEN:
            return False
        return self.registration_deadline is None or now < self.registration_deadline

    def schedule(self) -> list[dict]:
        """The key dates of the notice, in time order, for the tournament page."""
        items = []
        if self.registration_deadline:
            items.append({"at": self.registration_deadline, "what": _("报名截止"), "where": ""})
        if self.leaders_meeting_at:
            items.append(
                {
                    "at": self.leaders_meeting_at,
                    "what": _("领队会议，比赛分组抽签"),
                    "where": self.leaders_meeting_place,
                }
            )
        if self.start_time:
            start = timezone.make_aware(timezone.datetime.combine(self.starts_on, self.start_time))
            venues = listing(v.name for v in self.venues.all())
            items.append({"at": start, "what": _("比赛开始"), "where": venues})
        return sorted(items, key=lambda item: item["at"])


class Venue(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="venues", verbose_name=_("比赛")
    )
    name = models.CharField(_("场地名称"), max_length=200)
    tables = models.PositiveIntegerField(_("桌数/场地数"), default=0)
    order = models.PositiveIntegerField(_("顺序"), default=0)
    by_queue = models.BooleanField(
        _("按空场叫号"),
        default=False,
        help_text=_("场地空出即叫下一场准备好的比赛，而不是按计划时间（球类场馆常用）"),
    )

    class Meta:
        ordering = ["order", "id"]
        verbose_name = _("场地")
        verbose_name_plural = _("场地")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "name"], name="venue_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Official(KeyedName):
    class Role(models.TextChoices):
        ORGANISER = "organiser", _("组织者")
        CHIEF_REFEREE = "chief_referee", _("裁判长")
        REFEREE = "referee", _("裁判")
        ARBITRATION_LEADER = "arbitration_leader", _("仲裁组组长")
        ARBITRATION = "arbitration", _("仲裁组成员")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="officials", verbose_name=_("比赛")
    )
    name = models.CharField(_("姓名"), max_length=50)
    role = models.CharField(_("职务"), max_length=32, choices=Role.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="official_roles",
        verbose_name=_("登录账号"),
    )
    # The day plan (全天赛程): a referee or the chief referee who is there, and when.
    on_duty = models.BooleanField(
        _("当天执裁"), default=True, help_text=_("全天赛程只把执裁的裁判排到场地")
    )
    duty_from = models.TimeField(_("到场时间"), null=True, blank=True)
    duty_until = models.TimeField(_("离场时间"), null=True, blank=True)

    class Meta:
        ordering = ["role", "id"]
        verbose_name = _("裁判与工作人员")
        verbose_name_plural = _("裁判与工作人员")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "name", "role"], name="official_unique_role"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()} {self.name}"


class Event(LiveVersion):
    class Discipline(models.TextChoices):
        GUANDAN_TEAM = "guandan_team", _("掼蛋团体")
        GUANDAN_PAIRS = "guandan_pairs", _("掼蛋双人")
        XIANGQI = "xiangqi", _("象棋")
        BADMINTON = "badminton", _("羽毛球")
        TABLE_TENNIS = "table_tennis", _("乒乓球")

    class EntryKind(models.TextChoices):
        TEAM = "team", _("团体（多对）")
        PAIR = "pair", _("双人")
        SINGLE = "single", _("个人")

    DEFAULT_ENTRY_KIND = {
        Discipline.GUANDAN_TEAM: EntryKind.TEAM,
        Discipline.GUANDAN_PAIRS: EntryKind.PAIR,
        Discipline.XIANGQI: EntryKind.SINGLE,
        Discipline.BADMINTON: EntryKind.SINGLE,
        Discipline.TABLE_TENNIS: EntryKind.SINGLE,
    }

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="events", verbose_name=_("比赛")
    )
    slug = models.SlugField(_("标识"), max_length=64)
    name = models.CharField(_("项目名称"), max_length=100)
    discipline = models.CharField(_("项目类型"), max_length=32, choices=Discipline.choices)
    entry_kind = models.CharField(
        _("报名方式"),
        max_length=16,
        choices=EntryKind.choices,
        blank=True,
        help_text=_("留空则按项目类型：掼蛋团体为团体，掼蛋双人为双人，其余为个人"),
    )
    pairs_per_team = models.PositiveSmallIntegerField(
        _("每队对数"), default=3, help_text=_("掼蛋团体赛每队的固定对数")
    )
    ruleset = models.CharField(
        _("比赛规则"),
        max_length=32,
        blank=True,
        choices=ruleset_choices,
        help_text=_("掼蛋项目必选升级规则；象棋、羽毛球、乒乓球留空则用该项目的默认规则"),
    )
    ruleset_config = models.JSONField(
        _("自定义规则参数"), default=dict, blank=True, help_text=_("留空则使用预设规则")
    )
    advance_registration_required = models.BooleanField(
        _("须提前报名"),
        default=False,
        help_text=_("勾选后，截止后现场报名者只获参与奖（安徽农大：牌类比赛需提前报名）"),
    )
    venue = models.ForeignKey(
        Venue,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="events",
        verbose_name=_("场地"),
    )
    rules_summary = models.TextField(_("赛制说明"), blank=True)
    # The day plan (全天赛程): how long a match is planned for, and the rest between two.
    match_minutes = models.PositiveSmallIntegerField(
        _("每场时长（分钟）"), null=True, blank=True, help_text=_("留空则按比赛规则的时限")
    )
    rest_minutes = models.PositiveSmallIntegerField(
        _("两场间休息（分钟）"), null=True, blank=True, help_text=_("留空则按项目类型")
    )
    standings_weight = models.PositiveSmallIntegerField(
        _("团体总分倍数"),
        default=1,
        help_text=_("本项目名次分乘以此数计入团体总分：1 照计，2 双倍，0 不计"),
    )
    order = models.PositiveIntegerField(_("顺序"), default=0)
    drawn_at = models.DateTimeField(
        _("抽签时间"), null=True, blank=True, help_text=_("抽签后配对选手不得重组，只能退赛")
    )

    class Meta:
        ordering = ["order", "id"]
        verbose_name = _("项目")
        verbose_name_plural = _("项目")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "slug"], name="event_unique_slug")
        ]

    def __str__(self) -> str:
        return f"{self.tournament.name} · {self.name}"

    def save(self, *args, **kwargs):
        if not self.entry_kind:
            self.entry_kind = self.DEFAULT_ENTRY_KIND[self.discipline]
        super().save(*args, **kwargs)

    def clean(self):
        if not self.entry_kind and self.discipline:
            self.entry_kind = self.DEFAULT_ENTRY_KIND[self.discipline]
        if not self.discipline:
            return
        if self.is_guandan and not self.ruleset and not self.ruleset_config:
            raise ValidationError(
                {"ruleset": _("掼蛋项目须选择一套升级规则，或填写自定义规则参数。")}
            )
        try:
            self.scorer()
        except RuleSetError as exc:
            if self.ruleset_config:
                message = _("自定义规则参数有误：%(error)s") % {"error": exc}
                raise ValidationError({"ruleset_config": message}) from None
            chosen = dict(c for _group, items in ruleset_choices() for c in items)
            message = _(
                "所选规则“%(ruleset)s”不适用于%(discipline)s项目；请选该项目的规则，或留空。"
            ) % {
                "ruleset": chosen.get(self.ruleset, self.ruleset),
                "discipline": self.get_discipline_display(),
            }
            raise ValidationError({"ruleset": message}) from None

    @property
    def entries_locked(self) -> bool:
        """Pairs are fixed once the event's draw is made (配对选手不得重组). Each event by its
        own draw: the tournament's status follows the draws (all events drawn: 已抽签), and an
        event added after that is still open to its entries."""
        return self.drawn_at is not None

    @property
    def is_guandan(self) -> bool:
        return self.discipline in (self.Discipline.GUANDAN_TEAM, self.Discipline.GUANDAN_PAIRS)

    @property
    def tables_per_match(self) -> int:
        """How many tables one match takes: a team tie's pairs play side by side (three
        tables for 3 fixed pairs), anything else one table."""
        return self.pairs_per_team if self.entry_kind == self.EntryKind.TEAM else 1

    @property
    def margin_heading(self) -> str:
        """The standings' column of what decides between equal points in this sport (级分
        in Guandan, 净胜局 in rally sports, 净胜分 in 象棋), in the reader's language."""
        from guandan_cup.words import plain

        try:
            return plain(self.scorer().margin_heading)
        except RuleSetError:
            return str(_("级分"))

    def scorer(self) -> "Scorer":
        """The scoring engine of this event with its rule set (any sport): see
        ``scoring.engines.scorer``. ``RuleSetError`` when the rule set does not fit the discipline."""
        from scoring.engines.scorer import scorer_for

        return scorer_for(self.discipline, self.ruleset, self.ruleset_config)
