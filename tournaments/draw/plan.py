"""What an organiser chooses when drawing an event (``DrawPlan``), and the errors of the draw's writes.

Formats (``DrawPlan.format``):
- ``knockout`` — one knockout stage, the 季军争夺战 on by default; with ``qualifiers=K`` a
  preliminary knockout (预赛) brings the field down to K and the main knockout (决赛阶段)
  continues with the survivors in their bracket places (Nantong: 第一阶段决出八强 …);
- ``groups`` — round-robin groups (小组循环赛); the top ``advance`` of each group go on to a
  knockout seeded so that group winners do not meet early;
- ``swiss`` — 积分编排: ``swiss_rounds`` rounds paired within score groups; with
  ``qualifiers=K`` the top K then play a knockout, otherwise the Swiss table is the result.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from guandan_cup.words import listing
from tournaments.draw.rules import knockout
from tournaments.draw.rules.common import DrawError
from tournaments.models import Entry, Match

HOME, AWAY = Match.Side.HOME, Match.Side.AWAY


OUT_STATUSES = (Entry.Status.WITHDRAWN, Entry.Status.ELIMINATED, Entry.Status.DISQUALIFIED)


class ResultError(UserError):
    """A result a user can correct (wrong side, match not ready, already decided …)."""


@dataclass(frozen=True)
class DrawPlan:
    format: str = "knockout"  # knockout | groups | swiss
    third_place: bool = True
    qualifiers: int | None = None  # K of a preliminary stage (决出K强)
    groups: int = 2
    advance: int = 2  # per group
    swiss_rounds: int = 5
    points: tuple[int, int, int] = (2, 1, 0)

    def __post_init__(self):
        if self.format not in ("knockout", "groups", "swiss"):
            raise DrawError("invalid_format", _("未知的赛制“%(f)s”。") % {"f": self.format})

    def summary(self) -> str:
        """The whole plan in one line, as the draw page shows it (the stages in order)."""
        third = _("，设季军争夺战") if self.third_place else ""
        if self.format == "swiss":
            first = _("第一阶段：积分编排%(n)s轮") % {"n": self.swiss_rounds}
            if not self.qualifiers:
                return first + _("，按积分排名次")
            order = knockout.ranked_order(knockout.bracket_size(max(self.qualifiers, 2)))
            matches = list(zip(order[::2], order[1::2], strict=True))
            pairs = listing(f"{a}—{b}" for a, b in matches if b <= self.qualifiers)
            byes = listing(str(a) for a, b in matches if b > self.qualifiers)
            if byes:
                pairs += _("（第%(ranks)s名首轮轮空）") % {"ranks": byes}
            second = _("；第二阶段：积分前%(k)s名淘汰赛，按积分名次%(pairs)s对阵")
            return first + second % {"k": self.qualifiers, "pairs": pairs} + third
        if self.format == "groups":
            return (
                _("第一阶段：%(g)s个小组循环赛；第二阶段：各组前%(a)s名淘汰赛")
                % {
                    "g": self.groups,
                    "a": self.advance,
                }
                + third
            )
        if self.qualifiers:
            return (
                _("第一阶段：预赛淘汰赛决出%(k)s强；第二阶段：淘汰赛") % {"k": self.qualifiers}
                + third
            )
        return _("淘汰赛") + third

    @classmethod
    def from_dict(cls, data: dict) -> DrawPlan:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "points" in known:
            known["points"] = tuple(known["points"])
        return cls(**known)

    def to_dict(self) -> dict:
        return {**asdict(self), "points": list(self.points)}
