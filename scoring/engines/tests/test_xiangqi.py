"""Tests for the pure 象棋 (xiangqi) match engine (no database, no Django).

Expected values were worked out by hand from the Anhui notice (八.2: 三局二胜制，前二盘每人
先手一次，第三盘猜先手，若第三盘和棋，则后手赢).

Compact notation used in the tables: a game is two letters, the result (``H`` home wins,
``A`` away wins, ``D`` draw) then who moved first (``h`` / ``a``): ``"Hh Aa Dh"`` is home
winning game 1 with the first move, away winning game 2 with the first move and a drawn
third game with home moving first. ``"forfeit:h"`` is a forfeit by home.
Expectations: ``points="1.5/0.5"``, ``next`` (next_first_move), ``lot``
(first_move_by_lot), ``over``, ``winner``, ``by`` (decided_by), ``games`` (count).
"""

from __future__ import annotations

import json
import pickle
from dataclasses import FrozenInstanceError, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engines.common import EngineError
from scoring.engines.xiangqi import (
    ANHUI_2021_XIANGQI,
    PRESETS,
    Forfeit,
    XiangqiGame,
    XiangqiRules,
    XiangqiState,
    apply_event,
    as_rules,
    describe,
    event_to_dict,
    get_rules,
    initial_state,
    parse_event,
    replay,
    state_to_dict,
)

AH = ANHUI_2021_XIANGQI
REPLAY_DRAWN_THIRD = replace(AH, id="replay-third", third_game_draw_goes_to="replay")
DRAWS_SCORE_NOTHING = replace(AH, id="draw-zero", draw_points=0)
FIVE_GAMES = replace(AH, id="five-games", games=5)
ONE_GAME = replace(AH, id="one-game", games=1)
RULES = {r.id: r for r in (AH, REPLAY_DRAWN_THIRD, DRAWS_SCORE_NOTHING, FIVE_GAMES, ONE_GAME)}
SIDE = {"h": "home", "a": "away"}
RESULT = {"H": "home", "A": "away", "D": "draw"}


def ev(token: str) -> dict:
    if token.startswith("forfeit:"):
        return {"forfeit": {"side": SIDE[token[-1]]}}
    return {"result": RESULT[token[0]], "first_move": SIDE[token[1]]}


def run(rules, tokens: str) -> XiangqiState:
    return replay(rules, [ev(t) for t in tokens.split()])


def _fmt(x: float) -> str:
    return str(int(x)) if x.is_integer() else str(x)


def compact(state: XiangqiState) -> dict:
    return {
        "points": f"{_fmt(state.points['home'])}/{_fmt(state.points['away'])}",
        "next": state.next_first_move,
        "lot": state.first_move_by_lot,
        "over": state.match_over,
        "winner": state.winner,
        "by": state.decided_by,
        "games": len(state.games),
    }


def check(rules, tokens: str, expected: dict) -> None:
    got = compact(run(rules, tokens))
    assert {k: got[k] for k in expected} == expected


# ------------------------------------------------------------------- the rules

