"""The registration forms (报名): an entry's players as typed on a phone, and a withdrawal."""

from django import forms
from django.utils.translation import gettext_lazy as _

from tournaments.models import Entry, Event, Unit
from tournaments.registration.rules import PARTS
from tournaments.registration.services import EntryForm, PersonForm, Problem

GENDER_CHOICES = [("", _("—")), ("男", _("男")), ("女", _("女"))]


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
        # Each player's name in the form's own words (第1对选手1), by field prefix: the
        # registration's messages name them so.
        self.labels = {}
        if event.entry_kind == Event.EntryKind.SINGLE:
            self.groups.append((_("选手"), [(_("选手"), "s")]))
        else:
            pairs = event.tables_per_match
            for number in range(1, pairs + 1):
                label = _("第%(n)s对") % {"n": number} if pairs > 1 else _("一对选手")
                seats = [
                    (_("选手%(seat)s") % {"seat": seat}, f"p{number}_{seat}") for seat in (1, 2)
                ]
                self.groups.append((label, seats))
        for group, seats in self.groups:
            for label, prefix in seats:
                self.labels[prefix] = (
                    _("%(group)s%(who)s") % {"group": group, "who": label}
                    if len(self.groups) > 1
                    else label
                )
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
                label=self.labels[prefix],
                fields={
                    part: f"{prefix}_{part}" for part in PARTS if f"{prefix}_{part}" in self.fields
                },
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

    def show_problems(self, problems: list[Problem]) -> list[str]:
        """Put each problem of a field on that field (it is marked, aria-invalid, with the
        message under it); the others, the entry's as a whole, come back for the list
        above the form."""
        rest = []
        for problem in problems:
            marked = [name for name in problem.fields if name in self.fields]
            for name in marked:
                self.add_error(name, problem.message)
            if not marked:
                rest.append(str(problem))
        return rest

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
