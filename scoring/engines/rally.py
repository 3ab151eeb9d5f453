"""Rally-point games for 羽毛球 (badminton) and 乒乓球 (table tennis): pure Python, standard
library only.

A match is best of ``2 * games_to_win - 1`` games (局); it ends as soon as one player has
won ``games_to_win`` games. Referees enter each game's final score, or optionally every
rally (point by point) with the running score and the server shown.

Terms used in names and messages:

* 每球得分制 (rally scoring) - every rally scores a point, whoever served.
* 局 (game) - won by the first to ``points_to_win`` (21, 11) with a two-point lead; from
  (points_to_win - 1)-all (20平, 10平) play goes on until one player leads by 2. With a
  ``cap`` (badminton: 30) the player who reaches the cap wins even by one point (30-29).
* 发球 (serve) - who serves the next rally, when known:
  - badminton: the player who won the last rally serves; the winner of a game serves
    first in the next game. The match's first server is decided by lot (``first_server``
    event, before any point); after the first rally the server is known anyway.
  - table tennis: service changes every 2 points, and after every point from 10-all
    (deuce); the player who served first in a game receives first in the next. Without
    a ``first_server`` event at the start of the match the server stays unknown.
* 弃权 (forfeit) - see :mod:`scoring.engines.common`.

Legal final scores (anything else is ``impossible_score``, with the reason): the winner
has ``points_to_win`` and the loser at most ``points_to_win - 2`` (21-19, 11-9); or both
have at least ``points_to_win - 1`` and the difference is exactly 2 (22-20, 29-27,
30-28, 12-10, 15-13); or, with a cap, ``cap``-``(cap - 1)`` (30-29).

Errors: :class:`scoring.engines.common.SportError` with codes ``match_over``,
``impossible_score`` and ``invalid_event``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from scoring.engines.common import (
    Forfeit,
    SideValues,
    SportError,
    bad_event,
    check_rules_dict,
    check_side,
    describe_forfeit,
    forfeit_to_dict,
    is_whole_number,
    other,
    parse_forfeit,
    rules_error,
    side_name,
)

SPORTS = ("badminton", "table_tennis")
SPORT_ZH = {"badminton": "羽毛球", "table_tennis": "乒乓球"}
_BEST_OF_ZH = {1: "一局定胜负", 2: "三局两胜", 3: "五局三胜", 4: "七局四胜", 5: "九局五胜"}


# ---------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class RallyRules:
    """A rally-point match rule set (explicit config, never read from settings).

    ``cap`` is the score that wins a game outright (badminton 30), or ``None`` for no cap
    (table tennis). ``cap == points_to_win`` means no two-point lead at all.
    """

    id: str
    name: str
    games_to_win: int
    points_to_win: int
    cap: int | None
    sport: str

    def __post_init__(self) -> None:
        def need(ok: bool, what: str) -> None:
            if not ok:
                raise rules_error(self.id, what)

        need(isinstance(self.id, str) and self.id.strip() != "", "id must be a non-empty string")
        need(isinstance(self.name, str), "name must be a string")
        need(
            is_whole_number(self.games_to_win) and 1 <= self.games_to_win <= 5,
            f"games_to_win must be a whole number 1..5, got {self.games_to_win!r}",
        )
        p = self.points_to_win
        need(
            is_whole_number(p) and 2 <= p <= 99,
            f"points_to_win must be a whole number 2..99, got {p!r}",
        )
        need(
            self.cap is None or (is_whole_number(self.cap) and p <= self.cap <= 999),
            f"cap must be None or a whole number from points_to_win to 999, got {self.cap!r}",
        )
        need(self.sport in SPORTS, f"sport must be one of {SPORTS}, got {self.sport!r}")

    @property
    def best_of(self) -> int:
        return 2 * self.games_to_win - 1

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "games_to_win": self.games_to_win,
            "points_to_win": self.points_to_win,
            "cap": self.cap,
            "sport": self.sport,
        }

    @classmethod
    def from_dict(cls, d: dict) -> RallyRules:
        return cls(**check_rules_dict(d, cls, tuple(cls.__dataclass_fields__)))

    def summary_zh(self) -> str:
        """One Chinese line for score sheets and notices."""
        p, cap = self.points_to_win, self.cap
        if cap == p:
            game = f"每局{p}分，先得{p}分者胜"
        else:
            game = f"每局{p}分，{p - 1}平后须领先2分"
            if cap is not None:
                game += f"，{cap - 1}平时先得第{cap}分者胜"
        if self.sport == "badminton":
            serve = "得分方发球"
        else:
            serve = f"每2分换发球，{p - 1}平后每1分换发球"
        head = _BEST_OF_ZH[self.games_to_win]
        return f"{SPORT_ZH[self.sport]}{head}，每球得分制，{game}；{serve}"


BADMINTON_21 = RallyRules(
    id="badminton21",
    name="羽毛球三局两胜（每局21分）",
    games_to_win=2,
    points_to_win=21,
    cap=30,
    sport="badminton",
)
TABLE_TENNIS_11 = RallyRules(
    id="table-tennis11",
    name="乒乓球五局三胜（每局11分）",
    games_to_win=3,
    points_to_win=11,
    cap=None,
    sport="table_tennis",
)
TABLE_TENNIS_11_BEST_OF_3 = RallyRules(
    id="table-tennis11-bo3",
    name="乒乓球三局两胜（每局11分）",
    games_to_win=2,
    points_to_win=11,
    cap=None,
    sport="table_tennis",
)
PRESETS: dict[str, RallyRules] = {
    r.id: r for r in (BADMINTON_21, TABLE_TENNIS_11, TABLE_TENNIS_11_BEST_OF_3)
}


def get_rules(id: str) -> RallyRules:
    try:
        return PRESETS[id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown rally rule set {id!r}; known: {', '.join(PRESETS)}") from None


def as_rules(rules: RallyRules | str) -> RallyRules:
    return rules if isinstance(rules, RallyRules) else get_rules(rules)


# --------------------------------------------------------------------------- scores


def _check_points(home: Any, away: Any) -> None:
    if not all(is_whole_number(x) and x >= 0 for x in (home, away)):
        raise bad_event(f"比分必须是不小于0的整数，收到 {home!r}–{away!r}")


def _score_problem(home: int, away: int, rules: RallyRules) -> str | None:
    """Why ``home``-``away`` is not a finished game, or ``None`` when it is one."""
    p, cap = rules.points_to_win, rules.cap
    high, low = max(home, away), min(home, away)
    score = f"{home}–{away}"
    need_lead = f"{score}不是完整的一局：须领先2分" + (
        f"（或打到{cap}分）" if cap is not None else ""
    )
    if high == low:
        return f"{score}不是完整的一局：双方比分不能相同"
    if cap is not None and high > cap:
        return f"{score}超过了{cap}分上限"
    if high < p:
        return f"{score}不是完整的一局：须先得到{p}分"
    if high == p:
        return need_lead if low == p - 1 and cap != p else None
    # Past points_to_win the game went through (p-1)-all: it ends at a two-point lead, or
    # at the cap by one point.
    diff = high - low
    if diff == 2 or (diff == 1 and high == cap):
        return None
    if diff == 1:
        return need_lead
    return f"{score}：超过{p}分时比分差必须正好是2分"


def validate_game_score(home: Any, away: Any, rules: RallyRules | str) -> str:
    """The winner ('home' | 'away') of a finished game with this score.

    Raises :class:`SportError` ``invalid_event`` unless both scores are whole numbers
    >= 0, and ``impossible_score`` (the message gives the reason) unless the score is a
    legal final score (module docstring).
    """
    rules = as_rules(rules)
    _check_points(home, away)
    problem = _score_problem(home, away, rules)
    if problem is not None:
        raise SportError("impossible_score", problem)
    return "home" if home > away else "away"


def is_game_over(home: int, away: int, rules: RallyRules | str) -> bool:
    """Whether a running score reached by single points is the end of the game."""
    return _score_problem(home, away, as_rules(rules)) is None


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class GameScore:
    """A whole game's final score: ``{"home": 21, "away": 17}``."""

    home: int
    away: int

    def __post_init__(self) -> None:
        _check_points(self.home, self.away)


