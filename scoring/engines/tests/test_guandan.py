"""Tests for the pure Guandan level engine (no database, no Django).

Expected values in the hand-written tables were worked out by hand from the rules in
``docs/rules.md``; the public vectors (``data/guandan-vectors.json``) are checked separately.

Compact notation used in the tables:

* events: ``"ABAB"`` a deal (team letters in finishing order 上游..末游), ``"A:-2"`` A
  loses 2 levels, ``"A:-"`` A loses the rule set's default, ``"A:to2"`` back to 2,
  ``"A:dq"`` disqualified, ``"A:forfeit"``, ``"time"`` time up / whistle.
* expectations: ``levels="A/5"`` (A's level / B's level), ``fails="1/0"``,
  ``games="1/0"``, ``completed="A:passed_A B:sudden_death"``, ``over``, ``winner``,
  ``by`` (decided_by), ``sd`` (sudden death).
"""

from __future__ import annotations

import json
import pickle
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engines.common import EngineError
from scoring.engines.guandan.describe import describe_event
from scoring.engines.guandan.play import (
    ANHUI_2021,
    NANTONG_2014,
    PRESETS,
    Deal,
    Forfeit,
    MatchState,
    Penalty,
    RuleSet,
    TimeUp,
    apply_event,
    decide_tie,
    event_to_dict,
    get_ruleset,
    initial_state,
    level_label,
    parse_event,
    replay,
    state_to_dict,
    state_to_full_dict,
)

# The engine's public examples, kept in the repository so every clone runs them.
VECTORS_PATH = Path(__file__).resolve().parent / "data" / "guandan-vectors.json"
NT, AH = "nantong2014", "anhui2021"

# Custom rule sets (docs/rules.md, the custom rule set) used across the tests.
LENIENT_NT = replace(NANTONG_2014, id="lenient-nt", a_win_requires_declarer=False)
LENIENT_AH = replace(ANHUI_2021, id="lenient-ah", a_win_requires_declarer=False)
RESET_TO_K = replace(ANHUI_2021, id="reset-k", a_fail_reset_to=13)
DOUBLE_UP_AH = replace(ANHUI_2021, id="shuangshang-ah", a_win_partner_places=frozenset({2}))
DOUBLE_UP_NT = replace(NANTONG_2014, id="shuangshang-nt", a_win_partner_places=frozenset({2}))
CONSECUTIVE = replace(ANHUI_2021, id="consecutive", a_fail_counting="own_a_consecutive")
ANY_LOST = replace(ANHUI_2021, id="any-lost", a_fail_counting="any_lost_deal_at_a")
DRAW_ALLOWED = replace(NANTONG_2014, id="swiss", time_rule="draw_allowed")
PROMO_421 = replace(NANTONG_2014, id="promo-421", promotion=(4, 2, 1))
RULESETS = {
    r.id: r
    for r in (
        NANTONG_2014,
        ANHUI_2021,
        LENIENT_NT,
        LENIENT_AH,
        RESET_TO_K,
        DOUBLE_UP_AH,
        DOUBLE_UP_NT,
        CONSECUTIVE,
        ANY_LOST,
        DRAW_ALLOWED,
        PROMO_421,
    )
}


def ev(token: str) -> dict:
    """One event in the vectors' JSON form from the compact notation."""
    if token == "time":
        return {"time_up": True}
    if len(token) == 4 and set(token) <= {"A", "B"}:
        return {"order": list(token)}
    team, what = token.split(":")
    if what == "dq":
        return {"penalty": {"team": team, "kind": "disqualify"}}
    if what == "to2":
        return {"penalty": {"team": team, "kind": "back_to_2"}}
    if what == "forfeit":
        return {"forfeit": {"team": team}}
    return {"penalty": {"team": team, "levels": -int(what)}}


def run(ruleset, tokens: str) -> MatchState:
    return replay(RULESETS.get(ruleset) or get_ruleset(ruleset), [ev(t) for t in tokens.split()])


def compact(state: MatchState) -> dict:
    lv = state.levels
    return {
        "levels": f"{level_label(lv['A'])}/{level_label(lv['B'])}",
        "declarer": state.declarer,
        "fails": f"{state.a_failures['A']}/{state.a_failures['B']}",
        "games": f"{state.games_won['A']}/{state.games_won['B']}",
        "completed": " ".join(f"{g.winner}:{g.how}" for g in state.completed_games),
        "over": state.match_over,
        "winner": state.winner,
        "by": state.decided_by,
        "sd": state.sudden_death,
    }


def check(ruleset, tokens: str, expected: dict) -> None:
    got = compact(run(ruleset, tokens))
    assert {k: got[k] for k in expected} == expected


def x4(deal: str) -> str:
    return " ".join([deal] * 4)


def x3(deal: str) -> str:
    return " ".join([deal] * 3)


# --------------------------------------------------------------- public vectors


# Read at collection: a missing or broken file is an error, never a skip.
_VECTORS = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))


def _vector_params(key: str) -> list:
    return [pytest.param(v, id=v["id"]) for v in _VECTORS[key]]


@pytest.mark.parametrize("vector", _vector_params("vectors"))
def test_it_reproduces_every_key_of_each_public_vector(vector):
    ruleset = get_ruleset(vector["ruleset"])
    expected = vector["expected"]
    try:
        got = state_to_dict(replay(ruleset, vector["deals"]), ruleset)
    except EngineError as err:
        got = err.as_dict()
    assert {k: got.get(k, "<missing>") for k in expected} == expected
    assert set(got) == set(expected), "state_to_dict must emit exactly the vector keys"


@pytest.mark.parametrize("vector", _vector_params("team_vectors"))
def test_it_decides_each_public_team_vector(vector):
    letter = {"X": "A", "Y": "B"}
    result = decide_tie([letter.get(w) for w in vector["pair_match_winners"]])
    expected = vector["expected"]
    assert result.winner == letter[expected["team_winner"]]
    assert result.wins == {letter[k]: n for k, n in expected["pair_wins"].items()}
    assert result.decided


