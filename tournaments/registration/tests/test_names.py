"""One normalisation for names, for storage, identity and display (issue 17): an invisible
character does not make a second person of one, nor a second unit."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from guandan_cup.inputs import normalise_name
from tournaments.manage.forms import OfficialForm, UnitForm
from tournaments.models import Entry, Event, Official, Player, Unit
from tournaments.registration.selectors import name_clashes, shown
from tournaments.registration.services import (
    EntryForm,
    PersonForm,
    RegistrationError,
    register_entries,
    update_entry,
)

ZWSP, ZWJ, SHY, RLO, PDF, LRI, PDI, BOM, WJ = (
    "\u200b",
    "\u200d",
    "\u00ad",
    "\u202e",
    "\u202c",
    "\u2066",
    "\u2069",
    "\ufeff",
    "\u2060",
)
INVISIBLE = [ZWSP, ZWJ, SHY, RLO, PDF, LRI, PDI, BOM, WJ, "\u200e", "\u200f", "\x7f", "\x1b"]
TWINS = [f"张{ZWSP}三丰", f"张三丰{SHY}", f"{RLO}张三丰", f"张{ZWJ}三{WJ}丰", f"{BOM}张三丰{PDF}"]


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        (f"张{ZWSP}三丰", "张三丰"),
        (f"张三丰{SHY}", "张三丰"),
        (f"{RLO}张三丰", "张三丰"),
        (f"{LRI}Ann{PDI} Lee", "Ann Lee"),
        (f"John{ZWJ}\tSmith", "John Smith"),
        ("Ｊｏｈｎ\u3000Ｓｍｉｔｈ", "John Smith"),
        ("张\n三", "张三"),
        (f"{ZWSP}{SHY}", ""),
        ("e\u200b\u0301", "\u00e9"),  # the mark joins its letter once the space between goes
        ("-张三", "-张三"),
        ("=HYPERLINK(1)", "=HYPERLINK(1)"),
    ],
)
def test_a_name_loses_its_invisible_characters(typed, stored):
    assert normalise_name(typed) == stored


@given(st.text(max_size=30))
def test_the_normalisation_is_idempotent_and_leaves_nothing_invisible(text):
    once = normalise_name(text)
    assert normalise_name(once) == once
    assert once == once.strip() and "  " not in once
    assert not any(ch in once for ch in INVISIBLE)


@given(
    st.lists(st.sampled_from(INVISIBLE), min_size=1, max_size=4),
    st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=4),
)
def test_invisible_characters_anywhere_in_a_name_leave_the_name(marks, places):
    name = list("张三丰")
    for mark, place in zip(marks, places, strict=False):
        name.insert(place, mark)
    assert normalise_name("".join(name)) == "张三丰"


# ---------------------------------------------------------------- storage


@pytest.fixture
def cup(make_tournament):
    t = make_tournament(one_event_per_person=True)
    for name in ["体育", "行政"]:
        Unit.objects.create(tournament=t, name=name, kind=Unit.Kind.UNION_GROUP)
    for slug, discipline in [("pairs", "guandan_pairs"), ("chess", "xiangqi")]:
        Event.objects.create(
            tournament=t, slug=slug, name=slug, discipline=discipline, ruleset="anhui2021"
        )
    Event.objects.filter(tournament=t, slug="chess").update(ruleset="")
    return t


def test_every_row_with_a_name_stores_it_normalised_however_it_is_written(cup):
    unit = Unit.objects.create(tournament=cup, name=f"{RLO}后勤{ZWSP}", kind="office")
    player = Player.objects.create(tournament=cup, unit=unit, name=f"李{SHY}四")
    official = Official.objects.create(tournament=cup, name=f"裁判{BOM}甲", role="referee")
    entry = Entry.objects.create(
        event=cup.events.get(slug="chess"), unit=unit, name=f"李四{ZWJ}", player=player
    )
    for row, name in [(unit, "后勤"), (player, "李四"), (official, "裁判甲"), (entry, "李四")]:
        row.refresh_from_db()
        assert row.name == name


def test_an_entry_name_keeps_the_house_s_full_width_brackets(cup):
    unit = cup.units.get(name="行政")
    player = Player.objects.create(tournament=cup, unit=unit, name="张伟")
    entry = Entry.objects.create(
        event=cup.events.get(slug="chess"), unit=unit, name=f"张伟{ZWSP}（行政）", player=player
    )
    entry.refresh_from_db()
    assert entry.name == "张伟（行政）"


def test_the_admin_refuses_an_invisible_twin_of_a_unit_as_a_duplicate(cup):
    twin = Unit(tournament=cup, name=f"体育{ZWSP}", kind=Unit.Kind.UNION_GROUP)
    with pytest.raises(ValidationError) as excinfo:
        twin.full_clean()
    assert twin.name == "体育"
    assert "__all__" in excinfo.value.message_dict or "name" in excinfo.value.message_dict


@pytest.mark.parametrize("twin", [f"体育{ZWSP}", f"{RLO}体育", f"体{SHY}育", "体育\u3000"])
def test_the_unit_form_refuses_an_invisible_twin(cup, twin):
    form = UnitForm({"name": twin, "kind": "office"}, tournament=cup)
    assert not form.is_valid()
    assert form.errors["name"] == ["已有名为“体育”的单位。"]
    assert cup.units.count() == 2


def test_the_unit_form_stores_the_normalised_name(cup):
    form = UnitForm({"name": f"{RLO}后勤{ZWSP}处", "kind": "office"}, tournament=cup)
    assert form.is_valid(), form.errors
    assert form.save().name == "后勤处"


def test_a_unit_name_of_only_invisible_characters_is_refused(cup):
    form = UnitForm({"name": f"{ZWSP}{SHY}{RLO}", "kind": "office"}, tournament=cup)
    assert not form.is_valid()
    assert form.errors["name"] == ["名称不能只有空格或不可见字符。"]


def test_a_unit_name_longer_than_its_column_once_normalised_is_refused(cup):
    # U+FDFA is one character that NFKC spells out in 18.
    form = UnitForm({"name": "\ufdfa" * 6, "kind": "office"}, tournament=cup)
    assert not form.is_valid()
    assert form.errors["name"] == ["名称过长（最多100个字）。"]


def test_the_official_form_refuses_an_invisible_twin_of_an_official(cup):
    Official.objects.create(tournament=cup, name="王裁判", role="referee")
    form = OfficialForm({"name": f"王{ZWSP}裁判", "role": "referee"}, tournament=cup)
    assert not form.is_valid()
    assert form.non_field_errors() == ["王裁判已是本比赛的这一职务。"]


# ---------------------------------------------------------------- identity


def single(name, unit="体育"):
    return EntryForm(unit=unit, player=PersonForm(name, "男"))


def pair(a, b="李四", unit="体育"):
    return EntryForm(unit=unit, pairs=[(PersonForm(a, "男"), PersonForm(b, "女"))])


def problems(**kwargs) -> list[str]:
    before = list(Entry.objects.values_list("pk", "name")), Player.objects.count()
    with pytest.raises(RegistrationError) as excinfo:
        register_entries(organiser=True, **kwargs)
    assert (list(Entry.objects.values_list("pk", "name")), Player.objects.count()) == before
    return [str(p) for p in excinfo.value.problems]


@pytest.mark.parametrize("twin", TWINS)
def test_the_one_event_rule_holds_through_invisible_characters(cup, twin):
    register_entries(event=cup.events.get(slug="chess"), forms=[single("张三丰")], organiser=True)
    assert problems(event=cup.events.get(slug="pairs"), forms=[pair(twin)]) == [
        "张三丰（体育）已报名chess，每人只能参加一个比赛项目。"
    ]


@pytest.mark.parametrize("twin", TWINS)
def test_nobody_enters_one_event_twice_through_invisible_characters(cup, twin):
    chess = cup.events.get(slug="chess")
    register_entries(event=chess, forms=[single("张三丰")], organiser=True)
    assert problems(event=chess, forms=[single(twin)]) == [
        "张三丰（体育）已报名本项目，同一项目每人只能报一次。"
    ]


@pytest.mark.parametrize("twin", TWINS)
def test_one_submission_cannot_hold_a_person_and_their_invisible_twin(cup, twin):
    chess = cup.events.get(slug="chess")
    assert problems(event=chess, forms=[single("张三丰"), single(twin)]) == [
        "张三丰（体育）在本次报名中出现了2次，同一项目每人只能报一次。"
    ]
    assert problems(event=cup.events.get(slug="pairs"), forms=[pair("张三丰", twin)]) == [
        "这一对两名选手是同一人（张三丰）。"
    ]


def test_an_invisible_twin_of_a_unit_is_that_unit(cup):
    [entry] = register_entries(
        event=cup.events.get(slug="chess"),
        forms=[single("王五", unit=f"{RLO}体{ZWSP}育")],
        organiser=True,
    )
    assert entry.unit.name == "体育" and entry.player.name == "王五"
    assert Unit.objects.filter(tournament=cup).count() == 2


def test_a_changed_entry_keeps_the_one_event_rule_through_invisible_characters(cup):
    chess, pairs = cup.events.get(slug="chess"), cup.events.get(slug="pairs")
    register_entries(event=chess, forms=[single("张三丰")], organiser=True)
    [entry] = register_entries(event=pairs, forms=[pair("赵六")], organiser=True)
    with pytest.raises(RegistrationError) as excinfo:
        update_entry(entry=entry, form=pair(f"张三{ZWSP}丰"), organiser=True)
    assert [str(p) for p in excinfo.value.problems] == [
        "张三丰（体育）已报名chess，每人只能参加一个比赛项目。"
    ]


# ---------------------------------------------------------------- the migration


def _migration():
    return importlib.import_module("tournaments.migrations.0009_normalise_names")


def _store_as_typed(model, pk, name):
    """Write a name past the model's normalisation, as rows from before it were written."""
    model.objects.filter(pk=pk).update(name=name)


