"""What the 象棋 (xiangqi) and rally-point (羽毛球, 乒乓球) engines share: sides, the one
user-fixable error class, the forfeit event and small helpers.

Pure Python, standard library only (no Django). The two players of an individual match
are the bracket's ``home`` and ``away`` entries (主方 / 客方 when no name is given).

* 弃权 (forfeit) - a player who forfeits loses the match (the notice: refusing the
  referee so that play stops for 5 minutes counts as a forfeit). That a forfeit also ends
  the player's event (not paired again) is the tournament's business, not the engine's.

Two kinds of error, as for Guandan: :class:`SportError` is the only exception for input a
referee can fix; anything else (``ValueError`` for a bad rule-set config, ...) is a bug.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

SIDES = ("home", "away")
SIDE_ZH = {"home": "主方", "away": "客方"}

# Reason codes used by the referee pages; any other reason is shown verbatim.
FORFEIT_REASONS = {
    "withdrawn": "弃权",
    "stoppage_over_5_min": "不服从裁判致使比赛中断5分钟",
    "late_over_10_min": "迟到十分钟以上",
}


def other(side: str) -> str:
    return "away" if side == "home" else "home"


def side_name(side: str, names: Mapping[str, str] | None = None) -> str:
    """The player's name for the referee's screen, or 主方/客方."""
    return (names or {}).get(side) or SIDE_ZH[side]


def is_whole_number(value: Any) -> bool:
    """An ``int`` that is not a ``bool`` (JSON ``true`` is not a score of 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------------- errors

_MESSAGES = {
    "match_over": "本场比赛已经结束，不能再录入",
    "wrong_first_move": "先手方不对：前两盘双方各先手一次",
    "impossible_score": "不可能出现的比分",
    "invalid_event": "无法识别的记录",
}


class SportError(Exception):
    """Input a referee can fix: an impossible score, a game after the match ended, ...

    ``code`` is stable and machine-readable; ``message`` is a short Chinese sentence for
    the referee; ``event_index`` is set by ``replay`` (``None`` from ``apply_event``).
    """

    def __init__(self, code: str, message: str | None = None, event_index: int | None = None):
        if code not in _MESSAGES:
            raise ValueError(f"unknown SportError code {code!r}")
        self.code = code
        self.message = message or _MESSAGES[code]
        self.event_index = event_index
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):
        return (type(self), (self.code, self.message, self.event_index))

    def as_dict(self) -> dict:
        return {"error": self.code, "message": self.message, "event_index": self.event_index}

    def at(self, event_index: int) -> SportError:
        """A copy of this error located at ``event_index``."""
        return SportError(self.code, self.message, event_index)


def bad_event(message: str) -> SportError:
    return SportError("invalid_event", f"无法识别的记录：{message}")


def check_side(side: Any, what: str) -> None:
    if not isinstance(side, str) or side not in SIDES:
        raise bad_event(f"{what}必须是 home 或 away")


# --------------------------------------------------------------------------- values


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
    """弃权: ``side`` loses the match. JSON ``{"forfeit": {"side": ..., "reason": ...}}``."""

    side: str
    reason: str = ""

    def __post_init__(self) -> None:
        check_side(self.side, "弃权方")
        if not isinstance(self.reason, str):
            raise bad_event("弃权原因必须是文字")


def parse_forfeit(body: Any) -> Forfeit:
    if not isinstance(body, dict):
        raise bad_event("弃权的内容必须是一个对象")
    reason = body.get("reason")
    return Forfeit(body.get("side"), "" if reason is None else reason)


def forfeit_to_dict(event: Forfeit) -> dict:
    body: dict = {"side": event.side}
    if event.reason:
        body["reason"] = event.reason
    return {"forfeit": body}


def describe_forfeit(event: Forfeit, names: Mapping[str, str] | None = None) -> str:
    text = f"{side_name(event.side, names)}弃权，{side_name(other(event.side), names)}获胜"
    reason = FORFEIT_REASONS.get(event.reason, event.reason)
    return text + (f"（{reason}）" if reason else "")


def rules_error(rules_id: Any, what: str) -> ValueError:
    return ValueError(f"invalid rule set {rules_id!r}: {what}")


def check_rules_dict(d: Any, cls: type, required: tuple[str, ...]) -> dict:
    """The keyword arguments for ``cls`` from a JSON object, or a clear ValueError."""
    if not isinstance(d, dict):
        raise ValueError("rule set must be a JSON object")
    unknown = sorted(map(str, set(d) - set(cls.__dataclass_fields__)))
    if unknown:
        raise ValueError(f"unknown rule set keys: {', '.join(unknown)}")
    missing = [k for k in required if k not in d]
    if missing:
        raise ValueError(f"rule set is missing: {', '.join(missing)}")
    return dict(d)
