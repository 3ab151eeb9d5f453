"""The organiser's forms (组织者): the tournament and its notice, events, units and their
leaders' accounts, officials."""

import datetime as dt

from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import NON_FIELD_ERRORS
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from guandan_cup.inputs import BIG_INT, clean_name, name_key, sensible_year, whole_number
from tournaments.models import Event, Official, Tournament, Unit
from tournaments.models.names import key_of
from tournaments.registration.joint import joint_team_member_problems
from tournaments.standings.rules import parse_points


def name_as_stored(value: str, *, max_length: int) -> str:
    """A unit's or a person's name as it will be stored (:func:`clean_name`), refused if
    nothing visible is left of it or it is longer than its column."""
    name = clean_name(value)
    if not name:
        raise forms.ValidationError(_("名称不能只有空格或不可见字符。"))
    if len(name) > max_length:
        raise forms.ValidationError(_("名称过长（最多%(n)s个字）。") % {"n": max_length})
    return name


def same_name(name: str, others) -> str | None:
    """The first of ``others`` that is ``name`` by its key (:func:`name_key`), or None."""
    key = name_key(name)
    return next((other for other in others if name_key(other) == key), None)


def tournament_name(value: str, *, instance=None) -> str:
    """A tournament's name as stored, refused when another tournament has it by its key (two
    比赛 of one name would be told apart by nobody)."""
    name = name_as_stored(value, max_length=Tournament.name.field.max_length)
    others = Tournament.objects.all()
    if instance is not None and instance.pk:
        others = others.exclude(pk=instance.pk)
    same = same_name(name, others.values_list("name", flat=True))
    if same is not None:
        raise forms.ValidationError(
            _("已有名为“%(name)s”的比赛，请换一个名称（例如加上届次或年份）。") % {"name": same}
        )
    return name


class UniqueNameInTournament:
    """A model form whose ``name`` is one row's of its tournament (a unit, a venue): stored
    as :func:`name_as_stored` gives it and refused, with ``name_taken``, if another row of
    the same tournament has the same name by its key (:func:`name_key`: 張偉 is 张伟; on
    change, the row itself does not count)."""

    name_taken = _("已有名为“%(name)s”的记录。")

    def clean_name(self):
        model = self._meta.model
        name = name_as_stored(self.cleaned_data["name"], max_length=model.name.field.max_length)
        others = model.objects.filter(tournament=self.instance.tournament)
        same = same_name(name, others.exclude(pk=self.instance.pk).values_list("name", flat=True))
        if same is not None:
            raise forms.ValidationError(self.name_taken % {"name": same})
        return name


def bounded(field: forms.Field, *, low: int, high: int, message: str) -> forms.IntegerField:
    """A model's number field with the bounds a real event needs: anything outside them, or
    not a whole number, refused with ``message`` (and nothing saved)."""
    return forms.IntegerField(
        label=field.label,
        help_text=field.help_text,
        initial=field.initial,
        required=field.required,
        min_value=low,
        max_value=high,
        error_messages={"min_value": message, "max_value": message, "invalid": message},
    )


def deadline_after_start(form: forms.Form, cleaned: dict) -> None:
    """A registration deadline after the competition has started is refused: the notice's
    schedule would list 报名截止 after 比赛开始."""
    deadline, starts_on = cleaned.get("registration_deadline"), cleaned.get("starts_on")
    if not deadline or not starts_on or "registration_deadline" in form.errors:
        return
    start_time = cleaned.get("start_time")
    local = timezone.localtime(deadline)
    late = (
        local > timezone.make_aware(dt.datetime.combine(starts_on, start_time))
        if start_time
        else local.date() > starts_on
    )
    if late:
        form.add_error(
            "registration_deadline", _("报名截止时间不能晚于比赛开始时间，请改在比赛开始之前。")
        )


class TournamentForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = [
            "name",
            "organiser_name",
            "starts_on",
            "start_time",
            "registration_deadline",
            "leaders_meeting_at",
            "leaders_meeting_place",
            "one_event_per_person",
            "confirmation",
            "result_entry",
            "correction_signoff",
            "team_disqualification",
            "notice_title",
            "notice_addressee",
            "notice_text",
            "notice_date",
            "rules_title",
            "rules_text",
            "certificate_title",
            "certificate_text",
            "certificate_signature",
            "standings_points",
            "standings_joint",
            "standings_award_only_score",
            "standings_disqualified_score",
        ]
        widgets = {
            "starts_on": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "notice_date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "start_time": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "registration_deadline": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
            "leaders_meeting_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
            "notice_text": forms.Textarea(attrs={"rows": 12}),
            "rules_text": forms.Textarea(attrs={"rows": 12}),
            "certificate_text": forms.Textarea(attrs={"rows": 3}),
        }

    def clean(self):
        cleaned = super().clean()
        for name in ("starts_on", "notice_date", "registration_deadline", "leaders_meeting_at"):
            value = cleaned.get(name)
            if value and not sensible_year(value):
                self.add_error(name, _("日期须在1900年到2999年之间。"))
        deadline_after_start(self, cleaned)
        return cleaned

    # The units' standings (团体总分): the points per place typed as "9/7/6/5/4/3/2/1".
    standings_points = forms.CharField(
        label=_("团体总分名次分"),
        required=False,
        max_length=200,
        help_text=_("第1名起各名次的得分，用“/”隔开，如 9/7/6/5/4/3/2/1；留空则用 9/7/6/5/4/3/2/1"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.DEFAULTED:
            if name in self.fields:
                self.fields[name].required = False  # left out: the model's default
        if "standings_joint" not in self.fields:
            return  # a form without the standings' settings (新建比赛: the defaults)
        self.fields["standings_joint"].required = False  # left empty: shared
        if not self.is_bound and self.instance.pk:
            self.initial["standings_points"] = "/".join(
                str(p) for p in self.instance.points_table()
            )

    # The results' rules a form may leave out (a page of an older release, the new-tournament
    # form posted without them): the tournament's own setting is kept — a new one's is the
    # model's default.
    DEFAULTED = ("correction_signoff", "team_disqualification", "result_entry")

    def clean_correction_signoff(self):
        return self.cleaned_data.get("correction_signoff") or self.instance.correction_signoff

    def clean_team_disqualification(self):
        return self.cleaned_data.get("team_disqualification") or self.instance.team_disqualification

    def clean_name(self):
        return tournament_name(self.cleaned_data["name"], instance=self.instance)

    def clean_result_entry(self):
        return self.cleaned_data.get("result_entry") or self.instance.result_entry

    def clean_standings_joint(self):
        return self.cleaned_data.get("standings_joint") or Tournament.JointPoints.SHARED

    def clean_standings_points(self):
        text = self.cleaned_data["standings_points"]
        try:
            points = parse_points(text)
        except ValueError:
            raise forms.ValidationError(
                _("名次分须是0到999之间的整数，按名次从高到低用“/”隔开，如 9/7/6/5/4/3/2/1。")
            ) from None
        if len(points) > 64:
            raise forms.ValidationError(_("名次分最多64个名次。"))
        return list(points)

    def clean_certificate_text(self):
        text = self.cleaned_data["certificate_text"]
        try:
            text.format(name="", unit="", tournament="", event="", prize="", rank="")
        except (KeyError, IndexError, ValueError) as exc:
            raise forms.ValidationError(
                _(
                    "奖状正文中的占位有误（%(error)s）；只能用 {name} {unit} {tournament} {event} {prize} {rank}。"
                )
                % {"error": exc}
            ) from None
        return text


class EventForm(forms.ModelForm):
    class Meta:
        model = Event
        fields = [
            "name",
            "slug",
            "discipline",
            "entry_kind",
            "pairs_per_team",
            "ruleset",
            "advance_registration_required",
            "venue",
            "rules_summary",
            "order",
            "standings_weight",
        ]
        widgets = {"rules_summary": forms.Textarea(attrs={"rows": 3})}

    # A team fields 1–9 pairs (Nantong: 三组; more tables than 9 per tie is no union's event);
    # events are ordered on one page: a sports day has a few dozen at most.
    PAIRS_PER_TEAM = (1, 9)
    ORDER = (0, 999)
    # An event counts once, double (or triple), or not at all in the units' standings.
    WEIGHT = (0, 3)

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.tournament = tournament
        self.fields["venue"].queryset = tournament.venues.all()
        low, high = self.PAIRS_PER_TEAM
        self.fields["pairs_per_team"] = bounded(
            self.fields["pairs_per_team"],
            low=low,
            high=high,
            message=_("每队对数须是%(low)s到%(high)s之间的整数。") % {"low": low, "high": high},
        )
        low, high = self.WEIGHT
        self.fields["standings_weight"] = bounded(
            self.fields["standings_weight"],
            low=low,
            high=high,
            message=_("团体总分倍数须是%(low)s到%(high)s之间的整数。") % {"low": low, "high": high},
        )
        self.fields["standings_weight"].required = False  # left empty: counts once
        low, high = self.ORDER
        self.fields["order"] = bounded(
            self.fields["order"],
            low=low,
            high=high,
            message=_("顺序须是%(low)s到%(high)s之间的整数。") % {"low": low, "high": high},
        )

    # Path segments under /t/<tournament>/ that an event slug must not shadow.
    RESERVED_SLUGS = {
        "manage",
        "units",
        "register",
        "entries",
        "draw",
        "results",
        "referee",
        "standings",
        "schedule",
    }

    def clean_name(self):
        name = name_as_stored(self.cleaned_data["name"], max_length=Event.name.field.max_length)
        others = Event.objects.filter(tournament=self.instance.tournament)
        same = same_name(name, others.exclude(pk=self.instance.pk).values_list("name", flat=True))
        if same is not None:
            raise forms.ValidationError(_("本比赛已有名为“%(name)s”的项目。") % {"name": same})
        return name

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if slug in self.RESERVED_SLUGS:
            raise forms.ValidationError(
                _("“%(slug)s”是系统保留的标识，请换一个。") % {"slug": slug}
            )
        clash = Event.objects.filter(tournament=self.instance.tournament, slug=slug)
        if clash.exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(_("本比赛已有标识为“%(slug)s”的项目。") % {"slug": slug})
        return slug

    def add_error(self, field, error):
        # Event.clean also checks the custom rule set (自定义规则参数, ruleset_config), which
        # this page does not edit (it is set in /admin/): a stored one that no longer passes
        # is shown above the form, not a 500 for a field the form lacks.
        if field is None and hasattr(error, "error_dict"):
            errors = dict(error.error_dict)
            outside = [
                name for name in errors if name != NON_FIELD_ERRORS and name not in self.fields
            ]
            if outside:
                above = errors.pop(NON_FIELD_ERRORS, [])
                errors[NON_FIELD_ERRORS] = above + [m for name in outside for m in errors.pop(name)]
                error = forms.ValidationError(errors)
        super().add_error(field, error)

    def clean_standings_weight(self):
        value = self.cleaned_data.get("standings_weight")
        return 1 if value is None else value

    def clean_pairs_per_team(self):
        value = self.cleaned_data["pairs_per_team"]
        if value % 2 == 0 and self.cleaned_data.get("discipline") == Event.Discipline.GUANDAN_TEAM:
            # A tie is won by a majority of its tables: an even number could tie.
            raise forms.ValidationError(_("团体赛按多数台决胜，每队对数须为奇数（常用3对）。"))
        return value


class IdsField(forms.ModelMultipleChoiceField):
    """Rows picked by id, where an id that no database column can hold (30 digits overflow
    SQLite's integer: a 500 before) is an invalid choice like any unknown id."""

    def _check_values(self, value):
        for pk in value or []:
            if whole_number(pk, maximum=BIG_INT) is None:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": pk},
                )
        return super()._check_values(value)


class UnitForm(UniqueNameInTournament, forms.ModelForm):
    """A unit (单位) or a joint team (联队) added, or one changed: its name, its kind (a joint
    team stays one, a unit does not become one) and a joint team's member units."""

    name_taken = _("已有名为“%(name)s”的单位。")

    class Meta:
        model = Unit
        fields = ["name", "kind", "members"]
        widgets = {"members": forms.CheckboxSelectMultiple}
        field_classes = {"members": IdsField}

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.tournament = tournament
        self.fields["members"].queryset = tournament.units.exclude(kind=Unit.Kind.JOINT)
        self.fields["members"].required = False
        if self.instance.pk is None:
            return
        if self.instance.kind == Unit.Kind.JOINT:
            del self.fields["kind"]
        else:
            del self.fields["members"]
            self.fields["kind"].choices = [
                c for c in self.fields["kind"].choices if c[0] != Unit.Kind.JOINT
            ]

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind", self.instance.kind)
        members = list(cleaned.get("members") or [])
        if kind == Unit.Kind.JOINT and "members" not in self.errors:
            if len(members) < 2:
                self.add_error("members", _("联队至少由两个单位组成。"))
            else:
                for problem in joint_team_member_problems(self.instance, members):
                    self.add_error("members", problem)
        if kind != Unit.Kind.JOINT and members:
            self.add_error("members", _("只有联队才有组成单位。"))
        return cleaned


def clean_new_username(value: str) -> str:
    """A new login name as the account will store it: NFKC-normalised like
    ``create_user`` does ("²" is "2"), checked by the user model's own validator, and free
    — otherwise two names that differ only in width would pass the check and then clash."""
    User = get_user_model()
    username = User.normalize_username(value.strip())
    User._meta.get_field(User.USERNAME_FIELD).run_validators(username)
    if User.objects.filter(**{User.USERNAME_FIELD: username}).exists():
        raise forms.ValidationError(_("用户名“%(name)s”已被使用。") % {"name": username})
    return username


class LeaderAccountForm(forms.Form):
    username = forms.CharField(label=_("用户名"), max_length=150)
    password = forms.CharField(label=_("初始密码"), widget=forms.PasswordInput, strip=False)

    def clean_username(self):
        return clean_new_username(self.cleaned_data["username"])

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("password"):
            user = get_user_model()(username=cleaned.get("username", ""))
            try:
                password_validation.validate_password(cleaned["password"], user)
            except forms.ValidationError as exc:
                self.add_error("password", exc)
        return cleaned


class OfficialForm(forms.Form):
    """An official (裁判长, 裁判, 仲裁组 …) and, optionally, their login."""

    name = forms.CharField(label=_("姓名"), max_length=50)
    role = forms.ChoiceField(label=_("职务"), choices=Official.Role.choices)
    username = forms.CharField(label=_("登录用户名（可留空）"), max_length=150, required=False)
    password = forms.CharField(
        label=_("初始密码"), widget=forms.PasswordInput, strip=False, required=False
    )

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.tournament = tournament

    def clean_name(self):
        return name_as_stored(self.cleaned_data["name"], max_length=Official.name.field.max_length)

    def clean(self):
        cleaned = super().clean()
        name, role = cleaned.get("name", ""), cleaned.get("role")
        same = Official.objects.filter(tournament=self.tournament, name_key=key_of(name), role=role)
        if same.exists():
            raise forms.ValidationError(
                _("%(name)s已是本比赛的这一职务。") % {"name": same.first().name}
            )
        username = cleaned.get("username", "").strip()
        if not username:
            return cleaned
        User = get_user_model()
        try:
            username = cleaned["username"] = clean_new_username(username)
        except forms.ValidationError as exc:
            self.add_error("username", exc)
            return cleaned
        if not cleaned.get("password"):
            self.add_error("password", _("请为登录账号设置初始密码。"))
        else:
            try:
                password_validation.validate_password(cleaned["password"], User(username=username))
            except forms.ValidationError as exc:
                self.add_error("password", exc)
        return cleaned


# Fields of a new tournament: the notice and its dates (the rest keeps its defaults and is
# set later under 比赛信息).
