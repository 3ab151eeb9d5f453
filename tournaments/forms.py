from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.utils.translation import gettext_lazy as _

from guandan_cup.inputs import BIG_INT, sensible_year, whole_number
from tournaments.models import Entry, Event, Official, Tournament, Unit
from tournaments.registration.services import EntryForm, PersonForm

GENDER_CHOICES = [("", _("—")), ("男", _("男")), ("女", _("女"))]


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
            "notice_title",
            "notice_addressee",
            "notice_text",
            "notice_date",
            "rules_title",
            "rules_text",
            "certificate_title",
            "certificate_text",
            "certificate_signature",
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
        return cleaned

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
        ]
        widgets = {"rules_summary": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.tournament = tournament
        self.fields["venue"].queryset = tournament.venues.all()
        self.fields["pairs_per_team"].min_value = 1

    # Path segments under /t/<tournament>/ that an event slug must not shadow.
    RESERVED_SLUGS = {"manage", "units", "register", "entries", "draw", "results", "referee"}

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

    def clean_pairs_per_team(self):
        value = self.cleaned_data["pairs_per_team"]
        if value < 1 or value > 9:
            raise forms.ValidationError(_("每队对数须在1到9之间。"))
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


class UnitForm(forms.ModelForm):
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

    def clean_name(self):
        from tournaments.registration.services import normalise_name

        name = normalise_name(self.cleaned_data["name"])
        clash = Unit.objects.filter(tournament=self.instance.tournament, name=name)
        if clash.exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(_("已有名为“%(name)s”的单位。") % {"name": name})
        return name

    def clean(self):
        cleaned = super().clean()
        kind, members = cleaned.get("kind"), cleaned.get("members") or []
        if kind == Unit.Kind.JOINT and len(members) < 2:
            self.add_error("members", _("联队至少由两个单位组成。"))
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


class WithdrawForm(forms.Form):
    reason = forms.CharField(label=_("退赛原因"), max_length=200)


class EntryWebForm(forms.Form):
    """An entry as typed on a phone: the players of a team, a pair, or a single player.

    Fields are ``p<pair>_<seat>_name/gender/unit`` (pair 1..N, seat 1..2), or ``s_name`` …
    for a single player. Joint teams also ask each player's member unit.
    """

    def __init__(self, *args, event: Event, unit: Unit, organiser: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.event, self.unit = event, unit
        members = list(unit.members.all())
        # (group label, [(player label, field prefix), …]) for the template: one group per
        # pair, or a single group for an individual event.
        self.groups = []
        if event.entry_kind == Event.EntryKind.SINGLE:
            self.groups.append((_("选手"), [(_("选手"), "s")]))
        else:
            pairs = event.pairs_per_team if event.entry_kind == Event.EntryKind.TEAM else 1
            for number in range(1, pairs + 1):
                label = _("第%(n)s对") % {"n": number} if pairs > 1 else _("一对选手")
                seats = [
                    (_("选手%(seat)s") % {"seat": seat}, f"p{number}_{seat}") for seat in (1, 2)
                ]
                self.groups.append((label, seats))
        for group, seats in self.groups:
            for label, prefix in seats:
                self.fields[f"{prefix}_name"] = forms.CharField(
                    label=_("%(group)s%(who)s姓名")
                    % {"group": group if len(seats) > 1 else "", "who": label},
                    max_length=60,
                    required=False,
                )
                self.fields[f"{prefix}_gender"] = forms.ChoiceField(
                    label=_("性别"), choices=GENDER_CHOICES, required=False
                )
                if members:
                    self.fields[f"{prefix}_unit"] = forms.ChoiceField(
                        label=_("所属单位"),
                        choices=[("", "—")] + [(m.name, m.name) for m in members],
                        required=False,
                    )
        if organiser:
            self.fields["on_site"] = forms.BooleanField(label=_("现场报名"), required=False)

    def rows(self):
        """Fields grouped per pair and per player, for the template."""
        for group, seats in self.groups:
            players = []
            for label, prefix in seats:
                parts = ("name", "gender", "unit")
                players.append(
                    (
                        label,
                        [self[f"{prefix}_{p}"] for p in parts if f"{prefix}_{p}" in self.fields],
                    )
                )
            yield group, players

    def entry_form(self) -> EntryForm:
        data = self.cleaned_data

        def person(prefix):
            return PersonForm(
                data.get(f"{prefix}_name", ""),
                data.get(f"{prefix}_gender", ""),
                data.get(f"{prefix}_unit", ""),
            )

        # Organisers tick 现场报名 (ticked by default after the deadline); leaders never do.
        on_site = bool(data.get("on_site")) if "on_site" in self.fields else None
        if self.event.entry_kind == Event.EntryKind.SINGLE:
            return EntryForm(unit=self.unit.name, player=person("s"), on_site=on_site)
        pairs = []
        number = 1
        while f"p{number}_1_name" in self.fields:
            pairs.append((person(f"p{number}_1"), person(f"p{number}_2")))
            number += 1
        return EntryForm(unit=self.unit.name, pairs=pairs, on_site=on_site)

    @classmethod
    def initial_for(cls, entry: Entry) -> dict:
        initial = {}
        gender = {"M": "男", "F": "女", "": ""}
        if entry.player_id:
            p = entry.player
            initial.update(s_name=p.name, s_gender=gender[p.gender], s_unit=p.unit.name)
        for pair in entry.pairs.all():
            for seat, p in ((1, pair.first), (2, pair.second)):
                prefix = f"p{pair.number}_{seat}"
                initial.update(
                    {
                        f"{prefix}_name": p.name,
                        f"{prefix}_gender": gender[p.gender],
                        f"{prefix}_unit": p.unit.name,
                    }
                )
        return initial


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

    def clean(self):
        cleaned = super().clean()
        name, role = cleaned.get("name", "").strip(), cleaned.get("role")
        if Official.objects.filter(tournament=self.tournament, name=name, role=role).exists():
            raise forms.ValidationError(_("%(name)s已是本比赛的这一职务。") % {"name": name})
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