# fmt: off
ANHUI_CASES = [
    # game 1: either player may move first; game 2: the other one
    ("nothing_played_first_move_free", "", dict(points="0/0", next=None, lot=True, over=False)),
    ("game_two_goes_to_the_other_player", "Hh", dict(points="1/0", next="away", lot=False, over=False)),
    ("game_two_goes_to_home_after_away_moved_first", "Da", dict(points="0.5/0.5", next="home", over=False)),
    # after two games, a lead on points ends the match
    ("two_nil_after_two_games", "Hh Ha", dict(points="2/0", over=True, winner="home", by="points", next=None, lot=False)),
    ("away_two_nil", "Ah Aa", dict(points="0/2", over=True, winner="away", by="points")),
    ("win_and_draw_is_one_and_a_half", "Hh Da", dict(points="1.5/0.5", over=True, winner="home", by="points")),
    ("draw_and_win_for_away", "Dh Aa", dict(points="0.5/1.5", over=True, winner="away", by="points")),
    ("a_first_game_win_alone_never_ends_it", "Ah", dict(points="0/1", over=False, next="away")),
    # level after two games: a third game with the first move by lot
    ("one_win_each_means_a_third_game", "Hh Aa", dict(points="1/1", over=False, next=None, lot=True, games=2)),
    ("two_draws_mean_a_third_game", "Dh Da", dict(points="1/1", over=False, next=None, lot=True)),
    # the third game
    ("decisive_third_game_home", "Hh Aa Ha", dict(points="2/1", over=True, winner="home", by="third_game")),
    ("decisive_third_game_by_second_mover", "Hh Aa Ah", dict(points="1/2", over=True, winner="away", by="third_game")),
    ("third_game_either_side_moves_first", "Dh Da Aa", dict(over=True, winner="away", by="third_game")),
    ("drawn_third_game_away_moved_second", "Hh Aa Dh",
     dict(points="1.5/1.5", over=True, winner="away", by="third_game_draw_second_mover", next=None, lot=False)),
    ("drawn_third_game_home_moved_second", "Dh Da Da",
     dict(points="1.5/1.5", over=True, winner="home", by="third_game_draw_second_mover")),
    # forfeits (弃权)
    ("forfeit_before_any_game", "forfeit:h", dict(points="0/0", over=True, winner="away", by="forfeit", games=0)),
    ("forfeit_by_the_leader", "Hh forfeit:h", dict(points="1/0", over=True, winner="away", by="forfeit")),
    ("forfeit_before_the_third_game", "Hh Aa forfeit:a", dict(over=True, winner="home", by="forfeit", lot=False)),
]

VARIANT_CASES = [
    ("replay_a_drawn_third_game", REPLAY_DRAWN_THIRD, "Hh Aa Dh", dict(points="1.5/1.5", over=False, next=None, lot=True)),
    ("replay_until_decisive", REPLAY_DRAWN_THIRD, "Hh Aa Dh Da Ah", dict(over=True, winner="away", by="third_game", games=5)),
    ("draws_score_nothing_two_draws_level", DRAWS_SCORE_NOTHING, "Dh Da", dict(points="0/0", over=False, lot=True)),
    ("draws_score_nothing_win_and_draw", DRAWS_SCORE_NOTHING, "Hh Da", dict(points="1/0", over=True, winner="home")),
    ("five_games_two_up_with_two_to_play_goes_on", FIVE_GAMES, "Hh Ha", dict(over=False, next="home")),
    ("five_games_ends_when_lead_cannot_be_caught", FIVE_GAMES, "Hh Ha Dh", dict(points="2.5/0.5", over=True, winner="home", by="points")),
    ("five_games_level_after_four_goes_to_lot", FIVE_GAMES, "Hh Aa Hh Aa", dict(over=False, next=None, lot=True)),
    ("five_games_drawn_decider", FIVE_GAMES, "Hh Aa Hh Aa Da", dict(over=True, winner="home", by="third_game_draw_second_mover")),
    ("one_game_by_lot", ONE_GAME, "", dict(next=None, lot=True, over=False)),
    ("one_game_drawn_second_mover_wins", ONE_GAME, "Dh", dict(over=True, winner="away", by="third_game_draw_second_mover")),
]
# fmt: on


@pytest.mark.parametrize(
    ("tokens", "expected"), [pytest.param(t, e, id=i) for i, t, e in ANHUI_CASES]
)
def test_anhui_rule(tokens, expected):
    check(AH, tokens, expected)


@pytest.mark.parametrize(
    ("rules", "tokens", "expected"), [pytest.param(r, t, e, id=i) for i, r, t, e in VARIANT_CASES]
)
def test_variant_rule(rules, tokens, expected):
    check(rules, tokens, expected)


# ------------------------------------------------------------------------ errors

