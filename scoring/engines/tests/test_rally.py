"""Tests for the pure rally-point engine: 羽毛球 (badminton) and 乒乓球 (table tennis).

Expected values were worked out by hand from issue 8 and the Anhui notice (羽毛球三局二胜制，
每局21分，每球得分制). Compact notation: ``"21-17"`` a whole game's score (home-away),
``"h"`` / ``"a"`` one rally won by home / away, ``"serve:h"`` the first server by lot,
``"forfeit:a"`` a forfeit by away; ``"h*21"`` is 21 rallies won by home and ``"ha*9"``
nine pairs of rallies, home then away.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import FrozenInstanceError, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engines.common import EngineError
from scoring.engines.rally import (
    BADMINTON_21,
    PRESETS,
    TABLE_TENNIS_11,
    TABLE_TENNIS_11_BEST_OF_3,
    FirstServer,
    Forfeit,
    GameScore,
    Point,
    RallyRules,
    RallyState,
    apply_event,
    describe,
    event_to_dict,
    get_rules,
    initial_state,
    is_game_over,
    parse_event,
    replay,
    state_to_dict,
    validate_game_score,
)

BD, TT, TT3 = BADMINTON_21, TABLE_TENNIS_11, TABLE_TENNIS_11_BEST_OF_3
NO_DEUCE = replace(TT, id="first-to-11", cap=11)
CAP_22 = replace(BD, id="cap-22", cap=22)
RULES = {r.id: r for r in (BD, TT, TT3, NO_DEUCE, CAP_22)}
SIDE = {"h": "home", "a": "away"}


def evs(tokens: str) -> list[dict]:
    out: list[dict] = []
    for token in tokens.split():
        if "*" in token:
            sides, n = token.split("*")
            out += [{"point": SIDE[side]} for side in sides] * int(n)
        elif token in SIDE:
            out.append({"point": SIDE[token]})
        elif token.startswith("serve:"):
            out.append({"first_server": SIDE[token[-1]]})
        elif token.startswith("forfeit:"):
            out.append({"forfeit": {"side": SIDE[token[-1]]}})
        else:
            home, away = token.split("-")
            out.append({"home": int(home), "away": int(away)})
    return out


def run(rules, tokens: str) -> RallyState:
    return replay(rules, evs(tokens))


def compact(state: RallyState) -> dict:
    return {
        "games": " ".join(f"{h}-{a}" for h, a in state.games),
        "won": f"{state.games_won['home']}/{state.games_won['away']}",
        "current": "{}-{}".format(*state.current_game),
        "server": state.server,
        "over": state.match_over,
        "winner": state.winner,
        "by": state.decided_by,
    }


def check(rules, tokens: str, expected: dict) -> None:
    got = compact(run(rules, tokens))
    assert {k: got[k] for k in expected} == expected


# --------------------------------------------------------------- final scores

# fmt: off
LEGAL_SCORES = [
    # badminton: 21 with a lead of 2+, 2 clear from 20-all, 30-29 at the cap
    ("bd_21_19", BD, 21, 19, "home"),
    ("bd_21_0", BD, 21, 0, "home"),
    ("bd_away_21_15", BD, 15, 21, "away"),
    ("bd_22_20", BD, 22, 20, "home"),
    ("bd_29_27", BD, 29, 27, "home"),
    ("bd_30_28", BD, 30, 28, "home"),
    ("bd_30_29_at_the_cap", BD, 30, 29, "home"),
    ("bd_away_29_30_at_the_cap", BD, 29, 30, "away"),
    # table tennis: 11 with a lead of 2+, 2 clear from 10-all, no cap
    ("tt_11_9", TT, 11, 9, "home"),
    ("tt_11_0", TT, 11, 0, "home"),
    ("tt_12_10", TT, 12, 10, "home"),
    ("tt_15_13", TT, 15, 13, "home"),
    ("tt_away_13_15", TT, 13, 15, "away"),
    ("tt_no_cap_30_28", TT, 30, 28, "home"),
    ("tt_best_of_3_same_scores", TT3, 12, 10, "home"),
    ("first_to_11_11_10", NO_DEUCE, 11, 10, "home"),
    ("cap_22_22_21", CAP_22, 22, 21, "home"),
]

IMPOSSIBLE_SCORES = [
    ("bd_21_20_needs_two_clear", BD, 21, 20, "21–20不是完整的一局：须领先2分（或打到30分）"),
    ("bd_25_24_needs_two_clear", BD, 25, 24, "25–24不是完整的一局：须领先2分（或打到30分）"),
    ("bd_31_29_over_the_cap", BD, 31, 29, "31–29超过了30分上限"),
    ("bd_31_30_over_the_cap", BD, 31, 30, "31–30超过了30分上限"),
    ("bd_22_18_lead_not_exactly_two", BD, 22, 18, "22–18：超过21分时比分差必须正好是2分"),
    ("bd_30_27_lead_not_exactly_two", BD, 30, 27, "30–27：超过21分时比分差必须正好是2分"),
    ("bd_20_18_short_of_21", BD, 20, 18, "20–18不是完整的一局：须先得到21分"),
    ("bd_0_0_not_played", BD, 0, 0, "0–0不是完整的一局：双方比分不能相同"),
    ("bd_21_21_level", BD, 21, 21, "21–21不是完整的一局：双方比分不能相同"),
    ("tt_11_10_needs_two_clear", TT, 11, 10, "11–10不是完整的一局：须领先2分"),
    ("tt_13_10_lead_not_exactly_two", TT, 13, 10, "13–10：超过11分时比分差必须正好是2分"),
    ("tt_10_8_short_of_11", TT, 10, 8, "10–8不是完整的一局：须先得到11分"),
    ("tt_away_10_11", TT, 10, 11, "10–11不是完整的一局：须领先2分"),
    ("tt_21_15_is_not_old_scoring", TT, 21, 15, "21–15：超过11分时比分差必须正好是2分"),
    ("first_to_11_12_10_over_the_cap", NO_DEUCE, 12, 10, "12–10超过了11分上限"),
]

BAD_NUMBERS = [
    ("negative", BD, -1, 21),
    ("float_even_if_whole", BD, 21.0, 19),
    ("bool", BD, True, 21),
    ("string", TT, "11", 9),
    ("none", TT, 11, None),
]
# fmt: on


@pytest.mark.parametrize(
    ("rules", "home", "away", "winner"), [pytest.param(*c[1:], id=c[0]) for c in LEGAL_SCORES]
)
def test_it_accepts_every_legal_final_score(rules, home, away, winner):
    assert validate_game_score(home, away, rules) == winner
    assert is_game_over(home, away, rules)
    state = replay(rules, [{"home": home, "away": away}])
    assert state.games == ((home, away),) and state.games_won[winner] == 1


@pytest.mark.parametrize(
    ("rules", "home", "away", "message"),
    [pytest.param(*c[1:], id=c[0]) for c in IMPOSSIBLE_SCORES],
)
def test_it_refuses_impossible_scores_with_the_reason(rules, home, away, message):
    with pytest.raises(EngineError) as info:
        validate_game_score(home, away, rules)
    assert (info.value.code, info.value.message) == ("impossible_score", message)
    with pytest.raises(EngineError) as info:
        replay(rules, [{"home": rules.points_to_win, "away": 0}, {"home": home, "away": away}])
    assert (info.value.code, info.value.event_index) == ("impossible_score", 1)


@pytest.mark.parametrize(
    ("rules", "home", "away"), [pytest.param(*c[1:], id=c[0]) for c in BAD_NUMBERS]
)
def test_it_refuses_scores_that_are_not_whole_numbers_as_invalid_event(rules, home, away):
    with pytest.raises(EngineError) as info:
        validate_game_score(home, away, rules)
    assert info.value.code == "invalid_event"
    with pytest.raises(EngineError) as info:
        replay(rules, [{"home": home, "away": away}])
    assert (info.value.code, info.value.event_index) == ("invalid_event", 0)


def _finals_reachable_rally_by_rally(rules: RallyRules, limit: int) -> set[tuple[int, int]]:
    """Every score at which a game ends when played one rally at a time, written from the
    rule text (first to p with a 2-point lead, or whoever reaches the cap)."""

    def over(h: int, a: int) -> bool:
        top = max(h, a)
        return (top >= rules.points_to_win and abs(h - a) >= 2) or top == rules.cap

    finals, todo, seen = set(), [(0, 0)], {(0, 0)}
    while todo:
        h, a = todo.pop()
        for nxt in ((h + 1, a), (h, a + 1)):
            if max(nxt) > limit or nxt in seen:
                continue
            seen.add(nxt)
            if over(*nxt):
                finals.add(nxt)
            else:
                todo.append(nxt)
    return finals


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
def test_legal_scores_are_exactly_those_reachable_rally_by_rally(rules):
    limit = 40
    finals = _finals_reachable_rally_by_rally(rules, limit)
    for home in range(limit + 1):
        for away in range(limit + 1):
            try:
                validate_game_score(home, away, rules)
                legal = True
            except EngineError as err:
                assert err.code == "impossible_score"
                legal = False
            assert legal == ((home, away) in finals), (home, away)


# ------------------------------------------------------------------ matches

# fmt: off
MATCH_CASES = [
    ("bd_two_nil_ends_after_two_games", BD, "21-17 21-19", dict(won="2/0", over=True, winner="home", by="games")),
    ("bd_one_each_goes_to_a_third", BD, "21-17 19-21", dict(won="1/1", over=False, winner=None)),
    ("bd_two_one", BD, "21-17 19-21 28-30", dict(won="1/2", over=True, winner="away", by="games")),
    ("tt_three_nil", TT, "11-9 12-10 11-3", dict(won="3/0", over=True, winner="home")),
    ("tt_two_nil_is_not_over_in_best_of_5", TT, "11-9 11-7", dict(won="2/0", over=False)),
    ("tt_three_one", TT, "11-9 9-11 11-7 15-13", dict(won="3/1", over=True, winner="home")),
    ("tt_three_two", TT, "9-11 11-9 7-11 11-5 10-12", dict(won="2/3", over=True, winner="away")),
    ("tt_best_of_3_two_nil", TT3, "11-9 11-7", dict(won="2/0", over=True, winner="home")),
    ("tt_best_of_3_two_one", TT3, "11-9 9-11 13-11", dict(won="2/1", over=True, winner="home")),
    # point by point: the game ends by itself at the first legal final score
    ("bd_rallies_to_21_19", BD, "h*19 a*19 h*2", dict(games="21-19", current="0-0", won="1/0")),
    ("bd_21_20_goes_on", BD, "h*20 a*20 h", dict(games="", current="21-20", won="0/0")),
    ("bd_22_20_ends", BD, "h*20 a*20 h h", dict(games="22-20", current="0-0")),
    ("bd_30_29_ends_at_the_cap", BD, "h*20 a*20 ha*9 a", dict(games="29-30", won="0/1")),
    ("tt_11_10_goes_on", TT, "h*10 a*10 h", dict(games="", current="11-10")),
    ("tt_12_10_ends", TT, "h*10 a*10 h h", dict(games="12-10", current="0-0")),
    ("tt_11_9_ends", TT, "a*9 h*11", dict(games="11-9")),
    ("mixed_whole_then_points", BD, "21-17 a*21", dict(games="21-17 0-21", won="1/1", over=False)),
    ("points_win_the_match", BD, "21-17 h*21", dict(games="21-17 21-0", over=True, winner="home", by="games")),
    # forfeits (弃权)
    ("forfeit_before_any_game", BD, "forfeit:h", dict(over=True, winner="away", by="forfeit", games="")),
    ("forfeit_keeps_the_running_score", BD, "21-3 h*4 a*2 forfeit:h",
     dict(games="21-3", current="4-2", won="1/0", over=True, winner="away", by="forfeit", server=None)),
    ("forfeit_by_the_trailer", TT, "3-11 forfeit:h", dict(won="0/1", winner="away", by="forfeit")),
]
# fmt: on


@pytest.mark.parametrize(
    ("rules", "tokens", "expected"), [pytest.param(*c[1:], id=c[0]) for c in MATCH_CASES]
)
def test_match_rule(rules, tokens, expected):
    check(rules, tokens, expected)


# ------------------------------------------------------------------- server

# fmt: off
SERVER_CASES = [
    ("bd_unknown_before_the_lot", BD, "", None),
    ("bd_the_lot", BD, "serve:a", "away"),
    ("bd_rally_winner_serves", BD, "serve:h a", "away"),
    ("bd_known_after_one_rally_without_lot", BD, "h", "home"),
    ("bd_server_keeps_serving_while_winning", BD, "serve:a a a a", "away"),
    ("bd_game_winner_serves_first_next_game", BD, "serve:h h*20 a*22", "away"),
    ("bd_winner_of_a_whole_game_serves_next", BD, "21-18", "home"),
    ("tt_unknown_without_lot", TT, "h*5", None),
    ("tt_first_two_points_same_server", TT, "serve:h h", "home"),
    ("tt_changes_after_two", TT, "serve:h h a", "away"),
    ("tt_back_after_four", TT, "serve:h h a h a", "home"),
    ("tt_at_10_all_first_server_again", TT, "serve:h h*10 a*10", "home"),
    ("tt_every_point_from_deuce", TT, "serve:h h*10 a*10 h", "away"),
    ("tt_every_point_from_deuce_again", TT, "serve:h h*10 a*10 h a", "home"),
    ("tt_next_game_other_player_serves_first", TT, "serve:h h*11", "away"),
    ("tt_after_a_whole_game_alternates_too", TT, "serve:h h*11 11-5", "home"),
    ("tt_game_entered_whole_unknown_first_server", TT, "11-5", None),
    ("over_means_no_server", BD, "serve:h h*21 h*21", None),
]
# fmt: on


@pytest.mark.parametrize(
    ("rules", "tokens", "server"), [pytest.param(*c[1:], id=c[0]) for c in SERVER_CASES]
)
def test_it_shows_who_serves_next(rules, tokens, server):
    assert run(rules, tokens).server == server


def test_table_tennis_service_order_through_a_deuce_game():
    state = replay(TT, [{"first_server": "away"}])
    servers = [state.server]
    for side in ["home", "away"] * 10 + ["home", "away", "home", "home"]:  # 13-11 to home
        state = apply_event(state, {"point": side}, TT)
        servers.append(state.server)
    # 2 each up to 10-10 (20 points), then one each; the game ends 13-11 and home, who
    # received first in game 1, serves first in game 2.
    expected = ["away", "away", "home", "home"] * 5 + ["away", "home", "away", "home", "home"]
    assert servers == expected
    assert state.games == ((13, 11),) and state.game_first_server == "home"


# -------------------------------------------------------------------- errors

# fmt: off
ERROR_CASES = [
    ("third_game_after_two_nil", BD, "21-17 21-19 21-5", "match_over", 2),
    ("point_after_two_nil", BD, "21-17 21-19 h", "match_over", 2),
    ("sixth_game", TT, "11-9 9-11 11-7 7-11 11-2 11-0", "match_over", 5),
    ("fourth_game_after_three_nil", TT, "11-9 11-9 11-9 11-9", "match_over", 3),
    ("after_forfeit", BD, "forfeit:a 21-0", "match_over", 1),
    ("impossible_score_after_end_is_match_over", BD, "21-17 21-19 21-20", "match_over", 2),
    ("whole_game_during_a_point_game", BD, "h*3 a*2 21-17", "invalid_event", 5),
    ("first_server_after_a_point", BD, "h serve:a", "invalid_event", 1),
    ("first_server_after_a_game", TT, "11-9 serve:a", "invalid_event", 1),
    ("first_server_twice", TT, "serve:h serve:a", "invalid_event", 1),
    ("impossible_score_in_game_two", BD, "21-17 22-18", "impossible_score", 1),
]
# fmt: on


@pytest.mark.parametrize(
    ("rules", "tokens", "code", "index"), [pytest.param(*c[1:], id=c[0]) for c in ERROR_CASES]
)
def test_it_rejects_with_code_and_index(rules, tokens, code, index):
    with pytest.raises(EngineError) as info:
        run(rules, tokens)
    assert (info.value.code, info.value.event_index) == (code, index)
    assert str(info.value)


def test_a_whole_game_during_a_point_game_says_why():
    with pytest.raises(EngineError, match="本局正在逐分记录（3–2），不能再录入整局比分"):
        run(BD, "h*3 a*2 21-17")


def test_malformed_record_after_the_end_is_match_over():
    with pytest.raises(EngineError) as info:
        replay(BD, [*evs("forfeit:h"), {"nonsense": 1}])
    assert (info.value.code, info.value.event_index) == ("match_over", 1)


# fmt: off
MALFORMED_EVENTS = [
    ("string", "21-17"),
    ("null", None),
    ("list", [21, 17]),
    ("empty_object", {}),
    ("unknown_key_only", {"note": "x"}),
    ("home_only", {"home": 21}),
    ("away_only", {"away": 21}),
    ("score_strings", {"home": "21", "away": "17"}),
    ("score_float", {"home": 21.5, "away": 17}),
    ("score_negative", {"home": 21, "away": -2}),
    ("score_and_point", {"home": 21, "away": 17, "point": "home"}),
    ("point_red", {"point": "red"}),
    ("point_null", {"point": None}),
    ("first_server_number", {"first_server": 1}),
    ("forfeit_no_side", {"forfeit": {}}),
    ("forfeit_not_object", {"forfeit": "home"}),
    ("forfeit_reason_list", {"forfeit": {"side": "away", "reason": ["x"]}}),
]
# fmt: on


@pytest.mark.parametrize("obj", [pytest.param(o, id=i) for i, o in MALFORMED_EVENTS])
def test_it_rejects_malformed_events_as_invalid_event(obj):
    with pytest.raises(EngineError) as info:
        parse_event(obj)
    assert info.value.code == "invalid_event"
    with pytest.raises(EngineError) as info:
        replay(BD, [obj])
    assert (info.value.code, info.value.event_index) == ("invalid_event", 0)


def test_events_validate_when_built_directly():
    with pytest.raises(EngineError):
        GameScore(21, -1)
    with pytest.raises(EngineError):
        Point("nobody")
    with pytest.raises(EngineError):
        FirstServer("red")


def test_sport_error_pickles():
    err = pickle.loads(pickle.dumps(EngineError("impossible_score", "21–20 …", 3)))
    assert (err.code, err.message, err.event_index) == ("impossible_score", "21–20 …", 3)


# -------------------------------------------------------------- state output


def test_state_to_dict_during_a_point_game():
    state = run(BD, "21-17 a a h")
    assert state_to_dict(state, BD) == {
        "games": [{"home": 21, "away": 17}],
        "games_won": {"home": 1, "away": 0},
        "current_game": {"home": 1, "away": 2},
        "game_in_progress": True,
        "next_game": 2,
        "server": "home",
        "first_server": None,
        "match_over": False,
        "winner": None,
        "decided_by": None,
    }


def test_state_to_dict_of_a_finished_match_is_json():
    d = state_to_dict(run(TT, "serve:a 11-9 9-11 11-7 15-13"), "table-tennis11")
    assert json.loads(json.dumps(d)) == d
    assert d["games"] == [
        {"home": 11, "away": 9},
        {"home": 9, "away": 11},
        {"home": 11, "away": 7},
        {"home": 15, "away": 13},
    ]
    assert (d["winner"], d["decided_by"], d["next_game"], d["server"]) == (
        "home",
        "games",
        None,
        None,
    )
    assert d["first_server"] == "away"


def test_state_is_immutable():
    state = run(BD, "21-17")
    with pytest.raises(FrozenInstanceError):
        state.winner = "home"
    assert dict(state.games_won) == {"home": 1, "away": 0}


# ----------------------------------------------------------------- rule sets


def test_presets_follow_the_issue():
    assert (BD.games_to_win, BD.points_to_win, BD.cap, BD.sport, BD.best_of) == (
        2,
        21,
        30,
        "badminton",
        3,
    )
    assert (TT.games_to_win, TT.points_to_win, TT.cap, TT.best_of) == (3, 11, None, 5)
    assert (TT3.games_to_win, TT3.best_of, TT3.sport) == (2, 3, "table_tennis")
    assert set(PRESETS) == {"badminton21", "table-tennis11", "table-tennis11-bo3"}
    assert get_rules("badminton21") is BD
    with pytest.raises(ValueError, match="unknown rally rule set"):
        get_rules("tennis")


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
def test_rules_round_trip_through_dict_and_json(rules):
    assert RallyRules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


# fmt: off
BAD_CONFIGS = [
    ("empty_id", {"id": " "}),
    ("no_games", {"games_to_win": 0}),
    ("bool_games", {"games_to_win": True}),
    ("one_point_games", {"points_to_win": 1}),
    ("float_points", {"points_to_win": 21.0}),
    ("cap_below_points", {"cap": 20}),
    ("unknown_sport", {"sport": "tennis"}),
]
# fmt: on


@pytest.mark.parametrize("change", [pytest.param(c, id=i) for i, c in BAD_CONFIGS])
def test_bad_rules_config_is_a_clear_value_error(change):
    with pytest.raises(ValueError, match="rule set"):
        RallyRules.from_dict({**BD.to_dict(), **change})


def test_from_dict_needs_every_key_and_no_others():
    with pytest.raises(ValueError, match="missing: cap"):
        RallyRules.from_dict({k: v for k, v in BD.to_dict().items() if k != "cap"})
    with pytest.raises(ValueError, match="unknown"):
        RallyRules.from_dict({**BD.to_dict(), "let": True})


def test_summary_lines_for_score_sheets():
    assert BD.summary_zh() == (
        "羽毛球三局两胜，每球得分制，每局21分，20平后须领先2分，29平时先得第30分者胜；得分方发球"
    )
    assert TT.summary_zh() == (
        "乒乓球五局三胜，每球得分制，每局11分，10平后须领先2分；每2分换发球，10平后每1分换发球"
    )
    assert TT3.summary_zh().startswith("乒乓球三局两胜")
    assert "先得11分者胜" in NO_DEUCE.summary_zh()


# ------------------------------------------------------------------ describe


def description(rules, tokens: str, names=None):
    """The words describing the last of ``tokens``' events."""
    events = [parse_event(e) for e in evs(tokens)]
    before = replay(rules, events[:-1])
    after = apply_event(before, events[-1], rules)
    return describe(before, events[-1], after, rules, names=names)


