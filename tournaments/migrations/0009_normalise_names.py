"""Names stored before there was one normalisation for them are normalised (issue 17).

Units, players and officials whose stored name differs from its normalised form get the
normalised form; entries (team, pair and player names, made of those names) lose their
invisible characters, and an entry named as its unit or its player is named as they are now.
Where two rows that must have different names (a tournament's units, a unit's players, a
role's officials, an event's entries) would become one name, both are left exactly as they
are, never merged: the organiser's dashboard lists them
(tournaments.registration.selectors.name_clashes) to be renamed or merged by hand.

The normalisation is copied here as it was when this migration was written, so that a later
change to guandan_cup.inputs does not change what this migration did.
"""

import re
import unicodedata
from collections import defaultdict

from django.db import migrations

_INVISIBLE = frozenset(("Cc", "Cf", "Cs"))
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SPACE_IN_CJK = re.compile(r"(?<=[\u3400-\u9fff\uf900-\ufaff·]) (?=[\u3400-\u9fff\uf900-\ufaff·])")


def _visible(text):
    return "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch) not in _INVISIBLE
    )


def without_invisibles(value):
    return " ".join(_visible("" if value is None else str(value)).split())


def normalise_name(value):
    text = unicodedata.normalize("NFKC", _visible("" if value is None else str(value)))
    text = " ".join(_visible(text).split())
    if _CJK.search(text):
        text = _SPACE_IN_CJK.sub("", text)
    return text


def _normalise(model, scope, new_name):
    """Give each row of ``model`` ``new_name(row)`` unless another row with the same ``scope``
    would have the same name, or it cannot be stored. Returns {pk: (old, new)} of the renamed."""
    limit = model._meta.get_field("name").max_length
    groups = defaultdict(list)
    for row in model.objects.values().iterator():
        groups[(*(row[f] for f in scope), new_name(row))].append(row)
    renamed = {}
    for key, rows in groups.items():
        new = key[-1]
        if len(rows) > 1 or not new or len(new) > limit:
            continue  # a clash (left for the organiser), or nothing storable
        if rows[0]["name"] != new:
            model.objects.filter(pk=rows[0]["id"]).update(name=new)
            renamed[rows[0]["id"]] = (rows[0]["name"], new)
    return renamed


def normalise_names(apps, schema_editor):
    def model(name):
        return apps.get_model("tournaments", name)

    def by_name(row):
        return normalise_name(row["name"])

    units = _normalise(model("Unit"), ("tournament_id",), by_name)
    players = _normalise(model("Player"), ("tournament_id", "unit_id"), by_name)
    _normalise(model("Official"), ("tournament_id", "role"), by_name)

    unit_names = dict(model("Unit").objects.values_list("id", "name"))
    player_names = dict(model("Player").objects.values_list("id", "name"))

    def entry_name(row):
        name = row["name"]
        unit_id, player_id = row["unit_id"], row["player_id"]
        unit_old, unit_new = units.get(unit_id) or (unit_names.get(unit_id),) * 2
        player_old, player_new = players.get(player_id) or (player_names.get(player_id),) * 2
        if name == unit_old:
            return unit_new  # a team is named as its unit
        if player_id is not None and name == player_old:
            return player_new
        if player_id is not None and name == f"{player_old}（{unit_old}）":
            return f"{player_new}（{unit_new}）"  # two players of one name in one event
        return without_invisibles(name)

    _normalise(model("Entry"), ("event_id",), entry_name)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0008_event_changed_at"),
    ]

    operations = [
        migrations.RunPython(normalise_names, migrations.RunPython.noop, elidable=True),
    ]