# fmt: off
ERROR_CASES = [
    ("same_player_first_twice_home", AH, ["Hh", "Ah"], "wrong_first_move", 1),
    ("same_player_first_twice_away", AH, ["Da", "Da"], "wrong_first_move", 1),
    ("five_games_third_alternates_too", FIVE_GAMES, ["Hh", "Aa", "Ha"], "wrong_first_move", 2),
    ("game_after_two_nil", AH, ["Hh", "Ha", "Hh"], "match_over", 2),
    ("game_after_one_and_a_half", AH, ["Hh", "Da", "Dh"], "match_over", 2),
    ("fourth_game", AH, ["Hh", "Aa", "Dh", "Ha"], "match_over", 3),
    ("game_after_decisive_third", AH, ["Hh", "Aa", "Ha", "Hh"], "match_over", 3),
    ("game_after_forfeit", AH, ["forfeit:a", "Hh"], "match_over", 1),
    ("forfeit_after_the_end", AH, ["Hh", "Ha", "forfeit:h"], "match_over", 2),
    ("wrong_first_move_after_end_is_match_over", AH, ["Hh", "Ha", "Ha"], "match_over", 2),
    ("malformed_after_end_is_match_over", AH, ["Hh", "Ha", {"nonsense": 1}], "match_over", 2),
    ("malformed_game", AH, ["Hh", {"result": "red", "first_move": "away"}], "invalid_event", 1),
]
# fmt: on


@pytest.mark.parametrize(
    ("rules", "events", "code", "index"),
    [pytest.param(r, e, c, i, id=n) for n, r, e, c, i in ERROR_CASES],
)
def test_it_rejects_with_code_and_index(rules, events, code, index):
    with pytest.raises(EngineError) as info:
        replay(rules, [ev(e) if isinstance(e, str) else e for e in events])
    assert (info.value.code, info.value.event_index) == (code, index)
    assert str(info.value)  # a message for the referee


def test_wrong_first_move_says_who_should_move_first():
    with pytest.raises(EngineError) as info:
        run(AH, "Hh Dh")
    assert info.value.message == "第2盘应由客方先手：前两盘双方各先手一次"


# fmt: off
MALFORMED_EVENTS = [
    ("string", "Hh"),
    ("null", None),
    ("list", ["home", "home"]),
    ("empty_object", {}),
    ("unknown_key_only", {"note": "x"}),
    ("result_without_first_move", {"result": "home"}),
    ("first_move_without_result", {"first_move": "home"}),
    ("result_red", {"result": "red", "first_move": "home"}),
    ("result_win_word", {"result": "win", "first_move": "home"}),
    ("first_move_draw", {"result": "home", "first_move": "draw"}),
    ("first_move_red", {"result": "home", "first_move": "red"}),
    ("result_true", {"result": True, "first_move": "home"}),
    ("result_uppercase", {"result": "HOME", "first_move": "home"}),
    ("game_and_forfeit", {"result": "home", "first_move": "home", "forfeit": {"side": "away"}}),
    ("forfeit_empty", {"forfeit": {}}),
    ("forfeit_side_draw", {"forfeit": {"side": "draw"}}),
    ("forfeit_guandan_team_key", {"forfeit": {"team": "A"}}),
    ("forfeit_not_object", {"forfeit": "home"}),
    ("forfeit_reason_number", {"forfeit": {"side": "home", "reason": 5}}),
]
# fmt: on


@pytest.mark.parametrize("obj", [pytest.param(o, id=i) for i, o in MALFORMED_EVENTS])
def test_it_rejects_malformed_events_as_invalid_event(obj):
    with pytest.raises(EngineError) as info:
        parse_event(obj)
    assert info.value.code == "invalid_event"
    assert info.value.message.startswith("无法识别的记录")
    with pytest.raises(EngineError) as info:
        replay(AH, [obj])
    assert (info.value.code, info.value.event_index) == ("invalid_event", 0)


def test_it_ignores_unknown_keys_beside_a_game():
    assert parse_event({"result": "draw", "first_move": "away", "note": "x"}) == XiangqiGame(
        "draw", "away"
    )