def described(rules, tokens: str, names=None) -> str:
    return str(description(rules, tokens, names))


# fmt: off
DESCRIBE_CASES = [
    ("whole_game", BD, "21-17", "第1局21–17，主方胜，局分1:0；第2局主方先发球"),
    ("whole_game_wins_match", BD, "21-17 19-21 28-30", "第3局28–30，客方胜，客方2:1获胜"),
    ("point", BD, "h a a", "客方得分，1–2，客方发球"),
    ("point_unknown_server", TT, "h h h", "主方得分，3–0"),
    ("point_ends_a_game", TT, "serve:h h*10 a*10 a a", "客方得分，第1局10–12，客方胜，局分0:1；第2局客方先发球"),
    ("point_ends_the_match", BD, "21-0 h*21", "主方得分，第2局21–0，主方胜，主方2:0获胜"),
    ("first_server", BD, "serve:a", "猜先：客方先发球"),
    ("forfeit", TT, "forfeit:h", "主方弃权，客方获胜"),
]
# fmt: on


@pytest.mark.parametrize(
    ("rules", "tokens", "text"), [pytest.param(*c[1:], id=c[0]) for c in DESCRIBE_CASES]
)
def test_describe_tells_the_referee_what_happened(rules, tokens, text):
    assert described(rules, tokens) == text