# ------------------------------------------------- hand-written rule cases (sections 4-8)

# fmt: off
NANTONG_CASES = [
    # promotion 3/2/1 (section 3, 5); the loser never moves; 上游 becomes declarer (A2)
    ("double_up_promotes_3", "AABB", dict(levels="5/2", declarer="A")),
    ("partner_third_promotes_2", "ABAB", dict(levels="4/2", declarer="A")),
    ("partner_last_promotes_1", "ABBA", dict(levels="3/2", declarer="A")),
    ("loser_keeps_level_declarer_moves", "ABAB BBAA", dict(levels="4/5", declarer="B")),
    # cap at A (A8): reaching A in a deal played at K is not a win
    ("k_plus_1_reaches_a_without_winning", f"{x3('AABB')} ABAB ABBA", dict(levels="A/2", declarer="A", over=False)),
    ("k_plus_3_is_capped_at_a", f"{x3('AABB')} ABAB AABB", dict(levels="A/2", declarer="A", games="0/0")),
    # passing A (A4)
    ("pass_a_partner_second_ends_match", f"{x4('AABB')} AABB",
     dict(levels="A/2", declarer=None, games="1/0", completed="A:passed_A", over=True, winner="A", by="passed_A")),
    ("pass_a_partner_third_ends_match", f"{x4('AABB')} ABAB", dict(over=True, winner="A", by="passed_A")),
    ("b_passes_a", f"{x4('BBAA')} BABA", dict(levels="2/A", over=True, winner="B", by="passed_A")),
    ("partner_last_at_a_retries_without_limit", f"{x4('AABB')} {x4('ABBA')} ABBA",
     dict(levels="A/2", declarer="A", fails="0/0", over=False)),
    ("opponents_top_during_a_attempt", f"{x4('AABB')} BABA", dict(levels="A/4", declarer="B")),
    # strict rule (A3): a team at A does not pass in a deal played at the opponents' level
    ("strict_top_at_opponents_level_no_pass", f"{x4('AABB')} BABA AABB",
     dict(levels="A/4", declarer="A", over=False)),
    ("strict_then_passes_at_own_a", f"{x4('AABB')} BABA AABB ABAB", dict(winner="A", by="passed_A")),
    ("both_at_a_only_declarer_can_pass", f"{x4('AABB')} {x4('BBAA')} AABB BBAA BABA",
     dict(levels="A/A", winner="B", by="passed_A", games="0/1")),
    # time limit (7.1, A9)
    ("time_higher_level_wins", "BBAA ABBA time",
     dict(levels="3/5", declarer=None, over=True, winner="B", by="time_levels")),
    ("time_tie_goes_to_last_top_b", "ABBA BAAB time", dict(levels="3/3", winner="B", by="time_last_deal_top")),
    ("time_tie_goes_to_last_top_a", "BAAB ABBA time", dict(levels="3/3", winner="A", by="time_last_deal_top")),
    ("penalty_before_time_counts", "AABB BABA A:-2 time", dict(levels="3/4", winner="B", by="time_levels")),
    ("penalised_last_top_still_wins_tie", "BAAB ABAB A:-1 time",
     dict(levels="3/3", winner="A", by="time_last_deal_top")),
    ("time_team_at_a_without_passing_wins_on_level", f"{x4('AABB')} BABA time",
     dict(levels="A/4", winner="A", by="time_levels")),
    # penalties (section 8)
    ("penalty_floor_is_2_before_any_deal", "B:-5", dict(levels="2/2", declarer=None, over=False)),
    ("penalty_floor_is_2", "AABB B:-3", dict(levels="5/2", declarer="A")),
    ("penalty_keeps_declarer_next_deal_at_reduced_level", "AABB AABB A:-2 ABAB", dict(levels="8/2", declarer="A")),
    ("back_to_2_keeps_declarer", "AABB AABB A:to2", dict(levels="2/2", declarer="A")),
    ("penalty_from_a_then_plus_1_is_no_pass", f"{x4('AABB')} A:-1 ABBA", dict(levels="A/2", declarer="A", over=False)),
    ("penalty_never_touches_opponent", "AABB BBAA A:-2", dict(levels="3/5", declarer="B")),
    ("disqualify_ends_match", "ABAB A:dq",
     dict(levels="4/2", declarer=None, over=True, winner="B", by="disqualification")),
    ("forfeit_before_any_deal_keeps_2_2", "A:forfeit",
     dict(levels="2/2", declarer=None, over=True, winner="B", by="forfeit", games="0/0")),
    ("forfeit_mid_game_keeps_levels", "BBAA B:forfeit", dict(levels="2/5", declarer=None, winner="A", by="forfeit")),
]
# fmt: on

