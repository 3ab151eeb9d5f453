"""Rally-point matches of 羽毛球 (badminton) and 乒乓球 (table tennis): the events, the
match state and the referee screen's sentences (words, worded for the reader when shown);
pure Python, standard library only.

Rule sets and the legal final scores of a game are in :mod:`scoring.engines.rally_rules`
(re-exported here, so callers import from ``scoring.engines.rally`` only). Referees enter
each game's final score, or optionally every rally (point by point) with the running
score and the server shown.

* 发球 (serve) - who serves the next rally, when known:
  - badminton: the player who won the last rally serves; the winner of a game serves
    first in the next game. The match's first server is decided by lot (``first_server``
    event, before any point); after the first rally the server is known anyway.
  - table tennis: service changes every 2 points, and after every point from 10-all
    (deuce); the player who served first in a game receives first in the next. Without
    a ``first_server`` event at the start of the match the server stays unknown.
* 弃权 (forfeit) - see :mod:`scoring.engines.common`.

Errors: :class:`scoring.engines.common.EngineError` with codes ``match_over``,
``impossible_score`` and ``invalid_event``. The scorer's protocol
(:class:`scoring.engines.common.Engine`) is at the end of this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from scoring.engines import common, match_boards
from scoring.engines.board import THEN, Words, clauses, words
from scoring.engines.common import (
    EngineError,
    Forfeit,
    SideValues,
    bad_event,
    check_side,
    describe_side_forfeit,
    forfeit_to_dict,
    other,
    parse_forfeit,
    side_name,
)
from scoring.engines.rally_rules import (
    BADMINTON_21,
    PRESETS,
    SPORTS,
    TABLE_TENNIS_11,
    TABLE_TENNIS_11_BEST_OF_3,
    RallyRules,
    as_rules,
    check_points,
    get_rules,
    is_game_over,
    score_problem,
    validate_game_score,
)

# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class GameScore:
    """A whole game's final score: ``{"home": 21, "away": 17}``."""

    home: int
    away: int

    def __post_init__(self) -> None:
        check_points(self.home, self.away)


@dataclass(frozen=True)
class Point:
    """One rally won by ``side`` (point-by-point entry): ``{"point": "home"}``."""

    side: str

    def __post_init__(self) -> None:
        check_side(self.side, words("得分方"))


@dataclass(frozen=True)
class FirstServer:
    """Who serves first in the match, drawn by lot: ``{"first_server": "home"}``."""

    side: str

    def __post_init__(self) -> None:
        check_side(self.side, words("发球方"))


Event = GameScore | Point | FirstServer | Forfeit
_EVENT_TYPES = (GameScore, Point, FirstServer, Forfeit)


def parse_event(obj: Any) -> Event:
    """An event from its JSON form (``matches/ID.json`` for game scores). Keys other than
    the event keys are ignored."""
    if not isinstance(obj, dict):
        raise bad_event(words("每条记录必须是一个对象"))
    kinds = [k for k in ("point", "first_server", "forfeit") if k in obj]
    if "home" in obj or "away" in obj:
        kinds.append("score")
    if len(kinds) != 1:
        raise bad_event(words("每条记录必须且只能是一局比分、一分、首先发球方或弃权之一"))
    kind = kinds[0]
    if kind == "score":
        if "home" not in obj or "away" not in obj:
            raise bad_event(words("一局比分必须同时写明双方得分（home 和 away）"))
        return GameScore(obj["home"], obj["away"])
    if kind == "point":
        return Point(obj["point"])
    if kind == "first_server":
        return FirstServer(obj["first_server"])
    return parse_forfeit(obj["forfeit"])


def event_to_dict(event: Event) -> dict:
    """Inverse of :func:`parse_event`: ``parse_event(event_to_dict(e)) == e``."""
    if isinstance(event, GameScore):
        return {"home": event.home, "away": event.away}
    if isinstance(event, Point):
        return {"point": event.side}
    if isinstance(event, FirstServer):
        return {"first_server": event.side}
    if isinstance(event, Forfeit):
        return forfeit_to_dict(event)
    raise TypeError(f"not a rally event: {event!r}")


def coerce_event(event: Any) -> Event:
    return event if isinstance(event, _EVENT_TYPES) else parse_event(event)


# ---------------------------------------------------------------------------- state


@dataclass(frozen=True)
class RallyState:
    """A match after some events.

    ``current_game`` is the running (home, away) score of a game entered point by point
    (0-0 between games); ``server`` serves the next rally (``None`` when unknown or the
    match is over); ``game_first_server`` served first in the current game (table tennis
    needs it); ``first_server`` is the lot at the start of the match; ``rallies`` counts
    the points entered one by one.
    """

    games: tuple[tuple[int, int], ...] = ()
    games_won: SideValues = field(default_factory=lambda: SideValues(0, 0))
    current_game: tuple[int, int] = (0, 0)
    server: str | None = None
    game_first_server: str | None = None
    first_server: str | None = None
    rallies: int = 0
    match_over: bool = False
    winner: str | None = None
    decided_by: str | None = None  # 'games' | 'forfeit'

    @property
    def game_in_progress(self) -> bool:
        return self.current_game != (0, 0)

    @property
    def next_game(self) -> int | None:
        """Number (1-based) of the game being or to be played; ``None`` once over."""
        return None if self.match_over else len(self.games) + 1