def test_the_migration_normalises_old_names_and_leaves_clashes_for_the_organiser(cup, client):
    chess = cup.events.get(slug="chess")
    sport, office = cup.units.get(name="体育"), cup.units.get(name="行政")
    [zhang] = register_entries(event=chess, forms=[single("张三丰")], organiser=True)
    [li] = register_entries(event=chess, forms=[single("李四", unit="行政")], organiser=True)
    twin = Player.objects.create(tournament=cup, unit=sport, name="张三丰x")
    _store_as_typed(Player, twin.pk, f"张{ZWSP}三丰")  # a clash with 张三丰 in 体育
    _store_as_typed(Player, li.player_id, f"{RLO}李四")  # alone: normalised
    _store_as_typed(Unit, office.pk, f"行政{SHY}")  # alone: normalised
    # Named as its player of its unit (two 李四 in one event), both renamed.
    _store_as_typed(Entry, li.pk, f"{RLO}李四（行政{SHY}）")
    _store_as_typed(Entry, zhang.pk, f"张三丰{ZWJ}")  # a name of its own: invisibles dropped
    team = Entry.objects.create(event=cup.events.get(slug="pairs"), unit=office, name="x")
    _store_as_typed(Entry, team.pk, f"行政{SHY}")  # named as its unit: renamed with it
    lone = Official.objects.create(tournament=cup, name="裁判", role="referee")
    _store_as_typed(Official, lone.pk, f"裁判{BOM}")  # alone in its role: normalised

    _migration().normalise_names(apps, None)

    assert Player.objects.get(pk=li.player_id).name == "李四"
    assert Unit.objects.get(pk=office.pk).name == "行政"
    assert Entry.objects.get(pk=li.pk).name == "李四（行政）"  # brackets stay full-width
    assert Entry.objects.get(pk=zhang.pk).name == "张三丰"
    assert Entry.objects.get(pk=team.pk).name == "行政"
    assert Official.objects.get(pk=lone.pk).name == "裁判"
    # The clash: both rows exactly as they were, nothing merged or deleted.
    assert Player.objects.get(pk=zhang.player_id).name == "张三丰"
    assert Player.objects.get(pk=twin.pk).name == f"张{ZWSP}三丰"
    [clash] = name_clashes(cup)
    assert (clash.what, clash.name) == ("选手（体育）", "张三丰")
    assert clash.stored == ("张三丰", "张⟨U+200B⟩三丰")

    # And the organiser sees it on the dashboard, the invisible character spelt out.
    organiser = get_user_model().objects.create_user("names-organiser")
    Official.objects.create(tournament=cup, name="组织者", role="organiser", user=organiser)
    client.force_login(organiser)
    html = client.get(reverse("manage:dashboard", args=[cup.slug])).content.decode()
    assert "需要核对的名称" in html
    assert "选手（体育）“张三丰”：张三丰、张⟨U+200B⟩三丰" in html
    assert ZWSP not in html