def test_describe_uses_player_names():
    names = {"home": "王芳", "away": "刘洋"}
    assert described(BD, "21-17 h", names) == "王芳得分，1–0，王芳发球"
    assert described(BD, "forfeit:a", names) == "刘洋弃权，王芳获胜"
    forfeit = Forfeit("away", "stoppage_over_5_min")
    after = apply_event(initial_state(BD), forfeit, BD)
    assert str(describe(initial_state(BD), forfeit, after, BD, names)).endswith(
        "（不服从裁判致使比赛中断5分钟）"
    )


# ----------------------------------------------------------- hypothesis properties

SIDES = st.sampled_from(["home", "away"])
REASONS = st.sampled_from(["", "withdrawn", "stoppage_over_5_min", "受伤"])
PROPERTY_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def legal_scores(draw, rules: RallyRules) -> GameScore:
    p, cap = rules.points_to_win, rules.cap
    top = (cap if cap is not None else p + 15) - 2
    kind = draw(st.sampled_from(["plain", "deuce", "cap"]))
    if kind == "deuce" and top >= p - 1:
        low = draw(st.integers(p - 1, top))
        high = low + 2
    elif kind == "cap" and cap is not None and cap > p:
        high, low = cap, cap - 1
    else:
        high, low = p, draw(st.integers(0, p - 2))
    return GameScore(high, low) if draw(st.booleans()) else GameScore(low, high)


