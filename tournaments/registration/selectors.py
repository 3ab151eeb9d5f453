"""Reads for the organiser about registration: names stored apart that are one name.

Every name is stored normalised (:func:`guandan_cup.inputs.normalise_name`, applied by the
models; an entry's name, made of such names, without invisible characters); rows from before
were normalised by migration 0009, except where two rows that must have different names would
have become one — those were left as they were, not merged, and :func:`name_clashes` lists
them on the organiser's dashboard.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from dataclasses import dataclass

from django.utils.translation import gettext as _

from guandan_cup.inputs import normalise_name, without_invisibles
from tournaments.models import Entry, Official, Tournament


@dataclass(frozen=True)
class NameClash:
    what: str  # "单位", "选手（体育）", "裁判（职务）", "参赛队（掼蛋团体）"
    name: str  # the one name they all normalise to
    stored: tuple[str, ...]  # each as stored, invisible characters shown as ⟨U+200B⟩


def shown(text: str) -> str:
    """A stored name with its invisible characters spelt out: 张⟨U+200B⟩三丰 — so the organiser
    sees why two names that look alike are two, and no bidi control turns the page around."""
    return "".join(
        f"⟨U+{ord(ch):04X}⟩" if unicodedata.category(ch) in ("Cc", "Cf", "Cs") else ch
        for ch in text
    )


def name_clashes(tournament: Tournament) -> list[NameClash]:
    """Rows of the tournament stored under two or more names that are one name once
    normalised, where a name must be unique: a tournament's units, a unit's players, a role's
    officials, an event's entries."""
    roles = dict(Official.Role.choices)
    groups: dict[tuple, list[str]] = defaultdict(list)
    labels: dict[tuple, str] = {}

    def add(scope: tuple, label: str, name: str, normalise=normalise_name) -> None:
        key = (*scope, normalise(name))
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
        add(("entry", event_id), label, name, without_invisibles)

    clashes = []
    for key, names in groups.items():
        if len(names) < 2:
            continue
        clashes.append(
            NameClash(
                what=labels[key],
                name=key[-1],
                # the normalised one (if stored) first
                stored=tuple(shown(n) for n in sorted(names, key=lambda n: (n != key[-1], n))),
            )
        )
    return sorted(clashes, key=lambda c: (c.what, c.name))