@dataclass(frozen=True)
class Point:
    """One rally won by ``side`` (point-by-point entry): ``{"point": "home"}``."""

    side: str

    def __post_init__(self) -> None:
        check_side(self.side, "得分方")


@dataclass(frozen=True)
class FirstServer:
    """Who serves first in the match, drawn by lot: ``{"first_server": "home"}``."""

    side: str

    def __post_init__(self) -> None:
        check_side(self.side, "发球方")


Event = GameScore | Point | FirstServer | Forfeit
_EVENT_TYPES = (GameScore, Point, FirstServer, Forfeit)


def parse_event(obj: Any) -> Event:
    """An event from its JSON form (``matches/ID.json`` for game scores). Keys other than
    the event keys are ignored."""
    if not isinstance(obj, dict):
        raise bad_event("每条记录必须是一个对象")
    kinds = [k for k in ("point", "first_server", "forfeit") if k in obj]
    if "home" in obj or "away" in obj:
        kinds.append("score")
    if len(kinds) != 1:
        raise bad_event("每条记录必须且只能是一局比分、一分、首先发球方或弃权之一")
    kind = kinds[0]
    if kind == "score":
        if "home" not in obj or "away" not in obj:
            raise bad_event("一局比分必须同时写明双方得分（home 和 away）")
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
    if _score_problem(home, away, rules) is None:
        return _finish_game(state, (home, away), rules)
    return state