def test_a_clash_of_units_is_listed_and_registrations_go_to_the_unit_stored_as_named(cup):
    twin = Unit.objects.create(tournament=cup, name="体育x", kind=Unit.Kind.UNION_GROUP)
    _store_as_typed(Unit, twin.pk, f"{RLO}体育")
    _migration().normalise_names(apps, None)
    assert Unit.objects.get(pk=twin.pk).name == f"{RLO}体育"
    assert [(c.what, c.name, c.stored) for c in name_clashes(cup)] == [
        ("单位", "体育", ("体育", "⟨U+202E⟩体育"))
    ]
    chess = cup.events.get(slug="chess")
    for n, typed in enumerate(["体育", f"{RLO}体育", f"体{ZWSP}育"]):
        [entry] = register_entries(event=chess, forms=[single(f"选手{n}", typed)], organiser=True)
        assert entry.unit.pk == cup.units.get(name="体育").pk


def test_a_clean_tournament_has_no_clashes_and_the_dashboard_says_nothing(cup, client):
    register_entries(event=cup.events.get(slug="chess"), forms=[single("张三丰")], organiser=True)
    assert name_clashes(cup) == []
    organiser = get_user_model().objects.create_user("names-organiser")
    Official.objects.create(tournament=cup, name="组织者", role="organiser", user=organiser)
    client.force_login(organiser)
    html = client.get(reverse("manage:dashboard", args=[cup.slug])).content.decode()
    assert "需要核对的名称" not in html


def test_shown_spells_out_every_invisible_character():
    assert shown(f"{RLO}张{ZWSP}三丰{SHY}") == "⟨U+202E⟩张⟨U+200B⟩三丰⟨U+00AD⟩"


def test_private_use_and_unassigned_code_points_are_dropped_from_names():
    from guandan_cup.inputs import normalise_name

    assert normalise_name("张\ue000三丰") == "张三丰"  # private use: no two fonts show it alike
    assert normalise_name("张三丰\U000e0fff") == "张三丰"  # unassigned