# fmt: off
ANHUI_CASES = [
    ("double_up_promotes_5", "AABB", dict(levels="7/2", declarer="A", fails="0/0", sd=False)),
    ("partner_third_promotes_3", "BABA", dict(levels="2/5", declarer="B")),
    ("partner_last_promotes_1", "ABBA", dict(levels="3/2")),
    ("q_plus_3_capped_no_failure", "AABB AABB ABAB", dict(levels="A/2", fails="0/0", games="0/0")),
    ("game_won_new_game_at_2", f"{x3('AABB')} AABB",
     dict(levels="2/2", declarer=None, fails="0/0", games="1/0", completed="A:passed_A", over=False)),
    # failures at own A (A5, A6, A7)
    ("partner_last_at_own_a_is_a_failure", f"{x3('AABB')} ABBA", dict(levels="A/2", declarer="A", fails="1/0")),
    ("third_failure_back_to_2_without_plus_1", f"{x3('AABB')} {x3('ABBA')}",
     dict(levels="2/2", declarer="A", fails="0/0")),
    ("after_reset_next_deal_promotes_from_2", f"{x3('AABB')} {x3('ABBA')} ABAB", dict(levels="5/2", declarer="A")),
    ("failures_are_cumulative_across_other_deals", f"{x3('AABB')} BBAA AABB BABA ABAB ABBA",
     dict(levels="2/10", declarer="A", fails="0/0")),
    ("third_failure_by_opponents_top", f"{x3('AABB')} ABBA ABBA BAAB", dict(levels="2/3", declarer="B", fails="0/0")),
    ("non_declarer_at_a_is_not_counted", f"{x3('AABB')} BBAA AABB", dict(levels="A/7", declarer="A", fails="1/0")),
    ("both_at_a_only_declarer_counter_moves", f"{x3('AABB')} {x3('BBAA')} BAAB ABAB",
     dict(levels="A/A", declarer="A", fails="1/2")),
    ("both_at_a_declarer_reset_other_keeps_a", f"{x3('AABB')} {x3('BBAA')} BAAB ABAB BABA BAAB",
     dict(levels="A/2", declarer="B", fails="2/0")),
    # best of three (6.2)
    ("best_of_3_won_2_0", f"{x4('AABB')} {x4('AABB')}",
     dict(levels="A/2", declarer=None, games="2/0", completed="A:passed_A A:passed_A",
          over=True, winner="A", by="games")),
    ("best_of_3_won_2_1", f"{x4('AABB')} {x4('BBAA')} {x4('AABB')}",
     dict(levels="A/2", games="2/1", completed="A:passed_A B:passed_A A:passed_A", winner="A", by="games")),
    ("new_game_clears_failures", f"{x3('AABB')} ABBA ABAB", dict(levels="2/2", fails="0/0", games="1/0")),
    ("match_end_keeps_final_game_counters", f"{x4('AABB')} {x3('AABB')} ABBA ABAB",
     dict(levels="A/2", fails="1/0", games="2/0", over=True, declarer=None)),
    # penalties (8, A11)
    ("penalty_below_a_clears_counter", f"{x3('AABB')} ABBA A:-2", dict(levels="Q/2", declarer="A", fails="0/0")),
    ("fresh_count_after_penalty", f"{x3('AABB')} ABBA A:-2 AABB ABBA", dict(levels="A/2", fails="1/0")),
    ("penalty_on_other_team_keeps_counter", f"{x3('AABB')} ABBA B:-2", dict(levels="A/2", fails="1/0")),
    ("back_to_2_from_a_clears_counter", f"{x3('AABB')} ABBA ABBA A:to2", dict(levels="2/2", declarer="A", fails="0/0")),
    ("disqualify_keeps_counters", f"{x3('AABB')} ABBA A:dq",
     dict(levels="A/2", fails="1/0", declarer=None, winner="B", by="disqualification")),
    ("forfeit_before_any_deal", "B:forfeit", dict(levels="2/2", fails="0/0", sd=False, winner="A", by="forfeit")),
    # sudden death (7.2, A10, A13)
    ("whistle_at_start_then_sd_games", "time BAAB ABBA ABAB",
     dict(levels="A/A", declarer=None, games="2/1", sd=True, over=True, winner="A", by="games",
          completed="B:sudden_death A:sudden_death A:sudden_death")),
    ("whistle_discards_current_game", f"{x4('AABB')} BBAA time",
     dict(levels="A/A", declarer=None, fails="0/0", games="1/0", sd=True, over=False)),
    ("sd_game_after_completed_game_wins_2_0", f"{x4('AABB')} BBAA time ABBA",
     dict(games="2/0", winner="A", by="games", completed="A:passed_A A:sudden_death")),
    ("whistle_at_1_1_then_one_deal_decides", f"{x4('AABB')} {x4('BBAA')} time BABA",
     dict(games="1/2", winner="B", by="games", completed="A:passed_A B:passed_A B:sudden_death")),
    ("whistle_discards_failures", f"{x3('AABB')} ABBA time", dict(levels="A/A", fails="0/0", sd=True)),
    ("sd_partner_last_still_wins_game", "time ABBA", dict(games="1/0", over=False, levels="A/A")),
    ("sd_level_penalties_ignored", "time B:-3 B:to2", dict(levels="A/A", declarer=None, sd=True, over=False)),
    ("sd_disqualify_still_applies", "time B:-3 B:dq",
     dict(levels="A/A", sd=True, over=True, winner="A", by="disqualification")),
    ("sd_forfeit", "time AABB A:forfeit", dict(games="1/0", winner="B", by="forfeit", sd=True)),
]

