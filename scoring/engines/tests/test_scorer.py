"""The scorer interface over the three engines (scoring.engines.scorer): pure, no database."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engines.common import FORFEIT_REASONS, EngineError, sides_swapped
from scoring.engines.scorer import scorer_for
from scoring.engines.simulate import random_rally, random_table, random_xiangqi

DISCIPLINES = ["guandan_team", "guandan_pairs", "xiangqi", "badminton", "table_tennis"]


@pytest.mark.parametrize(
    "discipline, ruleset, expected",
    [
        ("xiangqi", "", "anhui2021-xiangqi"),
        ("badminton", "", "badminton21"),
        ("table_tennis", "", "table-tennis11"),
        ("table_tennis", "table-tennis11-bo3", "table-tennis11-bo3"),
        ("guandan_pairs", "anhui2021", "anhui2021"),
        ("guandan_team", "nantong2014", "nantong2014"),
    ],
)
def test_each_discipline_gets_its_rule_set_or_the_default(discipline, ruleset, expected):
    assert scorer_for(discipline, ruleset).id == expected


@pytest.mark.parametrize(
    "discipline, ruleset",
    [
        ("badminton", "table-tennis11"),  # another sport's preset
        ("table_tennis", "badminton21"),
        ("xiangqi", "badminton21"),
        ("badminton", "nantong2014"),
        ("guandan_team", ""),  # guandan has no default: the organiser chooses
        ("guandan_team", "badminton21"),
        ("curling", ""),
    ],
)
def test_a_rule_set_that_does_not_fit_the_discipline_is_refused(discipline, ruleset):
    with pytest.raises(ValueError):
        scorer_for(discipline, ruleset)


def test_a_custom_rally_rule_set_from_config():
    config = {
        "id": "tt-bo3-21",
        "name": "乒乓球三局两胜（每局21分）",
        "games_to_win": 2,
        "points_to_win": 21,
        "cap": None,
        "sport": "table_tennis",
    }
    engine = scorer_for("table_tennis", "", config)
    assert engine.best_of == 3
    assert "每局21分" in str(engine.summary)
    with pytest.raises(ValueError, match="badminton"):
        scorer_for("badminton", "", config)


@pytest.mark.parametrize(
    "discipline, ruleset, events, winner, games_won, games",
    [
        (
            "badminton",
            "",
            [{"home": 21, "away": 17}, {"home": 28, "away": 30}, {"home": 30, "away": 29}],
            "A",
            (2, 1),
            [{"home": 21, "away": 17}, {"home": 28, "away": 30}, {"home": 30, "away": 29}],
        ),
        (
            "table_tennis",
            "",
            [{"home": 9, "away": 11}] * 3,
            "B",
            (0, 3),
            [{"home": 9, "away": 11}] * 3,
        ),
        (
            # 1-1 after two games, third game drawn: the player who moved second wins.
            "xiangqi",
            "",
            [
                {"result": "home", "first_move": "home"},
                {"result": "away", "first_move": "away"},
                {"result": "draw", "first_move": "home"},
            ],
            "B",
            (1, 1),
            [
                {"result": "home", "first_move": "home"},
                {"result": "away", "first_move": "away"},
                {"result": "draw", "first_move": "home"},
            ],
        ),
        (
            "xiangqi",
            "",
            [{"result": "draw", "first_move": "away"}, {"result": "home", "first_move": "home"}],
            "A",
            (1, 0),
            [{"result": "draw", "first_move": "away"}, {"result": "home", "first_move": "home"}],
        ),
    ],
)
def test_winner_games_and_games_won_in_the_services_terms(
    discipline, ruleset, events, winner, games_won, games
):
    engine = scorer_for(discipline, ruleset)
    state = engine.replay(events)
    assert engine.winner(state) == winner
    assert engine.games_won(state) == games_won
    assert engine.games(state) == games


def test_guandan_has_no_games_list_and_keeps_its_team_letters():
    engine = scorer_for("guandan_pairs", "anhui2021")
    state = engine.replay([{"forfeit": {"team": "B", "reason": "withdrawn"}}])
    assert engine.games(state) is None
    assert engine.winner(state) == "A"
    assert engine.forfeit("B", "withdrawn") == {"forfeit": {"team": "B", "reason": "withdrawn"}}


@pytest.mark.parametrize("discipline", DISCIPLINES)
@pytest.mark.parametrize("old_code", ["withdrew", "withdrawn"])
def test_a_withdrawal_recorded_under_the_old_code_reads_as_todays(discipline, old_code):
    engine = scorer_for(discipline, "nantong2014" if discipline.startswith("guandan") else "")
    team_or_side = {"team": "A"} if engine.kind == "guandan" else {"side": "home"}
    stored = {"forfeit": {**team_or_side, "reason": old_code}}
    assert engine.normalise(stored) == {"forfeit": {**team_or_side, "reason": "withdrawn"}}
    before = engine.initial()
    after = engine.replay([stored])
    assert engine.winner(after) == "B"
    assert (
        str(engine.describe(before, stored, after, {"A": "甲", "B": "乙"}))
        == "甲弃权，乙获胜（弃权）"
    )


@pytest.mark.parametrize("discipline", DISCIPLINES)
def test_every_engine_words_the_forfeit_reasons_alike(discipline):
    engine = scorer_for(discipline, "nantong2014" if discipline.startswith("guandan") else "")
    before = engine.initial()
    for code, label in FORFEIT_REASONS.items():
        payload = engine.forfeit("B", code)
        after = engine.apply(before, engine.parse(payload))
        assert str(engine.describe(before, payload, after, {"A": "甲", "B": "乙"})) == (
            f"乙弃权，甲获胜（{label}）"
        )


@pytest.mark.parametrize("discipline", ["xiangqi", "badminton", "table_tennis"])
def test_a_forfeit_in_the_referee_pages_terms_becomes_the_engines_event(discipline):
    engine = scorer_for(discipline)
    payload = engine.forfeit("A", "withdrew")
    assert payload == {"forfeit": {"side": "home", "reason": "withdrawn"}}
    state = engine.replay([payload])
    assert engine.winner(state) == "B"
    assert engine.decided_by(state) == "forfeit"
    assert engine.forfeit_ends_event


def test_the_description_names_the_players():
    engine = scorer_for("badminton")
    before = engine.initial()
    event = engine.parse({"home": 21, "away": 19})
    after = engine.apply(before, event)
    text = str(engine.describe(before, event, after, {"A": "张三", "B": "李四"}))
    assert text.startswith("第1局21–19，张三胜")


@pytest.mark.parametrize(
    "discipline, bad",
    [
        ("badminton", {"home": 21, "away": 20}),
        ("badminton", {"home": 31, "away": 29}),
        ("badminton", {"home": 22, "away": 18}),
        ("table_tennis", {"home": 11, "away": 10}),
        ("table_tennis", {"home": 13, "away": 10}),
        ("xiangqi", {"result": "home"}),
        ("xiangqi", {"result": "win", "first_move": "home"}),
    ],
)
def test_impossible_entries_raise_the_one_user_error_class(discipline, bad):
    engine = scorer_for(discipline)
    with pytest.raises(EngineError) as caught:
        engine.apply(engine.initial(), engine.parse(bad))
    assert caught.value.code in ("impossible_score", "invalid_event")
    assert caught.value.message


# ------------------------------------------------------------------ properties

SIMULATED = {
    "badminton": lambda engine, rng, s: random_rally(engine.rules, rng, strength=s)[0],
    "table_tennis": lambda engine, rng, s: random_rally(
        engine.rules, rng, strength=s, by_point=rng.random() < 0.5
    )[0],
    "xiangqi": lambda engine, rng, s: random_xiangqi(engine.rules, rng, strength=s)[0],
    "guandan_pairs": lambda engine, rng, s: random_table(engine.rules, rng, strength=s)[0],
}
EXTRA = [
    {"home": 21, "away": 3},
    {"point": "home"},
    {"result": "home", "first_move": "home"},
    {"order": ["A", "A", "B", "B"]},
    {"forfeit": {"side": "home"}},
    {"forfeit": {"team": "A"}},
]


@settings(max_examples=60, deadline=None)
@given(
    discipline=st.sampled_from(sorted(SIMULATED)),
    seed=st.integers(0, 2**32 - 1),
    strength=st.floats(0.1, 0.9),
    extra=st.sampled_from(EXTRA),
)
def test_a_finished_match_never_accepts_more(discipline, seed, strength, extra):
    engine = scorer_for(discipline, "anhui2021" if discipline.startswith("guandan") else "")
    events = SIMULATED[discipline](engine, random.Random(seed), strength)
    state = engine.replay(events)
    assert engine.match_over(state)
    with pytest.raises(EngineError) as caught:
        engine.apply(state, engine.parse(extra))
    assert caught.value.code in ("match_over", "invalid_event")
    # and the record replays to the same end: nothing was added
    assert engine.replay(events) == state


@settings(max_examples=80, deadline=None)
@given(
    discipline=st.sampled_from(["badminton", "table_tennis", "xiangqi"]),
    seed=st.integers(0, 2**32 - 1),
    strength=st.floats(0.05, 0.95),
)
def test_the_winner_always_has_the_majority(discipline, seed, strength):
    engine = scorer_for(discipline)
    events = SIMULATED[discipline](engine, random.Random(seed), strength)
    state = engine.replay(events)
    winner = engine.winner(state)
    home, away = engine.games_won(state)
    mine, theirs = (home, away) if winner == "A" else (away, home)
    if discipline == "xiangqi":
        points = state.points
        ours, others = (
            (points["home"], points["away"]) if winner == "A" else (points["away"], points["home"])
        )
        # More points, or level after a drawn decider that the second mover takes.
        assert ours > others or (ours == others and state.decided_by.startswith("third_game"))
    else:
        assert mine == engine.rules.games_to_win > theirs
        assert len(engine.games(state)) == mine + theirs <= engine.best_of


@pytest.mark.parametrize(
    "value, text", [(0, "0"), (0.0, "0"), (0.5, "½"), (1.0, "1"), (1.5, "1½"), (2, "2")]
)
def test_chess_points_are_written_with_a_half(value, text):
    from scoring.engines.xiangqi import format_points

    assert format_points(value) == text


@pytest.mark.parametrize("config", [[1], 5, "anhui2021", True, [{"id": "x"}]])
def test_a_custom_rule_set_that_is_not_an_object_is_refused_with_the_reason(config):
    for discipline in DISCIPLINES:
        with pytest.raises(ValueError, match="rule set must be a JSON object"):
            scorer_for(discipline, "", config)


@settings(max_examples=80, deadline=None)
@given(
    discipline=st.sampled_from(sorted(SIMULATED)),
    seed=st.integers(0, 2**32 - 1),
    strength=st.floats(0.1, 0.9),
)
def test_a_record_turned_round_is_the_same_match_won_by_the_other_side(discipline, seed, strength):
    """主客双方对调 on the correction page: a record kept for the wrong side throughout,
    turned round, replays to the mirror image — the other winner, the score the other way
    round — and turned round twice it is the record again."""
    engine = scorer_for(discipline, "anhui2021" if discipline.startswith("guandan") else "")
    events = [
        engine.normalise(e) for e in SIMULATED[discipline](engine, random.Random(seed), strength)
    ]
    turned = [sides_swapped(e) for e in events]
    assert [sides_swapped(e) for e in turned] == events
    state, mirror = engine.replay(events), engine.replay(turned)
    assert engine.match_over(mirror)
    assert engine.winner(mirror) == {"A": "B", "B": "A", None: None}[engine.winner(state)]
    assert engine.score(mirror) == tuple(reversed(engine.score(state)))
    assert engine.tie_score(mirror) == tuple(reversed(engine.tie_score(state)))


@pytest.mark.parametrize(
    "event, turned",
    [
        ({"home": 11, "away": 7}, {"home": 7, "away": 11}),
        ({"point": "home"}, {"point": "away"}),
        ({"first_server": "away"}, {"first_server": "home"}),
        ({"result": "draw", "first_move": "home"}, {"result": "draw", "first_move": "away"}),
        (
            {"forfeit": {"side": "home", "reason": "withdrawn"}},
            {"forfeit": {"side": "away", "reason": "withdrawn"}},
        ),
        (
            {"order": list("ABBA"), "seats": [1, 2, 4, 3]},
            {"order": list("BAAB"), "seats": [2, 3, 1, 4]},
        ),
        (
            {"penalty": {"team": "B", "kind": "disqualify", "reason": "通牌"}},
            {"penalty": {"team": "A", "kind": "disqualify", "reason": "通牌"}},
        ),
        ({"time_up": True}, {"time_up": True}),
    ],
)
def test_turning_an_event_round_changes_only_the_sides(event, turned):
    assert sides_swapped(event) == turned


def test_a_match_at_one_table_reads_its_games_while_they_name_the_winner():
    """Scorer.games_shown: 2:0 for an Anhui pairs match won in two games (its tie score is
    the table won, 1:0), the games so far while it is played; none when the games do not
    say who won (won on levels at the time limit)."""
    engine = scorer_for("guandan_pairs", "anhui2021")
    state = engine.initial()
    assert engine.games_shown(state) == (0, 0)
    while engine.games_won(state)[0] < 1:
        state = engine.apply(state, engine.parse({"order": list("AABB")}))
    assert engine.games_shown(state) == (1, 0)
    while not engine.match_over(state):
        state = engine.apply(state, engine.parse({"order": list("AABB")}))
    assert engine.games_shown(state) == (2, 0) and engine.tie_score(state) == (1, 0)

    timed = scorer_for("guandan_pairs", "nantong2014")
    state = timed.replay([{"order": list("AABB")}, {"time_up": True}])
    assert timed.match_over(state) and timed.winner(state) == "A"
    assert timed.games_won(state) == (0, 0) and timed.games_shown(state) is None
    assert timed.tie_score(state) == (1, 0)