def initial_state(rules: RallyRules | str) -> RallyState:
    as_rules(rules)
    return RallyState()


def _end(state: RallyState, winner: str, decided_by: str) -> RallyState:
    return replace(
        state,
        match_over=True,
        winner=winner,
        decided_by=decided_by,
        server=None,
        game_first_server=None,
    )


def _table_tennis_server(first: str | None, home: int, away: int, rules: RallyRules) -> str | None:
    if first is None:
        return None
    total = home + away
    deuce = 2 * (rules.points_to_win - 1)
    # Service changes after every 2 points, and after every point from deuce (10-all).
    changes = total // 2 if total < deuce else deuce // 2 + (total - deuce)
    return first if changes % 2 == 0 else other(first)


def _finish_game(state: RallyState, score: tuple[int, int], rules: RallyRules) -> RallyState:
    winner = "home" if score[0] > score[1] else "away"
    won = state.games_won.with_value(winner, state.games_won[winner] + 1)
    if rules.sport == "badminton":
        first = winner  # the winner of a game serves first in the next one
    else:
        first = None if state.game_first_server is None else other(state.game_first_server)
    state = replace(
        state,
        games=state.games + (score,),
        games_won=won,
        current_game=(0, 0),
        server=first,
        game_first_server=first,
    )
    if won[winner] >= rules.games_to_win:
        return _end(state, winner, "games")
    return state


def _play_point(state: RallyState, point: Point, rules: RallyRules) -> RallyState:
    home, away = state.current_game
    if point.side == "home":
        home += 1
    else:
        away += 1
    game_first = state.game_first_server
    if state.current_game == (0, 0) and game_first is None:
        game_first = state.server  # known in badminton after a game entered as a whole
    if rules.sport == "badminton":
        server = point.side  # rally scoring: the rally's winner serves next
    else:
        server = _table_tennis_server(game_first, home, away, rules)
    state = replace(
        state,
        current_game=(home, away),
        server=server,
        game_first_server=game_first,
        rallies=state.rallies + 1,
    )
    if score_problem(home, away, rules) is None:
        return _finish_game(state, (home, away), rules)
    return state


def _set_first_server(state: RallyState, event: FirstServer) -> RallyState:
    if state.first_server is not None:
        raise bad_event(words("已经录入过首先发球方"))
    if state.rallies or state.games:
        raise bad_event(words("首先发球方只能在比赛开始、第一分之前录入"))
    return replace(state, first_server=event.side, game_first_server=event.side, server=event.side)


def _play_game_score(state: RallyState, game: GameScore, rules: RallyRules) -> RallyState:
    if state.game_in_progress:
        h, a = state.current_game
        raise bad_event(
            words("本局正在逐分记录（%(score)s），不能再录入整局比分", score=f"{h}–{a}")
        )
    validate_game_score(game.home, game.away, rules)
    return _finish_game(state, (game.home, game.away), rules)


def apply_event(state: RallyState, event: Event | dict, rules: RallyRules | str) -> RallyState:
    """Apply one event; pure. Raises :class:`EngineError` with ``event_index=None``."""
    rules = as_rules(rules)
    if state.match_over:
        # Checked first: nothing, however malformed, is added to a finished record.
        raise EngineError("match_over")
    event = coerce_event(event)
    if isinstance(event, GameScore):
        return _play_game_score(state, event, rules)
    if isinstance(event, Point):
        return _play_point(state, event, rules)
    if isinstance(event, FirstServer):
        return _set_first_server(state, event)
    return _end(state, other(event.side), "forfeit")


def replay(rules: RallyRules | str, events: Iterable[Event | dict]) -> RallyState:
    """Replay a whole record. Errors carry the index of the offending event."""
    rules = as_rules(rules)
    return common.replay(initial_state(rules), lambda s, e: apply_event(s, e, rules), events)


# -------------------------------------------------------------------------- output


def state_to_dict(state: RallyState, rules: RallyRules | str) -> dict:
    """The state as JSON for ``matches/ID.json`` and the referee page; ``games`` is in
    play order in the ``matches/ID.json`` form."""
    as_rules(rules)
    home, away = state.current_game
    return {
        "games": [{"home": h, "away": a} for h, a in state.games],
        "games_won": state.games_won.as_dict(),
        "current_game": {"home": home, "away": away},
        "game_in_progress": state.game_in_progress,
        "next_game": state.next_game,
        "server": state.server,
        "first_server": state.first_server,
        "match_over": state.match_over,
        "winner": state.winner,
        "decided_by": state.decided_by,
    }