VARIANT_CASES = [
    ("promotion_4_2_1", "promo-421", "AABB ABAB", dict(levels="8/2")),
    # reset to K instead of 2 (S9)
    ("reset_to_k", "reset-k", f"{x3('AABB')} {x3('ABBA')}", dict(levels="K/2", declarer="A", fails="0/0")),
    ("reset_to_k_then_back_to_a_and_pass", "reset-k", f"{x3('AABB')} {x4('ABBA')} ABAB",
     dict(games="1/0", levels="2/2")),
    # 双上 only (S9)
    ("double_up_only_partner_third_fails", "shuangshang-ah", f"{x3('AABB')} ABAB",
     dict(levels="A/2", declarer="A", fails="1/0")),
    ("double_up_only_passes_with_aabb", "shuangshang-ah", f"{x3('AABB')} ABAB AABB", dict(games="1/0")),
    ("double_up_only_nantong_no_limit", "shuangshang-nt", f"{x4('AABB')} ABAB",
     dict(levels="A/2", declarer="A", over=False)),
    # consecutive counting: a streak is broken when the team takes 上游 outside its own A
    ("consecutive_streak_broken_by_winning_a_deal", "consecutive", f"{x3('AABB')} ABBA BBAA AABB ABBA ABBA",
     dict(levels="A/7", declarer="A", fails="2/0")),
    ("cumulative_same_sequence_resets", AH, f"{x3('AABB')} ABBA BBAA AABB ABBA ABBA",
     dict(levels="3/7", declarer="A", fails="0/0")),
    ("consecutive_streak_kept_while_opponents_declare", "consecutive", f"{x3('AABB')} ABBA BBAA BBAA",
     dict(levels="A/Q", declarer="B", fails="2/0")),
    ("consecutive_third_in_a_row_resets", "consecutive", f"{x3('AABB')} ABBA BBAA AABB ABBA ABBA ABBA",
     dict(levels="2/7", declarer="A", fails="0/0")),
    # any lost deal at A counts (S9)
    ("any_lost_deal_counts_non_declarer_losses", "any-lost", f"{x3('AABB')} BBAA BBAA BABA",
     dict(levels="2/A", declarer="B", fails="0/0")),
    ("any_lost_deal_both_at_a", "any-lost", f"BBAA BBAA {x3('AABB')} BBAA BAAB",
     dict(levels="A/A", declarer="B", fails="2/1")),
    ("cumulative_same_both_at_a", AH, f"BBAA BBAA {x3('AABB')} BBAA BAAB",
     dict(levels="A/A", declarer="B", fails="1/1")),
    # lenient A (S8 option)
    ("lenient_passes_at_opponents_level", "lenient-nt", f"{x4('AABB')} BABA AABB",
     dict(over=True, winner="A", by="passed_A")),
    ("lenient_partner_last_still_no_pass", "lenient-nt", f"{x4('AABB')} BABA ABBA",
     dict(levels="A/4", declarer="A", over=False)),
    ("lenient_anhui_passes_at_opponents_level", "lenient-ah", f"{x3('AABB')} BBAA AABB",
     dict(games="1/0", levels="2/2", fails="0/0")),
    # draw allowed (Swiss / round robin, S3)
    ("draw_allowed_equal_levels_is_draw", "swiss", "ABBA BAAB time",
     dict(levels="3/3", over=True, winner=None, by="time_draw", declarer=None)),
    ("draw_allowed_time_before_any_deal_is_draw", "swiss", "time", dict(levels="2/2", winner=None, by="time_draw")),
    ("draw_allowed_unequal_levels", "swiss", "AABB time", dict(winner="A", by="time_levels")),
]
# fmt: on


@pytest.mark.parametrize(
    ("tokens", "expected"), [pytest.param(t, e, id=i) for i, t, e in NANTONG_CASES]
)
def test_nantong_rule(tokens, expected):
    check(NT, tokens, expected)


@pytest.mark.parametrize(
    ("tokens", "expected"), [pytest.param(t, e, id=i) for i, t, e in ANHUI_CASES]
)
def test_anhui_rule(tokens, expected):
    check(AH, tokens, expected)


@pytest.mark.parametrize(
    ("ruleset", "tokens", "expected"), [pytest.param(r, t, e, id=i) for i, r, t, e in VARIANT_CASES]
)
def test_variant_rule(ruleset, tokens, expected):
    check(ruleset, tokens, expected)


# ------------------------------------------------------------------------ errors

# fmt: off
ERROR_CASES = [
    ("three_of_one_team", NT, ["ABAB", {"order": ["A", "B", "B", "B"]}], "invalid_order", 1),
    ("three_places", NT, [{"order": ["A", "B", "A"]}], "invalid_order", 0),
    ("five_places", NT, [{"order": ["A", "B", "A", "B", "A"]}], "invalid_order", 0),
    ("lowercase_letters", AH, [{"order": ["a", "a", "b", "b"]}], "invalid_order", 0),
    ("order_as_string", NT, [{"order": "AABB"}], "invalid_order", 0),
    ("order_null", NT, [{"order": None}], "invalid_order", 0),
    ("seats_disagree_with_order", NT, [{"order": ["A", "A", "B", "B"], "seats": [1, 2, 3, 4]}], "invalid_order", 0),
    ("seats_repeated", NT, [{"order": ["A", "A", "B", "B"], "seats": [1, 1, 2, 4]}], "invalid_order", 0),
    ("seats_not_a_list", NT, [{"order": ["A", "A", "B", "B"], "seats": "1324"}], "invalid_order", 0),
    ("deal_after_pass_a", NT, [*x4("AABB").split(), "AABB", "ABAB"], "match_over", 5),
    ("time_after_pass_a", NT, [*x4("AABB").split(), "AABB", "time"], "match_over", 5),
    ("deal_after_time_decided", NT, ["ABAB", "time", "ABAB"], "match_over", 2),
    ("penalty_after_forfeit", NT, ["A:forfeit", "A:-2"], "match_over", 1),
    ("time_after_disqualify", AH, ["A:dq", "time"], "match_over", 1),
    ("forfeit_after_2_0", AH, [*x4("AABB").split(), *x4("AABB").split(), "B:forfeit"], "match_over", 8),
    ("bad_order_after_end_is_match_over", NT, ["A:forfeit", {"order": ["A", "A", "A", "A"]}], "match_over", 1),
    ("malformed_after_end_is_match_over", AH, ["B:dq", {"nonsense": 1}], "match_over", 1),
    ("second_whistle", AH, ["time", "AABB", "time"], "time_already_up", 2),
    ("second_whistle_straight_away", AH, ["time", "time"], "time_already_up", 1),
    ("time_before_any_deal", NT, ["time"], "no_deal_to_decide", 0),
    ("time_after_only_penalties", NT, ["A:-2", "B:to2", "time"], "no_deal_to_decide", 2),
]
# fmt: on