def test_apply_event_raises_without_index_and_replay_adds_it():
    state = run(AH, "Hh Ha")
    with pytest.raises(EngineError) as info:
        apply_event(state, ev("Hh"), AH)
    assert info.value.event_index is None and info.value.code == "match_over"


def test_the_engine_error_is_a_readable_picklable_exception():
    err = EngineError("wrong_first_move", event_index=1)
    again = pickle.loads(pickle.dumps(err))
    assert (again.code, again.message, again.event_index) == ("wrong_first_move", err.message, 1)
    assert again.as_dict() == {"error": "wrong_first_move", "event_index": 1}
    assert str(EngineError("match_over")) == "本场比赛已经结束，不能再录入"
    with pytest.raises(ValueError):
        EngineError("no_such_code")


def test_events_validate_when_built_directly():
    with pytest.raises(EngineError):
        XiangqiGame("home", "red")
    with pytest.raises(EngineError):
        Forfeit("nobody")
    assert XiangqiGame("draw", "home").second_mover == "away"
    assert XiangqiGame("draw", "home").winner is None


# ------------------------------------------------------------------ state output


def test_state_is_immutable_and_points_are_dict_like():
    state = run(AH, "Hh Da")
    with pytest.raises(FrozenInstanceError):
        state.winner = "away"
    assert dict(state.points) == {"home": 1.5, "away": 0.5}
    assert isinstance(state.points["home"], float)


def test_state_to_dict_mid_match():
    assert state_to_dict(run(AH, "Hh"), AH) == {
        "points": {"home": 1.0, "away": 0.0},
        "games": [{"result": "home", "first_move": "home"}],
        "next_game": 2,
        "next_first_move": "away",
        "first_move_by_lot": False,
        "match_over": False,
        "winner": None,
        "decided_by": None,
    }


def test_state_to_dict_after_a_drawn_third_game_is_json():
    d = state_to_dict(run(AH, "Hh Aa Dh"), "anhui2021-xiangqi")
    assert json.loads(json.dumps(d)) == d
    assert d["games"][2] == {"result": "draw", "first_move": "home"}
    assert (d["winner"], d["decided_by"], d["next_game"]) == (
        "away",
        "third_game_draw_second_mover",
        None,
    )


# ------------------------------------------------------------------- rule sets


def test_preset_follows_the_anhui_notice():
    assert get_rules("anhui2021-xiangqi") is AH and as_rules(AH) is AH
    assert (AH.games, AH.draw_points, AH.third_game_draw_goes_to) == (3, 0.5, "second_mover")
    assert PRESETS == {"anhui2021-xiangqi": AH}


def test_unknown_rules_id_is_a_value_error():
    with pytest.raises(ValueError, match="unknown xiangqi rule set"):
        get_rules("nope")


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
def test_rules_round_trip_through_dict_and_json(rules):
    assert XiangqiRules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_from_dict_fills_defaults_and_takes_whole_draw_points():
    rules = XiangqiRules.from_dict({"id": "x", "name": "象棋", "draw_points": 0})
    assert rules.draw_points == 0.0 and isinstance(rules.draw_points, float)
    assert rules.games == 3


# fmt: off
BAD_CONFIGS = [
    ("empty_id", {"id": ""}),
    ("even_games", {"games": 2}),
    ("zero_games", {"games": 0}),
    ("bool_games", {"games": True}),
    ("draw_worth_a_win", {"draw_points": 1}),
    ("negative_draw", {"draw_points": -0.5}),
    ("string_draw", {"draw_points": "0.5"}),
    ("unknown_draw_rule", {"third_game_draw_goes_to": "first_mover"}),
]
# fmt: on


@pytest.mark.parametrize("change", [pytest.param(c, id=i) for i, c in BAD_CONFIGS])
def test_bad_rules_config_is_a_clear_value_error(change):
    with pytest.raises(ValueError, match="rule set"):
        XiangqiRules.from_dict({**AH.to_dict(), **change})


