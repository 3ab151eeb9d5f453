"""象棋 (xiangqi, Chinese chess) match engine: pure Python, standard library only.

Implements the Anhui notice (八.2; see ``docs/rules.md``): "中国象棋采用
三局二胜制，前二盘每人先手一次，第三盘猜先手，若第三盘和棋，则后手赢". A match is replayed
from its recorded games; every function takes plain data and returns new immutable data.

Terms used in names and messages:

* 盘 (game) - one game of chess; a match (场) is best of three games.
* 先手 / 后手 (first mover / second mover) - the player who moves first in a game plays
  red (红先); the other moves second (black). Each player has the first move once in the
  first two games, so game 2's first mover is the other player from game 1.
* 猜先 (lot for the first move) - the deciding third game's first move is drawn by lot,
  so either player may have it. Who moves first in game 1 is not fixed by the notice
  either (also by lot or by the draw sheet): the engine accepts either there too.
* 和棋 (draw) - a game neither player wins; it scores ``draw_points`` (½) for each, a win
  1 and a loss 0.
* 后手胜 (second mover wins) - a drawn third game wins the match for the player who moved
  second in it, which is what makes the third game decisive (like an armageddon game).

After the first two games the player ahead on points (2-0, 1½-½) has won; level (1-1)
means a third game. Generalised for a ``games``-game match: the first ``games - 1``
games alternate the first move and the match ends as soon as one player's lead can no
longer be caught in them; if they end level, the last game decides as above.

Rule sets and their summary are in :mod:`scoring.engines.xiangqi_rules` (re-exported
here). Errors: :class:`scoring.engines.common.EngineError` with codes ``match_over``,
``wrong_first_move`` and ``invalid_event``. The scorer's protocol
(:class:`scoring.engines.common.Engine`) is at the end of this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from scoring.engines import common, match_boards
from scoring.engines.board import THEN, Words, clauses, words
from scoring.engines.common import (
    SIDE_WORDS,
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
from scoring.engines.xiangqi_rules import (
    ANHUI_2021_XIANGQI,
    PRESETS,
    THIRD_GAME_DRAW_RULES,
    XiangqiRules,
    as_rules,
    first_moves,
    format_number,
    get_rules,
)

RESULTS = ("home", "away", "draw")
MARGIN_HEADING = match_boards.POINT_DIFFERENCE  # margin(), as the standings head its column


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class XiangqiGame:
    """One game: ``result`` 'home' | 'away' | 'draw' and who had the first move (先手)."""

    result: str
    first_move: str

    def __post_init__(self) -> None:
        if not isinstance(self.result, str) or self.result not in RESULTS:
            raise bad_event(words("每盘结果必须是 home、away 或 draw（和棋）"))
        check_side(self.first_move, words("先手方"))

    @property
    def winner(self) -> str | None:
        return None if self.result == "draw" else self.result

    @property
    def second_mover(self) -> str:
        """后手: the player who moved second (black)."""
        return other(self.first_move)


Event = XiangqiGame | Forfeit


def parse_event(obj: Any) -> Event:
    """An event from the ``matches/ID.json`` form: ``{"result", "first_move"}`` for a game,
    ``{"forfeit": {"side", "reason"}}``. Other keys are ignored."""
    if not isinstance(obj, dict):
        raise bad_event(words("每条记录必须是一个对象"))
    is_game = "result" in obj or "first_move" in obj
    if is_game == ("forfeit" in obj):
        raise bad_event(words("每条记录必须且只能是一盘棋的结果或一次弃权"))
    if "forfeit" in obj:
        return parse_forfeit(obj["forfeit"])
    if "result" not in obj or "first_move" not in obj:
        raise bad_event(words("每盘棋必须写明结果（result）和先手方（first_move）"))
    return XiangqiGame(obj["result"], obj["first_move"])


def event_to_dict(event: Event) -> dict:
    """Inverse of :func:`parse_event`: ``parse_event(event_to_dict(e)) == e``."""
    if isinstance(event, XiangqiGame):
        return {"result": event.result, "first_move": event.first_move}
    if isinstance(event, Forfeit):
        return forfeit_to_dict(event)
    raise TypeError(f"not a xiangqi event: {event!r}")


def coerce_event(event: Any) -> Event:
    return event if isinstance(event, (XiangqiGame, Forfeit)) else parse_event(event)


# ---------------------------------------------------------------------------- state


@dataclass(frozen=True)
class XiangqiState:
    """A match after some events.

    ``next_first_move`` is who must move first in the next game, or ``None`` when either
    player may (game 1, and the third game: 猜先) or the match is over.
    """

    points: SideValues = field(default_factory=lambda: SideValues(0.0, 0.0))
    games: tuple[XiangqiGame, ...] = ()
    next_first_move: str | None = None
    match_over: bool = False
    winner: str | None = None
    decided_by: str | None = None  # points | third_game | third_game_draw_second_mover | forfeit

    @property
    def next_game(self) -> int | None:
        """Number (1-based) of the next game, ``None`` once the match is over."""
        return None if self.match_over else len(self.games) + 1

    @property
    def first_move_by_lot(self) -> bool:
        """Whether the next game's first move is free (drawn by lot)."""
        return not self.match_over and self.next_first_move is None