@pytest.mark.parametrize(
    ("ruleset", "events", "code", "index"),
    [pytest.param(r, e, c, i, id=n) for n, r, e, c, i in ERROR_CASES],
)
def test_it_rejects_with_code_and_index(ruleset, events, code, index):
    with pytest.raises(EngineError) as info:
        replay(ruleset, [ev(e) if isinstance(e, str) else e for e in events])
    assert info.value.as_dict() == {"error": code, "event_index": index}
    assert str(info.value)  # a message for the referee


# fmt: off
MALFORMED_EVENTS = [
    ("string", "AABB"),
    ("null", None),
    ("list", ["A", "A", "B", "B"]),
    ("number", 5),
    ("empty_object", {}),
    ("unknown_key_only", {"note": "x"}),
    ("two_event_keys", {"order": ["A", "A", "B", "B"], "time_up": True}),
    ("time_up_false", {"time_up": False}),
    ("time_up_one", {"time_up": 1}),
    ("time_up_string", {"time_up": "true"}),
    ("penalty_without_team", {"penalty": {"levels": 2}}),
    ("penalty_team_c", {"penalty": {"team": "C", "levels": 2}}),
    ("penalty_lowercase_team", {"penalty": {"team": "a", "levels": 2}}),
    ("penalty_zero_levels", {"penalty": {"team": "A", "levels": 0}}),
    ("penalty_negative_levels", {"penalty": {"team": "A", "levels": -1}}),
    ("penalty_bool_levels", {"penalty": {"team": "A", "levels": True}}),
    ("penalty_float_levels", {"penalty": {"team": "A", "levels": 1.5}}),
    ("penalty_string_levels", {"penalty": {"team": "A", "levels": "2"}}),
    ("penalty_null_levels", {"penalty": {"team": "A", "levels": None}}),
    ("penalty_without_levels", {"penalty": {"team": "A"}}),
    ("penalty_kind_levels_without_levels", {"penalty": {"team": "A", "kind": "levels"}}),
    ("penalty_unknown_kind", {"penalty": {"team": "A", "kind": "warning"}}),
    ("penalty_not_object", {"penalty": "A"}),
    ("forfeit_empty", {"forfeit": {}}),
    ("forfeit_team_x", {"forfeit": {"team": "X"}}),
    ("forfeit_not_object", {"forfeit": "B"}),
]
# fmt: on


@pytest.mark.parametrize("obj", [pytest.param(o, id=i) for i, o in MALFORMED_EVENTS])
def test_it_rejects_malformed_events_as_invalid_event(obj):
    with pytest.raises(EngineError) as info:
        parse_event(obj)
    assert info.value.code == "invalid_event"
    with pytest.raises(EngineError) as info:
        replay(AH, [ev("AABB"), obj])
    assert info.value.as_dict() == {"error": "invalid_event", "event_index": 1}


def test_it_ignores_unknown_keys_but_reads_seats():
    assert parse_event({"order": ["A", "B", "A", "B"], "note": "x"}) == Deal(("A", "B", "A", "B"))
    assert parse_event({"order": ["A", "B", "A", "B"], "seats": [3, 2, 1, 4]}).seats == (3, 2, 1, 4)
    assert parse_event({"penalty": {"team": "B", "levels": 3, "by": "chief"}}) == Penalty(
        "B", "levels", 3
    )


def test_apply_event_raises_without_index_and_replay_adds_it():
    state = replay(NT, [ev("A:forfeit")])
    with pytest.raises(EngineError) as info:
        apply_event(state, Deal(("A", "A", "B", "B")), NANTONG_2014)
    assert info.value.event_index is None
    assert info.value.as_dict() == {"error": "match_over", "event_index": None}


def test_the_engine_error_is_a_readable_picklable_exception():
    err = EngineError("invalid_order", event_index=3)
    assert str(err) == "每副牌的名次必须是两名A队、两名B队"
    assert err.message == str(err)
    copy = pickle.loads(pickle.dumps(err))
    assert copy.as_dict() == {"error": "invalid_order", "event_index": 3}
    with pytest.raises(ValueError):
        EngineError("not_a_code")


def test_events_validate_when_built_directly():
    assert Deal(["A", "B", "B", "A"]).order == ("A", "B", "B", "A")
    assert Deal(("B", "A", "B", "A")).partner_place == 3
    with pytest.raises(EngineError, match="两名A队"):
        Deal(("A", "A", "A", "B"))
    with pytest.raises(EngineError):
        Penalty("A", levels=0)
    with pytest.raises(EngineError):
        Forfeit("C")


# ------------------------------------------------------------------ state & output


def test_playing_level_follows_the_declarer():
    rs = NANTONG_2014
    assert initial_state(rs).playing_level() == 2
    assert run(NT, "AABB BABA").playing_level() == 4  # B declares at its 4
    assert run(NT, "AABB AABB A:to2").playing_level() == 2
    assert run(AH, "AABB time").playing_level() == 14
    assert run(AH, f"{x4('AABB')}").playing_level() == 2  # new game


def test_state_is_immutable_and_levels_are_dict_like():
    state = run(NT, "AABB")
    assert state.level("A") == 5 and state.levels == {"A": 5, "B": 2}
    assert dict(state.levels) == {"A": 5, "B": 2}
    with pytest.raises(FrozenInstanceError):
        state.declarer = "B"  # type: ignore[misc]
    assert hash(state) == hash(run(NT, "AABB"))


@pytest.mark.parametrize(
    ("ruleset", "has_counters"),
    [
        (NANTONG_2014, False),
        (ANHUI_2021, True),
        (replace(NANTONG_2014, id="x", a_fail_limit=3), True),
    ],
)
def test_state_to_dict_keys_follow_the_ruleset(ruleset, has_counters):
    keys = set(state_to_dict(initial_state(ruleset), ruleset))
    base = {
        "levels",
        "declarer",
        "games_won",
        "completed_games",
        "match_over",
        "winner",
        "decided_by",
    }
    assert keys == (base | {"a_failures", "sudden_death"} if has_counters else base)
    full = state_to_full_dict(replay(ruleset, [ev("AABB")]), ruleset)
    assert set(full) >= keys | {"a_failures", "playing_level", "last_top", "time_up", "deals_total"}
    assert full["last_top"] == "A" and full["deals_total"] == 1 and full["deals_in_game"] == 1