def _set_first_server(state: RallyState, event: FirstServer) -> RallyState:
    if state.first_server is not None:
        raise bad_event("已经录入过首先发球方")
    if state.rallies or state.games:
        raise bad_event("首先发球方只能在比赛开始、第一分之前录入")
    return replace(state, first_server=event.side, game_first_server=event.side, server=event.side)


def _play_game_score(state: RallyState, game: GameScore, rules: RallyRules) -> RallyState:
    if state.game_in_progress:
        h, a = state.current_game
        raise bad_event(f"本局正在逐分记录（{h}–{a}），不能再录入整局比分")
    validate_game_score(game.home, game.away, rules)
    return _finish_game(state, (game.home, game.away), rules)


def apply_event(state: RallyState, event: Event | dict, rules: RallyRules | str) -> RallyState:
    """Apply one event; pure. Raises :class:`SportError` with ``event_index=None``."""
    rules = as_rules(rules)
    if state.match_over:
        # Checked first: nothing, however malformed, is added to a finished record.
        raise SportError("match_over")
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
    state = initial_state(rules)
    for index, event in enumerate(events):
        try:
            state = apply_event(state, event, rules)
        except SportError as err:
            raise err.at(index) from None
    return state


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
) -> str:
    """Short Chinese description of what ``event`` did, for the referee's screen."""
    as_rules(rules)
    event = coerce_event(event)

    def name(side: str) -> str:
        return side_name(side, names)

    if isinstance(event, Forfeit):
        return describe_forfeit(event, names)
    if isinstance(event, FirstServer):
        return f"猜先：{name(event.side)}先发球"
    if isinstance(event, Point) and len(after.games) == len(before.games):
        h, a = after.current_game
        text = f"{name(event.side)}得分，{h}–{a}"
        return text + (f"，{name(after.server)}发球" if after.server else "")
    number = len(after.games)
    h, a = after.games[-1]
    game_winner = "home" if h > a else "away"
    head = f"{name(event.side)}得分，" if isinstance(event, Point) else ""
    text = f"{head}第{number}局{h}–{a}，{name(game_winner)}胜"
    won = after.games_won
    if after.match_over:
        w = after.winner
        return f"{text}，{name(w)}{won[w]}:{won[other(w)]}获胜"
    text += f"，局分{won['home']}:{won['away']}"
    if after.server:
        text += f"；第{number + 1}局{name(after.server)}先发球"
    return text


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
    "SideValues",
    "SportError",
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
