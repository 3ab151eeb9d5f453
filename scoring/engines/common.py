"""What every scoring engine shares: the one user-fixable error, the forfeit reasons, the one
replay, the protocol each engine module implements, and the sides of an individual match.

Pure Python, standard library only (no Django). The rules themselves are in ``docs/rules.md``.

* 主方 / 客方 (home / away) - the two players of an individual match (象棋, 羽毛球, 乒乓球)
  are the bracket's ``home`` and ``away`` entries; the services, the pages and Guandan
  speak of team ``"A"`` (home) and ``"B"`` (away).
* 弃权 (forfeit) - a player or pair who forfeits loses the match (the notices: 迟到十分钟以上
  者判负; refusing the referee so that play stops for 5 minutes counts as a forfeit).
  Whether a forfeit also ends the entry's event is the rule set's answer
  (``forfeit_ends_event``); acting on it is the tournament's business, not the engine's.

Three kinds of error: :class:`EngineError` is the only exception for input a referee can
fix; :class:`RuleSetError` (a ``ValueError``) for a rule set that cannot be used — unknown,
malformed, of another sport —, which an organiser fixes in a custom rule set; anything else
(``ValueError``, ``TypeError`` …) is a bug in the caller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from scoring.engines.board import Words, words

SIDES = ("home", "away")
# The sides as people read them when a side has no name yet (主方/客方, home/away).
SIDE_WORDS = {"home": words("主方"), "away": words("客方")}
# The services' team letters for the sides of an individual match, and back.
TEAM_OF_SIDE = {"home": "A", "away": "B"}
SIDE_OF_TEAM = {"A": "home", "B": "away"}


def gettext_noop(text: str) -> str:
    """Marks a string for translation without importing Django: it returns ``text`` as it
    is, and ``make messages`` finds it by this name. The pages translate it when shown."""
    return text


# --------------------------------------------------------------------------- forfeits

# 弃权的原因: the codes the referee pages offer and the events record, with their words.
FORFEIT_REASONS = {
    "late_over_10_min": gettext_noop("迟到十分钟以上"),
    "stoppage_over_5_min": gettext_noop("不服从裁判致使比赛中断5分钟"),
    "withdrawn": gettext_noop("弃权"),
}
# Codes recorded before there was one table: the Guandan referee page stored "withdrew".
_OLD_FORFEIT_CODES = {"withdrew": "withdrawn"}


def forfeit_code(reason: str) -> str:
    """The reason of a recorded forfeit in today's codes (an old code is read as its new
    one); any other reason, such as a referee's own words, as it is."""
    return _OLD_FORFEIT_CODES.get(reason, reason)


def forfeit_words(reason: str, unknown: str | None = None) -> Words | str:
    """A forfeit reason for people: a code's words (worded in the reader's language), a
    reason that is no code as it was typed, or ``unknown`` for it when given."""
    code = forfeit_code(reason)
    if code in FORFEIT_REASONS:
        return words(FORFEIT_REASONS[code])
    return code if unknown is None else unknown


def describe_forfeit(loser: str | Words, winner: str | Words, reason: str) -> Words:
    """The referee screen's sentence for a forfeit: 张伟弃权，李娜获胜（迟到十分钟以上）."""
    label = forfeit_words(reason)
    if label:
        return words(
            "%(loser)s弃权，%(winner)s获胜（%(reason)s）", loser=loser, winner=winner, reason=label
        )
    return words("%(loser)s弃权，%(winner)s获胜", loser=loser, winner=winner)


# --------------------------------------------------------------------------- errors

_MESSAGES = {
    "match_over": gettext_noop("本场比赛已经结束，不能再录入"),
    "invalid_event": gettext_noop("无法识别的记录"),
    # Guandan
    "invalid_order": gettext_noop("每副牌的名次必须是两名A队、两名B队"),
    "time_already_up": gettext_noop("已经宣布过时间到，不能再次宣布"),
    "no_deal_to_decide": gettext_noop(
        "还没有录入任何一副牌，无法按级数判定胜负；请先录入最后一副牌"
    ),
    # 象棋
    "wrong_first_move": gettext_noop("先手方不对：前两盘双方各先手一次"),
    # 羽毛球, 乒乓球
    "impossible_score": gettext_noop("不可能出现的比分"),
}