def test_level_labels():
    assert [level_label(n) for n in range(2, 15)] == [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"
    ]  # fmt: skip
    with pytest.raises(ValueError):
        level_label(15)


# ---------------------------------------------------------------------- rule sets


def test_presets_match_the_seed_documents():
    assert get_ruleset("nantong2014") is NANTONG_2014
    assert NANTONG_2014.promotion == (3, 2, 1) and NANTONG_2014.games_to_win == 1
    assert NANTONG_2014.a_fail_limit is None and NANTONG_2014.time_limit_minutes == 60
    assert ANHUI_2021.promotion == (5, 3, 1) and ANHUI_2021.games_to_win == 2
    assert ANHUI_2021.a_fail_limit == 3 and ANHUI_2021.time_rule == "sudden_death"
    assert ANHUI_2021.time_limit_minutes == 150 and ANHUI_2021.forfeit_ends_event
    assert set(PRESETS) == {"nantong2014", "anhui2021"}


def test_unknown_ruleset_is_a_value_error():
    with pytest.raises(ValueError, match="unknown ruleset"):
        get_ruleset("shanghai")


@pytest.mark.parametrize("ruleset", list(RULESETS.values()), ids=list(RULESETS))
def test_ruleset_round_trips_through_dict_and_json(ruleset):
    assert RuleSet.from_dict(json.loads(json.dumps(ruleset.to_dict()))) == ruleset


# fmt: off
BAD_CONFIGS = [
    ("promotion_two_values", {"promotion": [3, 2]}),
    ("promotion_zero", {"promotion": [3, 2, 0]}),
    ("promotion_increasing", {"promotion": [1, 2, 3]}),
    ("promotion_bools", {"promotion": [True, True, True]}),
    ("partner_places_with_4", {"a_win_partner_places": [2, 3, 4]}),
    ("partner_places_empty", {"a_win_partner_places": []}),
    ("fail_limit_zero", {"a_fail_limit": 0}),
    ("unknown_counting", {"a_fail_counting": "sometimes"}),
    ("reset_to_a", {"a_fail_reset_to": 14}),
    ("games_zero", {"games_to_win": 0}),
    ("unknown_time_rule", {"time_rule": "coin_toss"}),
    ("unknown_time_from", {"time_from": "lunch"}),
    ("levels_rule_with_best_of_3", {"games_to_win": 2}),
    ("penalty_default_zero", {"default_penalty_levels": 0}),
    ("unknown_key", {"colour": "red"}),
    ("empty_id", {"id": ""}),
]
# fmt: on


@pytest.mark.parametrize("change", [pytest.param(c, id=i) for i, c in BAD_CONFIGS])
def test_bad_ruleset_config_is_a_clear_value_error(change):
    with pytest.raises(ValueError, match="rule set"):
        RuleSet.from_dict({**NANTONG_2014.to_dict(), **change})


def test_from_dict_needs_the_core_keys():
    with pytest.raises(ValueError, match="missing"):
        RuleSet.from_dict({"id": "x"})


def test_summary_lines_for_score_sheets():
    assert (
        NANTONG_2014.summary_zh()
        == "升级3/2/1；A必打；一局定胜负；限时60分钟（从裁判宣布开始起计），"
        "到时比级数，同级看末副上游"
    )
    assert ANHUI_2021.summary_zh() == (
        "升级5/3/1；A必打，累计3次打A未过退回2；三局两胜；限时150分钟（从规定开赛时间起计），"
        "到时进入突然死亡法"
    )
    first_deal = RuleSet.from_dict({**NANTONG_2014.to_dict(), "time_from": "first_deal"})
    assert "限时60分钟（从第一副牌起计）" in first_deal.summary_zh()
    assert "须双上" in DOUBLE_UP_AH.summary_zh() and "退回K" in RESET_TO_K.summary_zh()
    assert "平局" in DRAW_ALLOWED.summary_zh() and "连续3次" in CONSECUTIVE.summary_zh()


# ----------------------------------------------------------------------- describe


def description(ruleset, tokens: str, names=None):
    """The words describing the last of ``tokens``' events."""
    rs = RULESETS.get(ruleset) or get_ruleset(ruleset)
    events = [parse_event(ev(t)) for t in tokens.split()]
    before = replay(rs, events[:-1])
    after = apply_event(before, events[-1], rs)
    return describe_event(before, events[-1], after, rs, names=names)


def described(ruleset, tokens: str, names=None) -> str:
    return str(description(ruleset, tokens, names))


# fmt: off
DESCRIBE_CASES = [
    ("promotion", NT, "ABAB ABAB", "A队上游，对家三游，升2级：4→6"),
    ("double_up", NT, "BBAA", "B队双上（A队双下），升3级：2→5"),
    ("pass_a", AH, f"{x3('AABB')} AABB", "A队打A成功（上游，对家二游），赢得第1局"),
    ("pass_a_ends_match", AH, f"{x4('AABB')} {x3('AABB')} ABAB", "A队打A成功（上游，对家三游），赢得第2局，A队2:0获胜"),
    ("failed_attempt", AH, f"{x3('AABB')} ABBA ABBA", "A队打A未过（第2次），仍打A"),
    ("third_failure", AH, f"{x3('AABB')} ABBA ABBA ABBA", "A队第3次打A未过，退回2"),
    ("failure_by_opponents", AH, f"{x3('AABB')} BABA", "B队上游，对家三游，升3级：2→5；A队打A未过（第1次）"),
    ("nantong_partner_last_at_a", NT, f"{x4('AABB')} ABBA", "A队打A未过（对家末游），仍打A"),
    ("deduction", AH, "BBAA B:-2", "B队扣2级：7→5"),
    ("back_to_2", AH, "AABB A:to2", "A队回到2"),
    ("disqualify", AH, "B:dq", "B队取消比赛资格，A队获胜"),
    ("time_levels", NT, f"{x3('AABB')} ABBA ABBA {x4('BABA')} time", "时间到：A队级数高（K对10），A队获胜"),
    ("time_tie", NT, "ABBA BAAB time", "时间到：双方同为3级，末副上游B队获胜"),
    ("whistle", AH, "time", "鸣哨，进入突然死亡法"),
    ("sudden_death_game", AH, "time ABBA BAAB", "突然死亡：B队上游，赢得第2局"),
    ("forfeit", NT, "B:forfeit", "B队弃权，A队获胜"),
]
# fmt: on


