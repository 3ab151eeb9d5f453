from io import StringIO

from django.core.management import call_command

from tournaments.models import (
    Draw,
    Entry,
    Event,
    Match,
    Official,
    Pair,
    Player,
    Round,
    Stage,
    Tournament,
    Unit,
    Venue,
)

MODELS = [Tournament, Venue, Official, Event, Unit, Player, Entry, Pair, Draw, Stage, Round, Match]


def _counts():
    return {model.__name__: model.objects.count() for model in MODELS}


def test_load_demo_twice_changes_nothing(db):
    call_command("load_demo", stdout=StringIO())
    first = _counts()
    names = sorted(Player.objects.values_list("name", flat=True))
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert _counts() == first
    assert sorted(Player.objects.values_list("name", flat=True)) == names
    assert "nantong-2014" in out.getvalue()


def test_nantong_has_eight_union_group_teams_of_three_pairs(demo):
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    assert event.ruleset == "nantong2014"
    teams = list(event.entries.order_by("id").values_list("name", flat=True))
    assert teams == [
        "体育",
        "行政",
        "教务物理联队",
        "生物数学联队",
        "历史",
        "实验技术",
        "后勤",
        "政治",
    ]
    for entry in event.entries.all():
        assert entry.pairs.count() == 3
    joint = Unit.objects.get(tournament__slug="nantong-2014", name="教务物理联队")
    assert joint.kind == Unit.Kind.JOINT
    assert sorted(joint.members.values_list("name", flat=True)) == ["教务", "物理"]
    # A joint team's players come from its member units.
    entry = event.entries.get(name="教务物理联队")
    units = {p.first.unit.name for p in entry.pairs.all()} | {
        p.second.unit.name for p in entry.pairs.all()
    }
    assert units == {"教务", "物理"}


def test_anhui_has_four_events_and_each_person_enters_one_only(demo):
    tournament = demo["anhui-2021"]
    assert tournament.one_event_per_person
    slugs = list(tournament.events.values_list("slug", flat=True))
    assert slugs == ["guandan", "xiangqi", "badminton", "table-tennis"]
    seen = {}
    for entry in Entry.objects.filter(event__tournament=tournament).select_related(
        "event", "player"
    ):
        people = (
            [entry.player]
            if entry.player
            else [p for pair in entry.pairs.all() for p in (pair.first, pair.second)]
        )
        for person in people:
            assert seen.setdefault(person.pk, entry.event.slug) == entry.event.slug
    assert (
        Official.objects.get(tournament=tournament, role=Official.Role.CHIEF_REFEREE).name == "肖慧"
    )


def test_nantong_has_the_notices_own_draw_and_anhui_random_draws(demo):
    from tournaments.models import Draw, Match

    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    draw = Draw.objects.get(event=event)
    assert draw.method == Draw.Method.PHYSICAL
    first = Match.objects.filter(round__stage__event=event, round__number=1).order_by("index")
    assert [f"{m.home.name}——{m.away.name}" for m in first] == [
        "体育——行政",
        "教务物理联队——生物数学联队",
        "历史——实验技术",
        "后勤——政治",
    ]
    names = list(event.stages.get().rounds.values_list("name", flat=True))
    assert names == ["1/4决赛", "半决赛", "决赛"]
    assert Match.objects.filter(round__stage__event=event, is_third_place=True).count() == 1
    for event in Event.objects.filter(tournament__slug="anhui-2021"):
        draw = Draw.objects.get(event=event)
        assert draw.method == Draw.Method.RANDOM and draw.seed is not None


def test_load_demo_with_results_plays_every_event_to_its_placings_once(db):
    from tournaments.draw import selectors as draw_selectors
    from tournaments.models import Draw  # noqa: F401  (models loaded)

    call_command("load_demo", "--with-results", stdout=StringIO())
    counts = _counts()
    from scoring.models import TableEvent, TableMatch

    events = TableEvent.objects.count()
    assert events > 0
    assert (
        not TableMatch.objects.exclude(status=TableMatch.Status.CONFIRMED)
        .filter(events__isnull=False)
        .exists()
    )
    events_played = 0
    for event in Event.objects.filter(tournament__slug__in=["nantong-2014", "anhui-2021"]):
        assert [rank for rank, _entry in draw_selectors.placings(event)] == [1, 2, 3, 4], event.slug
        events_played += 1
    assert events_played == 5  # nantong guandan; anhui guandan, chess, badminton, table tennis
    # The chess and rally matches were recorded game by game through the referee services.
    games = TableEvent.objects.filter(
        table__match__round__stage__event__discipline__in=["xiangqi", "badminton", "table_tennis"]
    )
    assert games.filter(payload__has_key="result").exists()
    assert games.filter(payload__has_key="home").exists()
    out = StringIO()
    call_command("load_demo", "--with-results", stdout=out)
    assert "played 0 ties" in out.getvalue()
    assert _counts() == counts and TableEvent.objects.count() == events