def describe(
    before: RallyState,
    event: Event | dict,
    after: RallyState,
    rules: RallyRules | str,
    names: Mapping[str, str] | None = None,
) -> Words:
    """What ``event`` did, for the referee's screen and the audit: words (Chinese, worded in
    the reader's language when shown)."""
    as_rules(rules)
    event = coerce_event(event)

    def name(side: str):
        return side_name(side, names)

    if isinstance(event, Forfeit):
        return describe_side_forfeit(event, names)
    if isinstance(event, FirstServer):
        return words("猜先：%(name)s先发球", name=name(event.side))
    if isinstance(event, Point) and len(after.games) == len(before.games):
        h, a = after.current_game
        if after.server:
            return words(
                "%(name)s得分，%(score)s，%(server)s发球",
                name=name(event.side),
                score=f"{h}–{a}",
                server=name(after.server),
            )
        return words("%(name)s得分，%(score)s", name=name(event.side), score=f"{h}–{a}")
    number = len(after.games)
    h, a = after.games[-1]
    game = {"n": number, "score": f"{h}–{a}", "name": name("home" if h > a else "away")}
    if isinstance(event, Point):
        text = words(
            "%(point)s得分，第%(n)s局%(score)s，%(name)s胜", point=name(event.side), **game
        )
    else:
        text = words("第%(n)s局%(score)s，%(name)s胜", **game)
    won = after.games_won
    if after.match_over:
        w = after.winner
        return words(
            "%(what)s，%(name)s%(won)s:%(lost)s获胜",
            what=text,
            name=name(w),
            won=won[w],
            lost=won[other(w)],
        )
    text = words("%(what)s，局分%(home)s:%(away)s", what=text, home=won["home"], away=won["away"])
    if after.server:
        then = words("第%(n)s局%(name)s先发球", n=number + 1, name=name(after.server))
        return clauses([text, then], THEN)
    return text


# ------------------------------------------------------------------ the scorer's protocol
# (scoring.engines.common.Engine): teams are "A" (home) and "B" (away); a stored state is
# the dict state_to_dict makes.

KIND = "rally"
DISCIPLINES = SPORTS
EVENTS = frozenset({"game", "point", "first_server", "forfeit"})
DEFAULT_RULES = {"badminton": BADMINTON_21.id, "table_tennis": TABLE_TENNIS_11.id}
forfeit_event = common.forfeit_of_team
after_whistle = common.nothing_after_whistle
deduction = common.no_deduction
winner = common.side_winner
stored_state = public_state = state_to_dict


def preset_choices() -> dict[str, list[tuple[str, str]]]:
    return {
        sport: [(k, r.name) for k, r in PRESETS.items() if r.sport == sport] for sport in SPORTS
    }


def rules_for(discipline: str, ruleset: str, config: Mapping) -> RallyRules:
    if config:
        common.refuse_preset_id(config, PRESETS)
        rules = RallyRules.from_dict(config)
    else:
        rules = get_rules(ruleset or DEFAULT_RULES[discipline])
    if rules.sport != discipline:
        raise common.RuleSetError(f"rule set {rules.id!r} is for {rules.sport}, not {discipline}")
    return rules


def describe_event(before, event, after, rules, names: Mapping[str, str]) -> Words:
    return describe(before, event, after, rules, names=common.side_names(names))


def started(stored: dict) -> bool:
    return bool(stored.get("games") or stored.get("game_in_progress"))


def score(stored: dict) -> tuple[str, str]:
    won = stored.get("games_won") or {}
    return str(won.get("home", 0)), str(won.get("away", 0))


def games(stored: dict) -> list[dict]:
    return list(stored.get("games", []))


def games_won(stored: dict) -> tuple[int, int]:
    won = stored.get("games_won") or {}
    return won.get("home", 0), won.get("away", 0)


MARGIN_HEADING = words("净胜局")  # margin(), as the standings head its column


def margin(stored: dict) -> float:
    home, away = games_won(stored)
    return float(home - away)


def tie_score(stored: dict) -> tuple[int, int]:
    return games_won(stored)


def tie_points(stored: dict) -> None:
    """A rally match is scored in games won, not in points."""
    return None


def live_score(tables: list[tuple[dict, bool]]) -> tuple:
    return score(tables[0][0]) if tables else (0, 0)


# How it looks to people: scoring.engines.match_boards.
def board(stored: dict, rules, names: Mapping[str, str]):
    return match_boards.rally_board(stored, rules, names)


def sheet(items: Iterable, rules, names: Mapping[str, str]):
    items = list(items)
    stored = state_to_dict(replay(rules, [item.payload for item in items]), rules)
    return match_boards.rally_sheet(items, rules, names, stored)


table_title = match_boards.table_title
table_place = match_boards.table_place


__all__ = [
    "BADMINTON_21",
    "PRESETS",
    "SPORTS",
    "TABLE_TENNIS_11",
    "TABLE_TENNIS_11_BEST_OF_3",
    "Event",
    "FirstServer",
    "Forfeit",
    "GameScore",
    "Point",
    "RallyRules",
    "RallyState",
    "EngineError",
    "SideValues",
    "apply_event",
    "as_rules",
    "coerce_event",
    "describe",
    "event_to_dict",
    "get_rules",
    "initial_state",
    "is_game_over",
    "parse_event",
    "replay",
    "state_to_dict",
    "validate_game_score",
]