@pytest.mark.parametrize(
    ("ruleset", "tokens", "text"), [pytest.param(r, t, x, id=i) for i, r, t, x in DESCRIBE_CASES]
)
def test_describe_tells_the_referee_what_happened(ruleset, tokens, text):
    assert described(ruleset, tokens) == text


def test_describe_uses_pair_names():
    names = {"A": "体育1", "B": "行政1"}
    assert described(NT, "BBAA", names) == "行政1双上（体育1双下），升3级：2→5"
    assert described(AH, "A:dq", names) == "体育1取消比赛资格，行政1获胜"


# ----------------------------------------------------------------------- team tie

# fmt: off
TIE_CASES = [
    ("two_of_three", ["A", "A", "B"], "A", {"A": 2, "B": 1}, True, 3),
    ("clean_sweep", ["B", "B", "B"], "B", {"A": 0, "B": 3}, True, 3),
    ("decided_with_third_unfinished", ["A", None, "A"], "A", {"A": 2, "B": 0}, True, 2),
    ("one_each_undecided", ["A", "B", None], None, {"A": 1, "B": 1}, False, 2),
    ("nothing_played", [None, None, None], None, {"A": 0, "B": 0}, False, 0),
    ("short_list_means_unfinished", ["B"], None, {"A": 0, "B": 1}, False, 1),
]
# fmt: on


@pytest.mark.parametrize(
    ("winners", "winner", "wins", "decided", "done"),
    [pytest.param(*c[1:], id=c[0]) for c in TIE_CASES],
)
def test_decide_tie_by_majority_of_tables(winners, winner, wins, decided, done):
    result = decide_tie(winners)
    assert (result.winner, result.wins, result.decided, result.tables_done) == (
        winner,
        wins,
        decided,
        done,
    )


@pytest.mark.parametrize(
    ("winners", "tables"),
    [("AAB", 3), (["A", "C", "B"], 3), (["A", "A", "B", "B"], 3), (["A"], 2), (["A"], 0)],
)
def test_decide_tie_rejects_bad_input(winners, tables):
    with pytest.raises(ValueError):
        decide_tie(winners, tables=tables)


# ------------------------------------------------------------- hypothesis properties


def _deal_strategy():
    @st.composite
    def deal(draw):
        order = tuple(draw(st.permutations(["A", "A", "B", "B"])))
        if not draw(st.booleans()):
            return Deal(order)
        seat_of = {
            "A": list(draw(st.permutations([1, 3]))),
            "B": list(draw(st.permutations([2, 4]))),
        }
        return Deal(order, tuple(seat_of[t].pop() for t in order))

    return deal()


TEAM = st.sampled_from(["A", "B"])
EVENTS = st.one_of(
    *[_deal_strategy()] * 16,  # mostly deals
    st.builds(Penalty, TEAM, st.just("levels"), st.integers(1, 6)),
    st.builds(Penalty, TEAM, st.just("back_to_2")),
    st.builds(TimeUp),
    st.builds(TimeUp),
    st.builds(Forfeit, TEAM, st.sampled_from(["", "late_over_10_min"])),
    st.builds(Penalty, TEAM, st.just("disqualify")),
)
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _expected_error(state: MatchState, event, rs: RuleSet) -> str | None:
    if state.match_over:
        return "match_over"
    if isinstance(event, TimeUp):
        if state.time_up:
            return "time_already_up"
        if rs.time_rule == "levels_then_last_top" and state.deals_in_game == 0:
            return "no_deal_to_decide"
    return None


def _check_step(before: MatchState, event, after: MatchState, rs: RuleSet) -> None:
    for team in "AB":
        assert 2 <= after.level(team) <= 14
        fails = after.a_failures[team]
        if rs.a_fail_limit is None:
            assert fails == 0
        else:
            assert 0 <= fails < rs.a_fail_limit
            assert fails == 0 or after.level(team) == 14  # counters only mean something at A
    assert sum(after.games_won.values()) == len(after.completed_games)
    assert describe_event(before, event, after, rs)
    if after.match_over:
        assert after.declarer is None
        if after.decided_by in ("games", "passed_A"):
            assert after.games_won[after.winner] >= rs.games_to_win
        if rs.time_rule != "draw_allowed":
            assert after.winner in ("A", "B")
    if isinstance(event, Deal):
        top, loser = event.order[0], "B" if event.order[0] == "A" else "A"
        if len(after.completed_games) == len(before.completed_games):
            # the team without 上游 never gains; it loses only by a failure reset
            assert after.level(loser) == before.level(loser) or (
                rs.a_fail_limit is not None
                and before.level(loser) == 14
                and after.level(loser) == rs.a_fail_reset_to
            )
            assert after.level(top) >= before.level(top) or after.level(top) == rs.a_fail_reset_to
            assert after.declarer == top
        elif not after.match_over:
            start = 14 if after.sudden_death else 2
            assert after.levels == {"A": start, "B": start} and after.declarer is None
    elif isinstance(event, Penalty) and event.kind != "disqualify":
        other = "B" if event.team == "A" else "A"
        assert after.declarer == before.declarer
        assert after.level(other) == before.level(other)
        assert after.level(event.team) <= before.level(event.team)