def candidate_events(rules: RallyRules):
    return st.one_of(
        legal_scores(rules),
        legal_scores(rules),
        st.builds(Point, SIDES),
        st.lists(st.builds(Point, SIDES), min_size=1, max_size=30),  # a burst of rallies
        st.builds(FirstServer, SIDES),
        st.builds(Forfeit, SIDES, REASONS),
    )


@st.composite
def records(draw, rules: RallyRules) -> list:
    """A valid record: candidates kept when the engine accepts them (forfeits are rare)."""
    state, events = initial_state(rules), []
    for _ in range(draw(st.integers(0, 25))):
        if state.match_over:
            break
        candidate = draw(candidate_events(rules))
        batch = candidate if isinstance(candidate, list) else [candidate]
        if isinstance(candidate, Forfeit) and draw(st.integers(0, 9)):
            continue
        for event in batch:
            try:
                after = apply_event(state, event, rules)
            except EngineError as err:
                assert err.code == "invalid_event"  # only mixing entry modes can fail here
                continue
            if isinstance(event, Point) and rules.sport == "badminton" and not after.match_over:
                assert after.server == event.side
            state = after
            events.append(event)
            if state.match_over:
                break
    return events


ANY_EVENT = st.one_of(
    st.builds(GameScore, st.integers(0, 40), st.integers(0, 40)),
    st.builds(Point, SIDES),
    st.builds(FirstServer, SIDES),
    st.builds(Forfeit, SIDES, REASONS),
)


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
@PROPERTY_SETTINGS
@given(data=st.data(), extra=ANY_EVENT)
def test_a_finished_match_never_accepts_more(rules, data, extra):
    events = data.draw(records(rules))
    state = replay(rules, events)
    if not state.match_over:
        return
    with pytest.raises(EngineError) as info:
        apply_event(state, extra, rules)
    assert info.value.code == "match_over"
    with pytest.raises(EngineError) as info:
        replay(rules, [*events, extra])
    assert (info.value.code, info.value.event_index) == ("match_over", len(events))


@pytest.mark.parametrize("rules", list(RULES.values()), ids=list(RULES))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_the_winner_always_has_the_majority_of_games(rules, data):
    state = replay(rules, data.draw(records(rules)))
    won = {
        side: sum(1 for h, a in state.games if (h > a) == (side == "home"))
        for side in state.games_won
    }
    assert won == dict(state.games_won)
    assert len(state.games) <= rules.best_of
    for h, a in state.games:
        validate_game_score(h, a, rules)
    if state.decided_by == "games":
        loser = "away" if state.winner == "home" else "home"
        assert won[state.winner] == rules.games_to_win > won[loser]
        assert won[state.winner] > len(state.games) / 2
        last_h, last_a = state.games[-1]
        assert (last_h > last_a) == (state.winner == "home")  # it ended when decided
    else:
        assert max(won.values()) < rules.games_to_win


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


@PROPERTY_SETTINGS
@given(event=ANY_EVENT)
def test_event_to_dict_and_parse_event_round_trip(event):
    d = event_to_dict(event)
    assert parse_event(json.loads(json.dumps(d))) == event
    assert event_to_dict(parse_event(d)) == d
