"""Guandan scoring events (deal, penalty, time-up, forfeit) and their JSON form.

Pure Python, standard library only. A deal (副) is recorded as the team letters in
finishing order 上游, 二游, 三游, 末游 (1st..4th to empty their hand). The JSON form is the
one of the public examples (``scoring/engines/tests/data/guandan-vectors.json``); what
counts as malformed is in ``docs/rules.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.engines.board import Words, words
from scoring.engines.common import EngineError, bad_event, forfeit_code
from scoring.engines.guandan.rules import TEAMS

PENALTY_KINDS = ("levels", "back_to_2", "disqualify")


# --------------------------------------------------------------------------- events


def _check_team(team: Any, problem: Words) -> None:
    """``problem`` (处罚必须指明A队或B队 …) unless ``team`` is A or B."""
    if team not in TEAMS or not isinstance(team, str):
        raise bad_event(problem)


_PENALTY_TEAM = words("处罚必须指明A队或B队")
_FORFEIT_TEAM = words("弃权必须指明A队或B队")


@dataclass(frozen=True)
class Deal:
    """One deal (副): team letters in finishing order 上游, 二游, 三游, 末游.

    ``seats`` (optional) are the seat numbers 1-4 in the same finishing order; seats 1
    and 3 are team A, 2 and 4 team B. They are kept for tribute/lead prompts only.
    """

    order: tuple[str, str, str, str]
    seats: tuple[int, int, int, int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.order, (list, tuple)):
            raise EngineError("invalid_order")
        order = tuple(self.order)
        if (
            len(order) != 4
            or any(t not in TEAMS or not isinstance(t, str) for t in order)
            or order.count("A") != 2
        ):
            raise EngineError("invalid_order")
        object.__setattr__(self, "order", order)
        if self.seats is not None:
            bad_seats = EngineError(
                "invalid_order",
                words("座位号必须是1-4各一次，且1、3号为A队，2、4号为B队，与名次一致"),
            )
            if not isinstance(self.seats, (list, tuple)):
                raise bad_seats
            seats = tuple(self.seats)
            whole = all(isinstance(s, int) and not isinstance(s, bool) for s in seats)
            if not whole or sorted(seats) != [1, 2, 3, 4]:
                raise bad_seats
            if any(("A" if s % 2 else "B") != t for s, t in zip(seats, order, strict=True)):
                raise bad_seats
            object.__setattr__(self, "seats", seats)

    @property
    def top(self) -> str:
        """The team that took 上游."""
        return self.order[0]

    @property
    def partner_place(self) -> int:
        """Place (2, 3 or 4) of 上游's partner."""
        return 2 + self.order[1:].index(self.order[0])


@dataclass(frozen=True)
class Penalty:
    """A referee's penalty, applied between deals (docs/rules.md, "Penalties").

    kind ``levels`` deducts ``levels`` (a whole number >= 1, required: docs/rules.md makes the
    size the referee's decision; the page offers the rule set's default) down to 2;
    ``back_to_2`` sends the team to 2; ``disqualify`` ends the match against it.
    """

    team: str
    kind: str = "levels"
    levels: int | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        _check_team(self.team, _PENALTY_TEAM)
        if self.kind not in PENALTY_KINDS:
            raise bad_event(words("处罚类型只能是扣级、回到2或取消比赛资格"))
        lv = self.levels
        if self.kind == "levels" and lv is None:
            raise bad_event(words("扣级必须写明扣几级"))
        if lv is not None and (isinstance(lv, bool) or not isinstance(lv, int) or lv < 1):
            raise bad_event(words("扣级数必须是不小于1的整数"))
        if not isinstance(self.reason, str):
            object.__setattr__(self, "reason", str(self.reason))


@dataclass(frozen=True)
class TimeUp:
    """Time limit reached (nantong: after the played-out deal; anhui: the whistle)."""


@dataclass(frozen=True)
class Forfeit:
    """The team loses the match (late > 10 min, stoppage > 5 min, 弃权)."""

    team: str
    reason: str = ""

    def __post_init__(self) -> None:
        _check_team(self.team, _FORFEIT_TEAM)
        if not isinstance(self.reason, str):
            object.__setattr__(self, "reason", str(self.reason))


Event = Deal | Penalty | TimeUp | Forfeit
_EVENT_TYPES = (Deal, Penalty, TimeUp, Forfeit)
_EVENT_KEYS = ("order", "penalty", "time_up", "forfeit")


def parse_event(obj: Any) -> Event:
    """Build an event from the public examples' JSON form (malformed inputs: docs/rules.md).

    Keys other than the four event keys are ignored (docs/rules.md lists exactly what is
    malformed), except that ``seats`` beside ``order`` is read and validated.
    """
    if not isinstance(obj, dict):
        raise bad_event(words("每条记录必须是一个对象"))
    keys = [k for k in _EVENT_KEYS if k in obj]
    if len(keys) != 1:
        raise bad_event(words("每条记录必须且只能是一副牌、一次处罚、时间到或弃权之一"))
    key = keys[0]
    if key == "order":
        return Deal(obj["order"], obj.get("seats"))
    if key == "time_up":
        if obj["time_up"] is not True:
            raise bad_event(words("time_up 必须为 true"))
        return TimeUp()
    body = obj[key]
    if not isinstance(body, dict):
        raise bad_event(words("处罚或弃权的内容必须是一个对象"))
    _check_team(body.get("team"), _PENALTY_TEAM if key == "penalty" else _FORFEIT_TEAM)
    reason = body.get("reason") or ""
    if key == "forfeit":
        return Forfeit(body["team"], forfeit_code(reason) if isinstance(reason, str) else reason)
    levels = body.get("levels")
    if "levels" in body and levels is None:  # an explicit null is not a whole number
        raise bad_event(words("扣级数必须是不小于1的整数"))
    return Penalty(body["team"], body.get("kind", "levels"), levels, reason)


def event_to_dict(event: Event) -> dict:
    """Inverse of :func:`parse_event`: ``parse_event(event_to_dict(e)) == e``."""
    if isinstance(event, Deal):
        d: dict = {"order": list(event.order)}
        if event.seats is not None:
            d["seats"] = list(event.seats)
        return d
    if isinstance(event, Penalty):
        body: dict = {"team": event.team}
        if event.kind != "levels":
            body["kind"] = event.kind
        if event.levels is not None:
            body["levels"] = event.levels
        if event.reason:
            body["reason"] = event.reason
        return {"penalty": body}
    if isinstance(event, TimeUp):
        return {"time_up": True}
    if isinstance(event, Forfeit):
        body = {"team": event.team}
        if event.reason:
            body["reason"] = event.reason
        return {"forfeit": body}
    raise TypeError(f"not a Guandan event: {event!r}")


def coerce_event(event: Any) -> Event:
    return event if isinstance(event, _EVENT_TYPES) else parse_event(event)