@pytest.mark.parametrize("ruleset", list(RULESETS.values()), ids=list(RULESETS))
@PROPERTY_SETTINGS
@given(
    events=st.lists(EVENTS, max_size=70),
    split=st.integers(0, 70),
    extra=st.lists(EVENTS, min_size=1, max_size=3),
)
def test_random_records_keep_every_invariant(ruleset, events, split, extra):
    rs = ruleset
    state, accepted = initial_state(rs), []
    for event in events:
        expected_error = _expected_error(state, event, rs)
        try:
            after = apply_event(state, event, rs)
        except EngineError as err:
            assert err.code == expected_error
            continue
        assert expected_error is None
        _check_step(state, event, after, rs)
        state = after
        accepted.append(event)

    # replaying a prefix then applying the rest equals replaying the whole
    assert replay(rs, accepted) == state
    assert replay(rs, [event_to_dict(e) for e in accepted]) == state
    k = min(split, len(accepted))
    partial = replay(rs, accepted[:k])
    for event in accepted[k:]:
        partial = apply_event(partial, event, rs)
    assert partial == state

    if state.match_over:
        for event in [*extra, {"bogus": True}]:
            with pytest.raises(EngineError) as info:
                apply_event(state, event, rs)
            assert info.value.code == "match_over"


@PROPERTY_SETTINGS
@given(event=EVENTS)
def test_event_json_round_trips(event):
    as_dict = event_to_dict(event)
    assert parse_event(as_dict) == event
    assert event_to_dict(parse_event(json.loads(json.dumps(as_dict)))) == as_dict


# ---------------------------------------------------------------- lenient rule-set checks


@pytest.mark.parametrize("places", [[2.0], [2, 3.0], [3, 2], [2, 2], [2, 3, 3], [True], [3]])
def test_a_win_partner_places_is_2_or_2_3_as_whole_numbers_sorted_once(places):
    config = {"id": "custom", "name": "自定义", "promotion": [3, 2, 1]}
    with pytest.raises(ValueError, match="a_win_partner_places must be"):
        RuleSet.from_dict({**config, "a_win_partner_places": places})


@pytest.mark.parametrize("places", [[2], [2, 3]])
def test_the_documented_a_win_partner_places_are_accepted(places):
    config = {"id": "custom", "name": "自定义", "promotion": [3, 2, 1]}
    assert (
        sorted(RuleSet.from_dict({**config, "a_win_partner_places": places}).a_win_partner_places)
        == places
    )


@pytest.mark.parametrize(
    ("discipline", "preset"),
    [("guandan_team", "nantong2014"), ("guandan_pairs", "anhui2021")],
)
def test_a_custom_rule_set_may_not_take_a_presets_id(discipline, preset):
    from scoring.engines.scorer import scorer_for

    config = {**PRESETS[preset].to_dict(), "default_penalty_levels": 2}
    with pytest.raises(ValueError, match="preset"):
        scorer_for(discipline, "", config)
    assert scorer_for(discipline, "", {**config, "id": "my-rules"}).id == "my-rules"


# ----------------------------------------------------------------------- the clock


def test_each_notice_counts_its_time_limit_from_where_it_says():
    # Nantong: 每场比赛时间为1小时 — each match from its own start at the table.
    assert NANTONG_2014.time_from == "start"
    # Anhui: 每场比赛时间为两个半小时…裁判长鸣哨，宣布全场选手同时进入 — the round's schedule.
    assert ANHUI_2021.time_from == "scheduled"
    # A custom rule set that does not say counts from 开始 (and the first deal without it).
    config = {k: v for k, v in NANTONG_2014.to_dict().items() if k != "time_from"}
    assert RuleSet.from_dict({**config, "id": "club"}).time_from == "start"
    assert RuleSet.from_dict(NANTONG_2014.to_dict()) == NANTONG_2014


@pytest.mark.parametrize(
    "time_from, known, expected",
    [
        ("scheduled", ("8:30", "8:40", "8:45"), "8:30"),
        ("scheduled", (None, "8:40", "8:45"), "8:40"),  # no schedule: the 开始
        ("scheduled", (None, None, "8:45"), "8:45"),
        ("start", ("8:30", "8:40", "8:45"), "8:40"),
        ("start", ("8:30", None, "8:45"), "8:45"),  # no 开始 tapped: the first deal
        ("start", ("8:30", None, None), None),  # the schedule is not the table's start
        ("first_deal", ("8:30", "8:40", "8:45"), "8:45"),
        ("first_deal", ("8:30", "8:40", None), None),
    ],
)
def test_the_clock_starts_where_the_rule_set_says_and_falls_back_on_later_moments(
    time_from, known, expected
):
    from scoring.engines.common import clock_start

    scheduled, start, first_deal = known
    got = clock_start(time_from, scheduled=scheduled, start=start, first_deal=first_deal)
    assert got == expected


def test_a_scorer_starts_the_clock_as_its_rule_set_says():
    from scoring.engines.scorer import Scorer

    nantong, anhui = Scorer("guandan", NANTONG_2014), Scorer("guandan", ANHUI_2021)
    assert nantong.clock_start(scheduled=0, start=5, first_deal=9) == 5
    assert nantong.clock_start(scheduled=0, start=None, first_deal=9) == 9
    assert nantong.clock_start(scheduled=0, start=None, first_deal=None) is None
    assert anhui.clock_start(scheduled=0, start=5, first_deal=9) == 0
    from scoring.engines.scorer import scorer_for

    assert scorer_for("xiangqi", "").time_from == "first_deal"  # a sport with no say