def initial_state(rules: XiangqiRules | str) -> XiangqiState:
    as_rules(rules)
    return XiangqiState()


def _points(games: tuple[XiangqiGame, ...], rules: XiangqiRules) -> SideValues:
    draws = sum(1 for g in games if g.result == "draw")
    wins = {s: sum(1 for g in games if g.result == s) for s in ("home", "away")}
    return SideValues(
        float(wins["home"] + draws * rules.draw_points),
        float(wins["away"] + draws * rules.draw_points),
    )


def _end(state: XiangqiState, winner: str, decided_by: str) -> XiangqiState:
    return replace(
        state, match_over=True, winner=winner, decided_by=decided_by, next_first_move=None
    )


def _play_game(state: XiangqiState, game: XiangqiGame, rules: XiangqiRules) -> XiangqiState:
    number = len(state.games) + 1
    alternating = rules.alternating_games
    if 1 < number <= alternating:
        expected = other(state.games[-1].first_move)
        if game.first_move != expected:
            raise EngineError(
                "wrong_first_move",
                words(
                    "第%(n)s盘应由%(side)s先手：%(turns)s",
                    n=number,
                    side=SIDE_WORDS[expected],
                    turns=first_moves(alternating),
                ),
            )
    games = state.games + (game,)
    state = replace(state, games=games, points=_points(games, rules))
    if number <= alternating:
        # A draw gives both players the same, so the lead on points is the difference in
        # wins; each game still to play in the alternating part can change it by 1.
        lead = sum(1 for g in games if g.result == "home") - sum(
            1 for g in games if g.result == "away"
        )
        if abs(lead) > alternating - number:
            return _end(state, "home" if lead > 0 else "away", "points")
        following = other(game.first_move) if number < alternating else None  # None: 猜先
        return replace(state, next_first_move=following)
    # The deciding game (the third of three), its first move by lot.
    if game.winner is not None:
        return _end(state, game.winner, "third_game")
    if rules.third_game_draw_goes_to == "second_mover":
        return _end(state, game.second_mover, "third_game_draw_second_mover")
    return replace(state, next_first_move=None)  # 'replay': another game by lot


def apply_event(
    state: XiangqiState, event: Event | dict, rules: XiangqiRules | str
) -> XiangqiState:
    """Apply one event; pure. Raises :class:`EngineError` with ``event_index=None``."""
    rules = as_rules(rules)
    if state.match_over:
        # Checked first: nothing, however malformed, is added to a finished record.
        raise EngineError("match_over")
    event = coerce_event(event)
    if isinstance(event, XiangqiGame):
        return _play_game(state, event, rules)
    return _end(state, other(event.side), "forfeit")


def replay(rules: XiangqiRules | str, events: Iterable[Event | dict]) -> XiangqiState:
    """Replay a whole record. Errors carry the index of the offending event."""
    rules = as_rules(rules)
    return common.replay(initial_state(rules), lambda s, e: apply_event(s, e, rules), events)


# -------------------------------------------------------------------------- output


def state_to_dict(state: XiangqiState, rules: XiangqiRules | str) -> dict:
    """The state as JSON for ``matches/ID.json`` and the referee page."""
    as_rules(rules)
    return {
        "points": state.points.as_dict(),
        "games": [event_to_dict(g) for g in state.games],
        "next_game": state.next_game,
        "next_first_move": state.next_first_move,
        "first_move_by_lot": state.first_move_by_lot,
        "match_over": state.match_over,
        "winner": state.winner,
        "decided_by": state.decided_by,
    }


def _score(state: XiangqiState) -> str:
    return f"{format_number(state.points['home'])}:{format_number(state.points['away'])}"