class EngineError(Exception):
    """Input a referee can fix: a bad deal, an impossible score, an event after the match
    ended, ...

    ``code`` is stable and machine-readable; ``words`` is a short sentence for the referee
    (:class:`~scoring.engines.board.Words`, worded in the reader's language by the page that
    shows it) and ``message`` its Chinese; ``event_index`` is set by :func:`replay`
    (``None`` from an engine's ``apply_event``).
    """

    def __init__(
        self, code: str, message: Words | str | None = None, event_index: int | None = None
    ):
        if code not in _MESSAGES:
            raise ValueError(f"unknown EngineError code {code!r}")
        self.code = code
        if message is None:
            message = words(_MESSAGES[code])
        self.words = message if isinstance(message, Words) else Words(message)
        self.message = str(self.words)
        self.event_index = event_index
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        return (type(self), (self.code, self.words, self.event_index))

    def as_dict(self) -> dict:
        """The error in the public examples' form (``guandan_replay`` prints it)."""
        return {"error": self.code, "event_index": self.event_index}

    def at(self, event_index: int) -> EngineError:
        """A copy of this error located at ``event_index``."""
        return EngineError(self.code, self.words, event_index)


def bad_event(message: Words | str) -> EngineError:
    """A record the engine cannot read, saying what is wrong with it."""
    return EngineError("invalid_event", words("无法识别的记录：%(what)s", what=message))


def check_side(side: Any, what: Words) -> None:
    if not isinstance(side, str) or side not in SIDES:
        raise bad_event(words("%(what)s必须是 home 或 away", what=what))


# --------------------------------------------------------------------------- replay


def replay_steps[State](
    initial: State, apply: Callable[[State, Any], State], events: Iterable[Any]
) -> Iterator[tuple[State, Any, State]]:
    """Each event applied in turn: ``(state before, event, state after)``. An
    :class:`EngineError` carries the index of the event that raised it."""
    state = initial
    for index, event in enumerate(events):
        try:
            after = apply(state, event)
        except EngineError as err:
            raise err.at(index) from None
        yield state, event, after
        state = after


def replay[State](
    initial: State, apply: Callable[[State, Any], State], events: Iterable[Any]
) -> State:
    """The state after a whole record, from ``initial``, applying each event in turn."""
    state = initial
    for _before, _event, state in replay_steps(initial, apply, events):  # noqa: B007
        pass
    return state


# --------------------------------------------------------------------------- protocol


class Engine(Protocol):
    """What each engine module (:mod:`scoring.engines.guandan.engine`,
    :mod:`scoring.engines.xiangqi`, :mod:`scoring.engines.rally`) implements, so that
    :class:`scoring.engines.scorer.Scorer` is a lookup by sport and no code outside the
    engines asks which sport it is.

    Teams are the services' ``"A"`` (home) and ``"B"`` (away) in every argument and answer.
    A *stored* state is the dict ``stored_state`` makes, as kept on the table row and read
    by the pages; the functions that read a state read that dict. A rule set has ``id``,
    ``name``, ``summary()`` (:class:`~scoring.engines.board.Words`; ``summary_zh()`` its
    Chinese), ``best_of``, ``forfeit_ends_event`` and ``time_limit_minutes``. What people
    read (descriptions, summaries, boards) is words, worded in the reader's language when
    shown.
    """

    KIND: str  # "guandan" | "xiangqi" | "rally"
    DISCIPLINES: tuple[str, ...]  # the events' disciplines this engine scores
    EVENTS: frozenset[str]  # what a referee records: "deal", "penalty", "game", "point" …

    def preset_choices(self) -> dict[str, list[tuple[str, str]]]: ...
    def rules_for(self, discipline: str, ruleset: str, config: Mapping) -> Any: ...
    def after_whistle(self, rules, payload: dict | None) -> list[dict]: ...
    def deduction(self, rules, team: str) -> dict | None: ...

    def initial_state(self, rules) -> Any: ...
    def parse_event(self, payload: Any) -> Any: ...
    def event_to_dict(self, event) -> dict: ...
    def apply_event(self, state, event, rules) -> Any: ...
    def describe_event(self, before, event, after, rules, names: Mapping[str, str]) -> Words: ...
    def forfeit_event(self, team: str, reason: str) -> dict: ...
    def stored_state(self, state, rules) -> dict: ...
    def public_state(self, state, rules) -> dict: ...

    def winner(self, stored: dict) -> str | None: ...
    def started(self, stored: dict) -> bool: ...
    def score(self, stored: dict) -> tuple[str, str]: ...
    def games(self, stored: dict) -> list[dict] | None: ...
    def games_won(self, stored: dict) -> tuple[int, int]: ...

    MARGIN_HEADING: Any  # Words: what margin() counts, as the standings head its column

    def margin(self, stored: dict) -> float: ...
    def tie_score(self, stored: dict) -> tuple[int, int]: ...
    def tie_points(self, stored: dict) -> dict | None: ...
    def live_score(self, tables: list[tuple[dict, bool]]) -> tuple: ...

    # How it looks to people (scoring.engines.board): the pages and PDFs render only these.
    def board(self, stored: dict, rules, names: Mapping[str, str]) -> Any: ...
    def sheet(self, items: Iterable[Any], rules, names: Mapping[str, str]) -> Any: ...
    def table_title(self, number: int, table_number: int | None) -> Any: ...
    def table_place(self, number: int, table_number: int | None) -> Any: ...