@pytest.mark.parametrize(
    "d",
    [
        pytest.param({"name": "象棋"}, id="missing_id"),
        pytest.param({"id": "x", "name": "象棋", "colour": "red"}, id="unknown_key"),
        pytest.param(["x"], id="not_an_object"),
    ],
)
def test_from_dict_rejects_bad_shapes(d):
    with pytest.raises(ValueError):
        XiangqiRules.from_dict(d)


def test_summary_lines_for_score_sheets():
    assert AH.summary_zh() == (
        "三盘两胜：前两盘双方各先手一次，胜1分、和0.5分、负0分；"
        "前两盘总分领先者获胜，总分相同则第三盘猜先，第三盘和棋则后手获胜"
    )
    assert "再猜先加赛" in REPLAY_DRAWN_THIRD.summary_zh()
    assert "和0分" in DRAWS_SCORE_NOTHING.summary_zh()
    assert FIVE_GAMES.summary_zh().startswith("五盘制：前四盘双方轮流先手")
    assert ONE_GAME.summary_zh() == "一盘定胜负：猜先，和棋则后手获胜"


# ----------------------------------------------------------------------- describe


def description(rules, tokens: str, names=None):
    """The words describing the last of ``tokens``' events."""
    events = [parse_event(ev(t)) for t in tokens.split()]
    before = replay(rules, events[:-1])
    after = apply_event(before, events[-1], rules)
    return describe(before, events[-1], after, rules, names=names)


def described(rules, tokens: str, names=None) -> str:
    return str(description(rules, tokens, names))


# fmt: off
DESCRIBE_CASES = [
    ("first_game_win", "Hh", "第1盘主方胜（主方先手），总分1:0；第2盘客方先手"),
    ("first_game_draw", "Da", "第1盘和棋（客方先手），总分0.5:0.5；第2盘主方先手"),
    ("level_after_two", "Hh Aa", "第2盘客方胜（客方先手），总分1:1；第3盘猜先"),
    ("won_on_points", "Hh Da", "第2盘和棋（客方先手），总分1.5:0.5，主方获胜"),
    ("decisive_third", "Hh Aa Ah", "第3盘客方胜（主方先手），客方获胜"),
    ("drawn_third", "Hh Aa Dh", "第3盘和棋（主方先手），后手客方获胜"),
    ("forfeit", "forfeit:a", "客方弃权，主方获胜"),
]
# fmt: on


@pytest.mark.parametrize(
    ("tokens", "text"), [pytest.param(t, x, id=i) for i, t, x in DESCRIBE_CASES]
)
def test_describe_tells_the_referee_what_happened(tokens, text):
    assert described(AH, tokens) == text


def test_describe_uses_player_names_and_forfeit_reasons():
    names = {"home": "张伟", "away": "李娜"}
    assert described(AH, "Hh Aa Da", names) == "第3盘和棋（李娜先手），后手张伟获胜"
    forfeit = Forfeit("home", "stoppage_over_5_min")
    after = apply_event(initial_state(AH), forfeit, AH)
    assert str(describe(initial_state(AH), forfeit, after, AH, names)) == (
        "张伟弃权，李娜获胜（不服从裁判致使比赛中断5分钟）"
    )


def test_describe_of_a_replayed_third_game():
    assert described(REPLAY_DRAWN_THIRD, "Hh Aa Dh") == (
        "第3盘和棋（主方先手），总分1.5:1.5；第4盘猜先"
    )


# ------------------------------------------------------------- hypothesis properties

