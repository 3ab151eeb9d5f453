"""Names (issues 17 and 26): stored as typed less what cannot be seen, compared by their key —
an invisible character or a traditional form does not make a second person of one, nor a
second unit, and full-width punctuation reads back as typed."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from guandan_cup.inputs import clean_name, name_key
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
TWINS += ["张\u034f三丰", "\u115f张三丰", "张三\u3164丰", "张三丰\ufe00", "張三豐"]


@pytest.mark.parametrize(
    ("typed", "stored", "key"),
    [
        (f"张{ZWSP}三丰", "张三丰", "张三丰"),
        (f"张三丰{SHY}", "张三丰", "张三丰"),
        (f"{RLO}张三丰", "张三丰", "张三丰"),
        (f"{LRI}Ann{PDI} Lee", "Ann Lee", "ann lee"),
        (f"John{ZWJ}\tSmith", "John Smith", "john smith"),
        # Stored as typed; the key folds the full width and the case.
        ("Ｊｏｈｎ\u3000Ｓｍｉｔｈ", "Ｊｏｈｎ Ｓｍｉｔｈ", "john smith"),
        ("张\n三", "张 三", "张三"),
        (f"{ZWSP}{SHY}", "", ""),
        ("e\u200b\u0301", "e\u0301", "\u00e9"),  # the mark joins its letter in the key
        ("-张三", "-张三", "-张三"),
        ("=HYPERLINK(1)", "=HYPERLINK(1)", "=hyperlink(1)"),
        # Full-width punctuation is what people typed: kept; the key folds it.
        ("后勤（一组）：食堂，", "后勤（一组）：食堂，", "后勤(一组):食堂,"),
        ("張偉", "張偉", "张伟"),  # traditional forms are the simplified name
    ],
)
def test_a_name_is_stored_as_typed_less_what_cannot_be_seen_and_compared_by_its_key(
    typed, stored, key
):
    assert clean_name(typed) == stored
    assert name_key(typed) == key


# Invisible by the Unicode property Default_Ignorable_Code_Point, not by a list: the combining
# grapheme joiner (a mark, not a format character), the Hangul fillers (letters), a
# variation selector, and more that no category test finds.
DEFAULT_IGNORABLE = ["\u034f", "\u115f", "\u3164", "\ufe00", "\u180b", "\u17b4", "\uffa0"]


@pytest.mark.parametrize("mark", INVISIBLE + DEFAULT_IGNORABLE)
def test_every_invisible_code_point_leaves_the_stored_name_and_its_key(mark):
    assert clean_name(f"张{mark}三丰") == "张三丰"
    assert name_key(f"张三{mark}丰") == name_key("张三丰")


@given(st.text(max_size=30))
def test_cleaning_and_keying_are_idempotent_and_leave_nothing_invisible(text):
    once = clean_name(text)
    assert clean_name(once) == once
    assert name_key(once) == name_key(text) == name_key(name_key(text))
    assert once == once.strip() and "  " not in once
    assert not any(ch in once for ch in INVISIBLE + DEFAULT_IGNORABLE)


@given(
    st.lists(st.sampled_from(INVISIBLE + DEFAULT_IGNORABLE), min_size=1, max_size=4),
    st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=4),
)
def test_invisible_characters_anywhere_in_a_name_leave_the_name(marks, places):
    name = list("张三丰")
    for mark, place in zip(marks, places, strict=False):
        name.insert(place, mark)
    assert clean_name("".join(name)) == "张三丰"


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


def test_the_unit_form_stores_the_name_as_typed_less_the_invisible(cup):
    form = UnitForm({"name": f"{RLO}后勤{ZWSP}处", "kind": "office"}, tournament=cup)
    assert form.is_valid(), form.errors
    assert form.save().name == "后勤处"


def test_a_unit_name_of_only_invisible_characters_is_refused(cup):
    form = UnitForm({"name": f"{ZWSP}{SHY}{RLO}", "kind": "office"}, tournament=cup)
    assert not form.is_valid()
    assert form.errors["name"] == ["名称不能只有空格或不可见字符。"]


def test_a_unit_name_longer_than_its_column_is_refused(cup):
    form = UnitForm({"name": "体" * 101, "kind": "office"}, tournament=cup)
    assert not form.is_valid()
    assert "100" in form.errors["name"][0]


def test_a_name_that_nfkc_spells_out_long_is_stored_and_keyed(cup):
    # U+FDFA is one character that NFKC spells out in 18: the key is cut to its column.
    form = UnitForm({"name": "\ufdfa" * 100, "kind": "office"}, tournament=cup)
    assert form.is_valid(), form.errors
    unit = form.save()
    assert unit.name == "\ufdfa" * 100 and len(unit.name_key) == 400


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

    assert clean_name("张\ue000三丰") == "张三丰"  # private use: no two fonts show it alike
    assert clean_name("张三丰\U000e0fff") == "张三丰"  # unassigned


# ------------------------------------------------- the ways in: the page and import_entries

SAME_PERSON = ["張三豐", "张\u034f三丰", "\u115f张三丰", "张三\u3164丰", "张三丰\ufe00"]


@pytest.fixture
def leader_of_sport(cup):
    user = get_user_model().objects.create_user("names-leader")
    cup.units.get(name="体育").leaders.add(user)
    register_entries(event=cup.events.get(slug="chess"), forms=[single("张三丰")], organiser=True)
    return user


@pytest.mark.parametrize("twin", SAME_PERSON)
def test_the_registration_page_refuses_the_same_person_written_otherwise(
    client, cup, leader_of_sport, twin
):
    from tournaments.models import Tournament

    Tournament.objects.filter(pk=cup.pk).update(status="registration_open")
    client.force_login(leader_of_sport)
    sport = cup.units.get(name="体育")
    before = list(Entry.objects.values_list("pk", "name")), Player.objects.count()
    # Another event, under 每人限报一项.
    url = reverse("registration:add-entry", args=[cup.slug, sport.pk, "pairs"])
    data = {
        "pairs-p1_1_name": twin,
        "pairs-p1_1_gender": "男",
        "pairs-p1_2_name": "李四",
        "pairs-p1_2_gender": "女",
    }
    html = client.post(url, data).content.decode()
    assert "张三丰（体育）已报名chess，每人只能参加一个比赛项目。" in html
    # The same event again.
    url = reverse("registration:add-entry", args=[cup.slug, sport.pk, "chess"])
    html = client.post(url, {"chess-s_name": twin, "chess-s_gender": "男"}).content.decode()
    assert "张三丰（体育）已报名本项目，同一项目每人只能报一次。" in html
    # One person twice in a pair.
    url = reverse("registration:add-entry", args=[cup.slug, sport.pk, "pairs"])
    data["pairs-p1_2_name"] = "张三丰"
    Tournament.objects.filter(pk=cup.pk).update(one_event_per_person=False)
    html = client.post(url, data).content.decode()
    assert "这一对两名选手是同一人" in html
    assert (list(Entry.objects.values_list("pk", "name")), Player.objects.count()) == before


@pytest.mark.parametrize("twin", SAME_PERSON)
def test_import_entries_refuses_the_same_person_written_otherwise(cup, tmp_path, twin):
    from io import StringIO

    from django.core.management import call_command

    from tournaments.registration.spreadsheets.layout import COLUMNS
    from tournaments.registration.tests.test_spreadsheets import xlsx

    register_entries(event=cup.events.get(slug="chess"), forms=[single("张三丰")], organiser=True)
    before = list(Entry.objects.values_list("pk", "name")), Player.objects.count()
    path = tmp_path / "报名表.xlsx"
    headers = list(COLUMNS[Event.EntryKind.PAIR])
    path.write_bytes(xlsx([headers, ["体育", twin, "男", "李四", "女", ""]]))
    err = StringIO()
    with pytest.raises(SystemExit):
        call_command("import_entries", cup.slug, "pairs", str(path), stdout=StringIO(), stderr=err)
    assert "张三丰（体育）已报名chess，每人只能参加一个比赛项目。" in err.getvalue()
    assert (list(Entry.objects.values_list("pk", "name")), Player.objects.count()) == before


def test_a_unit_saved_with_full_width_punctuation_reads_back_exactly(cup):
    form = UnitForm({"name": "后勤（一组）：食堂，", "kind": "office"}, tournament=cup)
    assert form.is_valid(), form.errors
    unit = form.save()
    unit.refresh_from_db()
    assert unit.name == "后勤（一组）：食堂，"
    # …and its half-width spelling is the same unit.
    twin = UnitForm({"name": "后勤(一组):食堂,", "kind": "office"}, tournament=cup)
    assert not twin.is_valid()
    assert twin.errors["name"] == ["已有名为“后勤（一组）：食堂，”的单位。"]


def test_a_traditional_form_of_a_unit_is_that_unit(cup):
    form = UnitForm({"name": "體育", "kind": "office"}, tournament=cup)
    assert not form.is_valid() and form.errors["name"] == ["已有名为“体育”的单位。"]


def test_the_migration_gives_stored_rows_their_keys_and_leaves_clashes_listed(cup):
    migration = importlib.import_module("tournaments.migrations.0018_name_keys")
    sport = cup.units.get(name="体育")
    a = Player.objects.create(tournament=cup, unit=sport, name="张伟")
    b = Player.objects.create(tournament=cup, unit=sport, name="张伟x")
    Player.objects.filter(pk=b.pk).update(name="張偉", name_key="")  # as an old row was
    Unit.objects.filter(pk=sport.pk).update(name_key="")
    migration.give_keys(apps, None)
    assert Player.objects.get(pk=b.pk).name_key == "张伟" == Player.objects.get(pk=a.pk).name_key
    assert Unit.objects.get(pk=sport.pk).name_key == "体育"
    assert Player.objects.get(pk=b.pk).name == "張偉"  # nothing renamed or merged
    [clash] = name_clashes(cup)
    assert (clash.what, clash.stored) == ("选手（体育）", ("张伟", "張偉"))
