"""The Guandan engine behind the scorer's protocol (:class:`scoring.engines.common.Engine`):
the play of :mod:`scoring.engines.guandan.play` and the sentences of
:mod:`scoring.engines.guandan.describe`, in the services' terms.

Pure Python, no Django. Teams are "A" (home) and "B" (away), as everywhere in Guandan; a
stored state is the dict :func:`scoring.engines.guandan.play.state_to_full_dict` makes.
Terms (上游, 级, 打A, 突然死亡法 …) are defined in :mod:`scoring.engines.guandan.play`.
"""

from __future__ import annotations

from collections.abc import Mapping

from scoring.engines.board import Words, words
from scoring.engines.common import RuleSetError, forfeit_code, refuse_preset_id
from scoring.engines.guandan import board as _board
from scoring.engines.guandan import describe, play
from scoring.engines.guandan.play import PRESETS, MatchState, RuleSet, get_ruleset
from scoring.engines.guandan.rules import level_value

KIND = "guandan"
DISCIPLINES = ("guandan_team", "guandan_pairs")
EVENTS = frozenset({"deal", "penalty", "time_up", "forfeit"})
TIME_UP = {"time_up": True}
initial_state = play.initial_state
parse_event = play.parse_event
event_to_dict = play.event_to_dict
apply_event = play.apply_event


# --------------------------------------------------------------------------- rule sets


def preset_choices() -> dict[str, list[tuple[str, str]]]:
    """The presets by id with their names: a Chinese message each, worded by the page."""
    return {"guandan": [(k, r.name) for k, r in PRESETS.items()]}


def rules_for(discipline: str, ruleset: str, config: Mapping) -> RuleSet:
    """A custom rule set from ``config``, else the named preset: Guandan has no default,
    the organiser chooses."""
    if config:
        refuse_preset_id(config, PRESETS)
        return RuleSet.from_dict(config)
    if ruleset:
        return get_ruleset(ruleset)
    raise RuleSetError("a guandan event needs a rule set")


def after_whistle(rules: RuleSet, payload: dict | None) -> list[dict]:
    """What the chief referee's whistle records (``payload`` None), or what follows an event
    recorded after it. Under sudden death (Anhui) time is up at the whistle; otherwise
    (Nantong) the deal in progress is played out and the deal recorded next brings the
    time-up with it (``docs/rules.md``, the time limit)."""
    sudden_death = rules.time_rule == "sudden_death"
    if payload is None:
        return [dict(TIME_UP)] if sudden_death else []
    return [dict(TIME_UP)] if "order" in payload and not sudden_death else []


def deduction(rules: RuleSet, team: str) -> dict:
    """The penalty three upheld reports bring (Anhui: 三次举报…属实，实施扣级): the rule
    set's default number of levels."""
    return {"penalty": {"team": team, "levels": rules.default_penalty_levels}}


# --------------------------------------------------------------------------- events and states


def describe_event(before: MatchState, event, after: MatchState, rules, names) -> Words:
    return describe.describe_event(before, play.coerce_event(event), after, rules, names)


def forfeit_event(team: str, reason: str) -> dict:
    if team not in ("A", "B"):
        raise ValueError(f"team must be A or B, got {team!r}")
    return {"forfeit": {"team": team, "reason": forfeit_code(reason)}}


def stored_state(state: MatchState, rules: RuleSet) -> dict:
    """The state as stored on the table and shown on its page."""
    return play.state_to_full_dict(state, rules)


def public_state(state: MatchState, rules: RuleSet) -> dict:
    """The state in ``matches/ID.json``: the public examples' ``expected`` format."""
    return play.state_to_dict(state, rules)


# --------------------------------------------------------------------------- reading a stored state


def winner(stored: dict) -> str | None:
    return stored.get("winner") if stored.get("match_over") else None


def started(stored: dict) -> bool:
    return bool(stored.get("deals_total"))


def score(stored: dict) -> tuple[str, str]:
    """The two teams' levels (级), as shown: "10", "K", "A"."""
    levels = stored.get("levels") or {}
    return levels.get("A", "2"), levels.get("B", "2")


def games(stored: dict) -> None:
    return None  # the record is the deals


def games_won(stored: dict) -> tuple[int, int]:
    won = stored.get("games_won") or {}
    return won.get("A", 0), won.get("B", 0)


MARGIN_HEADING = words("级分")  # margin(), as the standings head its column


def margin(stored: dict) -> float:
    """Home minus away level at the end of a table: the raw 级差 of Swiss and groups."""
    levels = stored.get("levels") or {}
    return float(level_value(levels.get("A")) - level_value(levels.get("B")))


def tie_score(stored: dict) -> tuple[int, int]:
    """A pairs match is one table: it counts as won or lost, whatever the games."""
    won = winner(stored)
    return int(won == "A"), int(won == "B")


def tie_points(stored: dict) -> None:
    """A guandan tie is scored in tables won, not in points."""
    return None


def live_score(tables: list[tuple[dict, bool]]) -> tuple[int, int]:
    """A tie as it stands: the tables confirmed so far, won by each team."""
    winners = [winner(stored) for stored, confirmed in tables if confirmed]
    return winners.count("A"), winners.count("B")


# --------------------------------------------------------------------------- for people

board = _board.board
sheet = _board.sheet


def table_title(number: int, table_number: int | None):
    """A team tie's table among its tables (第2台), with the hall's table number (5号桌)."""
    title = words("第%(n)s台", n=number)
    if table_number:
        return words("%(title)s · %(place)s", title=title, place=words("%(t)s号桌", t=table_number))
    return title


table_place = table_title  # a team tie's table is where it is played
