"""A new sport is one engine module plus its rule sets, pages and documents included: a toy
engine (拔河, tug of war: best of three pulls), registered only here, is recorded through
the services and shown by the table page, the tie page, the referees' board and the score
sheet without a line of their code knowing it."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import reverse

from scoring.engines import scorer
from scoring.engines.board import Board, BoardSide, Sheet, words
from scoring.engines.common import EngineError, bad_event, forfeit_of_team, side_winner
from scoring.models import TableMatch
from scoring.services.tables import record_event
from tournaments.models import Event, Match

ANHUI = "anhui-2021"


@dataclass(frozen=True)
class PullRules:
    id: str = "tug3"
    name: str = "拔河三局两胜"
    best_of: int = 3
    forfeit_ends_event: bool = True
    time_limit_minutes: int | None = None

    def summary(self):
        return words("拔河：三局两胜")


def _toy_engine() -> types.ModuleType:
    """The engine module a new sport would add under scoring/engines/."""
    toy = types.ModuleType("toy_tug")
    toy.KIND = "tug"
    toy.DISCIPLINES = ("badminton",)  # takes over an existing discipline for the test
    toy.EVENTS = frozenset({"pull", "forfeit"})
    toy.preset_choices = lambda: {"tug": [("tug3", PullRules.name)]}
    toy.rules_for = lambda discipline, ruleset, config: PullRules()
    toy.after_whistle = lambda rules, payload: []
    toy.deduction = lambda rules, team: None
    toy.initial_state = lambda rules: {"home": 0, "away": 0, "over": False, "winner": None}

    def parse_event(payload):
        if isinstance(payload, dict) and payload.get("pull") in ("home", "away"):
            return {"pull": payload["pull"]}
        if isinstance(payload, dict) and "forfeit" in payload:
            return payload
        raise bad_event("拔河只记录每一局的胜方")

    def apply_event(state, event, rules):
        if state["over"]:
            raise EngineError("match_over")
        if "forfeit" in event:
            loser = event["forfeit"]["side"]
            return {**state, "over": True, "winner": "away" if loser == "home" else "home"}
        side = event["pull"]
        after = {**state, side: state[side] + 1}
        if after[side] * 2 > rules.best_of:
            after.update(over=True, winner=side)
        return after

    toy.parse_event = parse_event
    toy.event_to_dict = lambda event: dict(event)
    toy.apply_event = apply_event
    toy.describe_event = lambda before, event, after, rules, names: "拔河一局"
    toy.forfeit_event = lambda team, reason: forfeit_of_team(team, reason)

    def stored_state(state, rules):
        return {
            "pulls": {"home": state["home"], "away": state["away"]},
            "match_over": state["over"],
            "winner": state["winner"],
            "decided_by": "pulls" if state["over"] else None,
        }

    toy.stored_state = toy.public_state = stored_state
    toy.winner = side_winner
    toy.started = lambda stored: bool(sum((stored.get("pulls") or {}).values()))

    def score(stored):
        pulls = stored.get("pulls") or {}
        return str(pulls.get("home", 0)), str(pulls.get("away", 0))

    toy.score = score
    toy.games = lambda stored: None
    toy.games_won = lambda stored: tuple(int(x) for x in score(stored))
    toy.margin = lambda stored: float(int(score(stored)[0]) - int(score(stored)[1]))
    toy.tie_score = toy.games_won
    toy.tie_points = lambda stored: None
    toy.live_score = lambda tables: score(tables[0][0]) if tables else (0, 0)

    def board(stored, rules, names):
        home, away = score(stored)
        over = bool(stored.get("match_over"))
        line = words("拔河 %(a)s : %(b)s", a=home, b=away)
        return Board(
            sides=(
                BoardSide("A", names.get("A", "主方"), home, words("胜局")),
                BoardSide("B", names.get("B", "客方"), away, words("胜局")),
            ),
            status=words("比赛结束") if over else words("拔河进行中"),
            brief=line,
            heading=words("比分"),
            started=toy.started(stored),
            over=over,
            winner=side_winner(stored),
            note=line,
            line=line,
        )

    def sheet(items, rules, names):
        rows = []
        for n, item in enumerate((i for i in items if "pull" in i.payload), start=1):
            rows.append((str(n), names["A" if item.payload["pull"] == "home" else "B"]))
        return Sheet(
            columns=("局", "拔河胜方"),
            rows=tuple(rows),
            notes_title="弃权记录",
            blank_rows=rules.best_of - len(rows),
            blank_from=len(rows) + 1,
        )

    toy.board = board
    toy.sheet = sheet
    toy.table_title = lambda number, table_number: words("拔河绳 %(n)s", n=table_number or 1)
    toy.table_place = toy.table_title
    return toy


@pytest.fixture
def tug(monkeypatch):
    toy = _toy_engine()
    monkeypatch.setitem(sys.modules, toy.__name__, toy)
    monkeypatch.setattr(scorer, "ENGINES", {toy.KIND: toy, **scorer.ENGINES})
    return toy


def _first_badminton_table() -> TableMatch:
    match = (
        Match.objects.filter(
            round__stage__event__tournament__slug=ANHUI,
            round__stage__event__slug="badminton",
            round__number=1,
            home__isnull=False,
            away__isnull=False,
        )
        .exclude(status=Match.Status.BYE)
        .order_by("index")
        .select_related("home", "away")
        .first()
    )
    return TableMatch.objects.get(match=match)


@pytest.mark.django_db
def test_a_toy_sport_registered_in_the_tests_renders_its_table_page_board_and_score_sheet(
    demo, tug, client
):
    event = Event.objects.get(tournament__slug=ANHUI, slug="badminton")
    assert event.scorer().kind == "tug"
    table = _first_badminton_table()
    home, away = table.match.home.name, table.match.away.name
    record_event(table=table, event={"pull": "home"}, key="t1")
    record_event(table=TableMatch.objects.get(pk=table.pk), event={"pull": "away"}, key="t2")

    page = client.get(reverse("scoring:table", args=[ANHUI, "badminton", table.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "拔河进行中" in html and "拔河绳" in html
    assert '<p class="level">1</p>' in html
    assert home in html and away in html

    tie = client.get(reverse("live:match", args=[ANHUI, "badminton", table.match_id]))
    assert tie.status_code == 200 and "拔河 1 : 1" in tie.content.decode()

    staff = get_user_model().objects.create_user("staff", is_staff=True, is_superuser=True)
    client.force_login(staff)
    board = client.get(reverse("scoring:board", args=[ANHUI, "badminton"]))
    assert board.status_code == 200 and "拔河 1 : 1" in board.content.decode()

    from django.template.loader import render_to_string

    from tournaments.documents.build import scoresheet_context

    context = scoresheet_context(event, RequestFactory().get("/"), round_number=1)
    mine = next(s for s in context["sheets"] if s["table"].pk == table.pk)
    assert mine["sheet"].rows == (("1", home), ("2", away))
    printed = render_to_string("pdf/scoresheets.html", {**context, "sheets": [mine]})
    assert "拔河胜方" in printed and "拔河：三局两胜" in printed
    assert printed.count('<td class="n">3</td>') == 1  # the one blank pull left
    pdf = client.get(reverse("documents:scoresheets-pdf", args=[ANHUI, "badminton"]) + "?round=1")
    body = b"".join(pdf.streaming_content) if pdf.streaming else pdf.content
    assert pdf.status_code == 200 and body.startswith(b"%PDF")


@pytest.mark.django_db
def test_the_engines_words_reach_an_english_reader_in_english(demo, client):
    match = (
        Match.objects.filter(round__stage__event__tournament__slug="nantong-2014", round__number=1)
        .exclude(status=Match.Status.BYE)
        .order_by("index")
        .first()
    )
    table = TableMatch.objects.filter(match=match).order_by("number").first()
    record_event(table=table, event={"order": ["A", "A", "B", "B"]}, key="e1")
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    event_slug = match.round.stage.event.slug
    html = client.get(reverse("scoring:table", args=["nantong-2014", event_slug, table.pk]))
    text = html.content.decode()
    assert 'Playing <strong class="playing_level">' in text
    assert "Games 1" in text or "Games 0" in text
    assert "打 " not in text and "的级" not in text
