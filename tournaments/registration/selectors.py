"""Reads for the organiser about registration: names stored apart that are one name.

Every name is stored as typed less its invisible characters and compared by its key
(:func:`guandan_cup.inputs.name_key`: 張偉 is 张伟). Rows saved before the key existed were
given theirs by migration 0018; where two rows that must have different names share a key,
nothing was merged: :func:`name_clashes` lists them on the organiser's dashboard
(需要核对的名称).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import regex
from django.utils.translation import gettext as _

from guandan_cup.inputs import name_key
from tournaments.models import Entry, Official, Tournament


@dataclass(frozen=True)
class NameClash:
    what: str  # "单位", "选手（体育）", "裁判（职务）", "参赛队（掼蛋团体）"
    name: str  # the first of them as stored (their key is one)
    stored: tuple[str, ...]  # each as stored, invisible characters shown as ⟨U+200B⟩


_SHOWN = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}]")


def shown(text: str) -> str:
    """A stored name with its invisible characters spelt out: 张⟨U+200B⟩三丰 — so the organiser
    sees why two names that look alike are two, and no bidi control turns the page around."""
    return _SHOWN.sub(lambda found: f"⟨U+{ord(found[0]):04X}⟩", text)


def name_clashes(tournament: Tournament) -> list[NameClash]:
    """Rows of the tournament stored under two or more names with one key, where a name
    must be unique: a tournament's units, a unit's players, a role's officials, an event's
    entries."""
    roles = dict(Official.Role.choices)
    groups: dict[tuple, list[str]] = defaultdict(list)
    labels: dict[tuple, str] = {}

    def add(scope: tuple, label: str, name: str) -> None:
        key = (*scope, name_key(name))
        groups[key].append(name)
        labels[key] = label

    for name in tournament.units.values_list("name", flat=True):
        add(("unit",), _("单位"), name)
    for name, unit_id, unit_name in tournament.players.values_list("name", "unit_id", "unit__name"):
        add(("player", unit_id), _("选手（%(unit)s）") % {"unit": unit_name}, name)
    for name, role in tournament.officials.values_list("name", "role"):
        add(("official", role), str(roles.get(role, role)), name)
    entries = Entry.objects.filter(event__tournament=tournament)
    for name, event_id, event_name in entries.values_list("name", "event_id", "event__name"):
        label = _("参赛队（%(event)s）") % {"event": event_name}
        add(("entry", event_id), label, name)

    clashes = []
    for key, names in groups.items():
        if len(names) < 2:
            continue
        clashes.append(
            NameClash(what=labels[key], name=names[0], stored=tuple(shown(n) for n in names))
        )
    return sorted(clashes, key=lambda c: (c.what, c.name))