def describe(
    before: XiangqiState,
    event: Event | dict,
    after: XiangqiState,
    rules: XiangqiRules | str,
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
    number = len(after.games)
    first = words("%(name)s先手", name=name(event.first_move))
    if event.winner is None:
        game = words("第%(n)s盘和棋（%(first)s）", n=number, first=first)
    else:
        game = words(
            "第%(n)s盘%(name)s胜（%(first)s）", n=number, name=name(event.winner), first=first
        )
    if after.decided_by == "points":
        return words(
            "%(what)s，总分%(score)s，%(name)s获胜",
            what=game,
            score=_score(after),
            name=name(after.winner),
        )
    if after.decided_by == "third_game":
        return words("%(what)s，%(name)s获胜", what=game, name=name(after.winner))
    if after.decided_by == "third_game_draw_second_mover":
        return words("%(what)s，后手%(name)s获胜", what=game, name=name(after.winner))
    text = words("%(what)s，总分%(score)s", what=game, score=_score(after))
    if after.next_first_move is not None:
        then = words("第%(n)s盘%(name)s先手", n=number + 1, name=name(after.next_first_move))
    else:
        then = words("第%(n)s盘猜先", n=number + 1)
    return clauses([text, then], THEN)


# ------------------------------------------------------------------ the scorer's protocol
# (scoring.engines.common.Engine): teams are "A" (home) and "B" (away); a stored state is
# the dict state_to_dict makes.

KIND = "xiangqi"
DISCIPLINES = ("xiangqi",)
EVENTS = frozenset({"game", "forfeit"})
forfeit_event = common.forfeit_of_team
after_whistle = common.nothing_after_whistle
deduction = common.no_deduction
winner = common.side_winner
stored_state = public_state = state_to_dict


def preset_choices() -> dict[str, list[tuple[str, str]]]:
    """The presets by id with their names: a Chinese message each, worded by the page."""
    return {"xiangqi": [(k, r.name) for k, r in PRESETS.items()]}


def rules_for(discipline: str, ruleset: str, config: Mapping) -> XiangqiRules:
    if config:
        common.refuse_preset_id(config, PRESETS)
        return XiangqiRules.from_dict(config)
    return get_rules(ruleset or ANHUI_2021_XIANGQI.id)


def describe_event(before, event, after, rules, names: Mapping[str, str]) -> Words:
    return describe(before, event, after, rules, names=common.side_names(names))


def format_points(value) -> str:
    """A score for people: 1.0 → "1", 1.5 → "1½", 0.5 → "½" (chess points)."""
    whole = int(value)
    if value - whole >= 0.5:
        return f"{whole}½" if whole else "½"
    return str(whole)


def started(stored: dict) -> bool:
    return bool(stored.get("games"))


def score(stored: dict) -> tuple[str, str]:
    points = stored.get("points") or {}
    return format_points(points.get("home", 0)), format_points(points.get("away", 0))


def games(stored: dict) -> list[dict]:
    return list(stored.get("games", []))


def games_won(stored: dict) -> tuple[int, int]:
    """Games won outright (draws not counted)."""
    results = [g["result"] for g in stored.get("games", [])]
    return results.count("home"), results.count("away")


def margin(stored: dict) -> float:
    points = stored.get("points") or {}
    return float(points.get("home", 0) - points.get("away", 0))


def tie_score(stored: dict) -> tuple[int, int]:
    return games_won(stored)


def tie_points(stored: dict) -> dict:
    """The match's points, halves kept: {"home": 1.5, "away": 0.5} (a drawn game is ½
    each); ``score`` gives them as people write them (1½ : ½)."""
    points = stored.get("points") or {}
    return {"home": float(points.get("home", 0)), "away": float(points.get("away", 0))}


def live_score(tables: list[tuple[dict, bool]]) -> tuple:
    return score(tables[0][0]) if tables else (0, 0)


# How it looks to people: scoring.engines.match_boards.
def board(stored: dict, rules, names: Mapping[str, str]):
    return match_boards.xiangqi_board(stored, rules, names, score(stored))


def sheet(items: Iterable, rules, names: Mapping[str, str]):
    items = list(items)
    stored = state_to_dict(replay(rules, [item.payload for item in items]), rules)
    return match_boards.xiangqi_sheet(items, rules, names, stored)


table_title = match_boards.table_title
table_place = match_boards.table_place


__all__ = [
    "ANHUI_2021_XIANGQI",
    "PRESETS",
    "RESULTS",
    "THIRD_GAME_DRAW_RULES",
    "Event",
    "Forfeit",
    "EngineError",
    "SideValues",
    "XiangqiGame",
    "XiangqiRules",
    "XiangqiState",
    "apply_event",
    "as_rules",
    "coerce_event",
    "describe",
    "event_to_dict",
    "get_rules",
    "initial_state",
    "parse_event",
    "replay",
    "state_to_dict",
]