SIDES = st.sampled_from(["home", "away"])
RESULTS = st.sampled_from(["home", "away", "draw"])
REASONS = st.sampled_from(["", "withdrawn", "stoppage_over_5_min", "临时有事"])
ANY_EVENT = st.one_of(st.builds(XiangqiGame, RESULTS, SIDES), st.builds(Forfeit, SIDES, REASONS))
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def records(draw, rules):
    """A valid record: games whose first moves follow the rules, maybe a forfeit."""
    state, events = initial_state(rules), []
    for _ in range(draw(st.integers(0, 8))):
        if state.match_over:
            break
        if draw(st.integers(0, 9)) == 0:
            event = Forfeit(draw(SIDES), draw(REASONS))
        else:
            first = state.next_first_move or draw(SIDES)
            event = XiangqiGame(draw(RESULTS), first)
        state = apply_event(state, event, rules)
        events.append(event)
    return events


def _rule_winner(games: list[tuple[str, str]]) -> tuple[str | None, str | None, int]:
    """The notice's rule written out for three games: (winner, decided_by, games played)."""
    score = {"home": 0.0, "away": 0.0}
    for result, _ in games[:2]:
        for side in score:
            score[side] += 1.0 if result == side else 0.5 if result == "draw" else 0.0
    if score["home"] != score["away"]:
        return max(score, key=score.get), "points", 2
    result, first = games[2]
    if result == "draw":
        return ("away" if first == "home" else "home"), "third_game_draw_second_mover", 3
    return result, "third_game", 3


@PROPERTY_SETTINGS
@given(results=st.lists(RESULTS, min_size=3, max_size=3), first=SIDES, third_first=SIDES)
def test_the_match_winner_follows_the_notice(results, first, third_first):
    second = "away" if first == "home" else "home"
    games = [(results[0], first), (results[1], second), (results[2], third_first)]
    winner, decided_by, played = _rule_winner(games)
    state = initial_state(AH)
    for index, (result, mover) in enumerate(games):
        if index == played:
            with pytest.raises(EngineError) as info:
                apply_event(state, XiangqiGame(result, mover), AH)
            assert info.value.code == "match_over"
            break
        assert not state.match_over
        state = apply_event(state, XiangqiGame(result, mover), AH)
    assert (state.match_over, state.winner, state.decided_by) == (True, winner, decided_by)
    assert len(state.games) == played


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
@PROPERTY_SETTINGS
@given(data=st.data(), extra=ANY_EVENT)
def test_a_finished_match_never_accepts_more(rules, data, extra):
    events = data.draw(records(rules))
    state = replay(rules, events)
    if not state.match_over:
        return
    assert state.winner in ("home", "away") and state.next_first_move is None
    with pytest.raises(EngineError) as info:
        apply_event(state, extra, rules)
    assert info.value.code == "match_over"
    with pytest.raises(EngineError) as info:
        replay(rules, [*events, extra])
    assert (info.value.code, info.value.event_index) == ("match_over", len(events))


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_replaying_a_prefix_then_the_rest_equals_the_whole(rules, data):
    events = data.draw(records(rules))
    split = data.draw(st.integers(0, len(events)))
    state = replay(rules, events[:split])
    for event in events[split:]:
        state = apply_event(state, event, rules)
    assert state == replay(rules, [event_to_dict(e) for e in events])


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_points_add_up_and_winners_lead_or_won_the_decider(rules, data):
    events = data.draw(records(rules))
    state = replay(rules, events)
    draws = sum(1 for g in state.games if g.result == "draw")
    decisive = len(state.games) - draws
    total = state.points["home"] + state.points["away"]
    assert total == pytest.approx(decisive + 2 * draws * rules.draw_points)
    if state.decided_by == "points":
        loser = "away" if state.winner == "home" else "home"
        assert state.points[state.winner] > state.points[loser]
    if state.decided_by == "third_game_draw_second_mover":
        assert state.games[-1].result == "draw"
        assert state.games[-1].second_mover == state.winner


@PROPERTY_SETTINGS
@given(event=ANY_EVENT)
def test_event_to_dict_and_parse_event_round_trip(event):
    d = event_to_dict(event)
    assert parse_event(json.loads(json.dumps(d))) == event
    assert event_to_dict(parse_event(d)) == d