# --------------------------------------------------------------------------- values


def other(side: str) -> str:
    return "away" if side == "home" else "home"


_OTHER = {"home": "away", "away": "home", "A": "B", "B": "A"}
# The fields of an event's JSON that name a side (or a team), in any of the engines.
_SIDE_FIELDS = frozenset({"side", "team", "result", "first_move", "point", "first_server"})


def sides_swapped(payload: Any) -> Any:
    """An event's JSON with the two sides the other way round, for a record kept for the
    wrong side throughout (乒乓球 7–11 written 11–7): a game's score, who won it, moved or
    served first, won the rally, forfeited or was penalised; a guandan deal's finishing
    order (and seats: 1, 3 are team A). Everything else is kept as it is."""

    def swap(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {_OTHER.get(k, k) if k in SIDES else k: swap(v, k) for k, v in value.items()}
        if isinstance(value, list) and key == "order":
            return [_OTHER.get(v, v) if isinstance(v, str) else v for v in value]
        if isinstance(value, list) and key == "seats":
            return [v % 4 + 1 if is_whole_number(v) else v for v in value]
        if isinstance(value, str) and key in _SIDE_FIELDS:
            return _OTHER.get(value, value)
        return value

    return swap(payload)


def side_name(side: str, names: Mapping[str, str] | None = None) -> str | Words:
    """The player's name for the referee's screen, or 主方/客方 (home/away)."""
    return (names or {}).get(side) or SIDE_WORDS[side]


def side_names(names: Mapping[str, str] | None) -> dict[str, str]:
    """Names keyed by team letter (``"A"``/``"B"``) re-keyed by side (``"home"``/``"away"``)."""
    return {SIDE_OF_TEAM[k]: v for k, v in (names or {}).items() if k in SIDE_OF_TEAM}


def is_whole_number(value: Any) -> bool:
    """An ``int`` that is not a ``bool`` (JSON ``true`` is not a score of 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, eq=False)
class SideValues(Mapping):
    """An immutable {'home': x, 'away': y} (points, games won)."""

    home: Any = 0
    away: Any = 0

    def __getitem__(self, side: str):
        if side == "home":
            return self.home
        if side == "away":
            return self.away
        raise KeyError(side)

    def __iter__(self):
        return iter(SIDES)

    def __len__(self) -> int:
        return 2

    def __hash__(self) -> int:
        return hash((self.home, self.away))

    def __repr__(self) -> str:
        return f"SideValues(home={self.home!r}, away={self.away!r})"

    def with_value(self, side: str, value) -> SideValues:
        return replace(self, **{side: value})

    def as_dict(self) -> dict:
        return {"home": self.home, "away": self.away}


# --------------------------------------------------------------------------- forfeit


@dataclass(frozen=True)
class Forfeit:
    """弃权 in an individual match: ``side`` loses. JSON
    ``{"forfeit": {"side": ..., "reason": ...}}``."""

    side: str
    reason: str = ""

    def __post_init__(self) -> None:
        check_side(self.side, words("弃权方"))
        if not isinstance(self.reason, str):
            raise bad_event(words("弃权原因必须是文字"))


def parse_forfeit(body: Any) -> Forfeit:
    if not isinstance(body, dict):
        raise bad_event(words("弃权的内容必须是一个对象"))
    reason = body.get("reason")
    if isinstance(reason, str):
        reason = forfeit_code(reason)
    return Forfeit(body.get("side"), "" if reason is None else reason)


def forfeit_to_dict(event: Forfeit) -> dict:
    body: dict = {"side": event.side}
    if event.reason:
        body["reason"] = event.reason
    return {"forfeit": body}


def forfeit_of_team(team: str, reason: str) -> dict:
    """The JSON of a forfeit by ``team`` (``"A"``/``"B"``) in an individual match."""
    if team not in SIDE_OF_TEAM:
        raise ValueError(f"team must be A or B, got {team!r}")
    return forfeit_to_dict(Forfeit(SIDE_OF_TEAM[team], forfeit_code(reason)))


def describe_side_forfeit(event: Forfeit, names: Mapping[str, str] | None = None) -> Words:
    return describe_forfeit(
        side_name(event.side, names), side_name(other(event.side), names), event.reason
    )


# ------------------------------------------------ what an individual match answers alike
# (象棋, 羽毛球, 乒乓球: the same answers in both engines' protocol)


def side_winner(stored: dict) -> str | None:
    """The winner's team letter from an individual match's stored state (None until over)."""
    return TEAM_OF_SIDE.get(stored.get("winner")) if stored.get("match_over") else None


def nothing_after_whistle(rules, payload: dict | None) -> list[dict]:
    """No clock: the whistle records nothing, and nothing follows an event after it."""
    return []


def no_deduction(rules, team: str) -> None:
    """No levels: three upheld reports deduct nothing."""
    return None


# --------------------------------------------------------------------------- the clock

# Where a table's time limit counts from (a rule set's ``time_from``, docs/rules.md): the
# scheduled start (the match's slot, else its round's), the table's 开始 tapped by its
# referee, or its first deal.
TIME_FROM = ("scheduled", "start", "first_deal")
# Each moment falls back on the later ones when it is not known (no schedule; a referee
# who did not tap 开始 and entered the first deal).
_CLOCK_ORDER = {
    "scheduled": ("scheduled", "start", "first_deal"),
    "start": ("start", "first_deal"),
    "first_deal": ("first_deal",),
}


def clock_start[T](time_from: str, *, scheduled: T | None, start: T | None, first_deal: T | None):
    """When a table's time limit starts counting under ``time_from`` (:data:`TIME_FROM`),
    from the moments known: its scheduled start, its 开始 and its first deal (None when not
    known). The moment itself falls back on the later ones; None when none is known."""
    known = {"scheduled": scheduled, "start": start, "first_deal": first_deal}
    return next((known[k] for k in _CLOCK_ORDER[time_from] if known[k] is not None), None)


# --------------------------------------------------------------------------- rule sets


class RuleSetError(ValueError):
    """A rule set that cannot be used: unknown, malformed or of another sport. The message
    (English, naming the key) is shown to the organiser who wrote a custom rule set."""


def rules_error(rules_id: Any, what: str) -> RuleSetError:
    return RuleSetError(f"invalid rule set {rules_id!r}: {what}")


def check_rules_dict(d: Any, cls: type, required: tuple[str, ...]) -> dict:
    """The keyword arguments for ``cls`` from a JSON object, or a clear RuleSetError."""
    if not isinstance(d, dict):
        raise RuleSetError("rule set must be a JSON object")
    unknown = sorted(map(str, set(d) - set(cls.__dataclass_fields__)))
    if unknown:
        raise RuleSetError(f"unknown rule set keys: {', '.join(unknown)}")
    missing = [k for k in required if k not in d]
    if missing:
        raise RuleSetError(f"rule set is missing: {', '.join(missing)}")
    return dict(d)


def refuse_preset_id(config: Mapping, presets: Mapping) -> None:
    """A custom rule set may not take a preset's ``id``: a match's JSON would name the
    preset while it scores by other rules."""
    rules_id = config.get("id")
    if isinstance(rules_id, str) and rules_id in presets:
        raise rules_error(rules_id, "id is a preset's; a custom rule set needs an id of its own")
