"""What a referee's tap or form means: the POSTed fields of an entry control (the deal pad,
a penalty, a forfeit, time up, a whole game, a rally's point, the first server) turned
into one event of a table's record, with its reason.

The table page records the event at once; the chief referee's correction page uses the same
controls to edit a draft of the record (scoring.views.correction). One reading of each
control, so a correction is entered exactly as the entry was.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from guandan_cup.inputs import INT, plain_text, whole_number
from scoring.engines.common import FORFEIT_REASONS, forfeit_code
from scoring.services.common import TableError

PLACES = {"2": gettext_lazy("二游"), "3": gettext_lazy("三游"), "4": gettext_lazy("末游")}


@dataclass(frozen=True)
class Entry:
    """One event for the record, with the words that go with it."""

    payload: dict
    reason: str = ""
    reported_by: str = ""
    # A step that cannot be undone (a disqualification): the page asks for a ticked box.
    final: bool = False


def needs(engine, what: str) -> None:
    """Refuse a control the table's sport does not record ("penalty", "point" …)."""
    if not engine.records(what):
        raise TableError("not_for_sport", _("这个项目没有这项记录。"))


def order(top: str, place: str) -> list[str]:
    """The finishing order from one decision: who took 上游 and where the partner finished."""
    if top not in ("A", "B") or place not in ("2", "3", "4"):
        raise TableError("invalid_order", _("请选择上游方和对家名次。"))
    other = "B" if top == "A" else "A"
    finish = [top, other, other, other]
    finish[int(place) - 1] = top
    return finish


def deal(post, engine) -> Entry:
    # One tap: the button's value is the side with 上游 and its partner's place ("A3").
    needs(engine, "deal")
    choice = post.get("deal", "")
    return Entry({"order": order(choice[:1], choice[1:])})


def penalty(post, engine) -> Entry:
    needs(engine, "penalty")
    team, kind = post.get("team", ""), post.get("kind", "levels")
    if team not in ("A", "B"):
        raise TableError("invalid_team", _("请选择受罚的一方。"))
    body = {"team": team, "kind": kind}
    if kind == "levels":
        levels = whole_number(post.get("levels", ""), maximum=INT)
        if not levels:
            raise TableError("invalid_levels", _("扣级数必须是不小于1的整数。"))
        body["levels"] = levels
    reason = plain_text(post.get("reason", ""))
    if not reason:
        raise TableError("no_reason", _("请写明处罚原因。"))
    return Entry(
        {"penalty": body},
        reason=reason,
        reported_by=post.get("reported_by", ""),
        final=kind == "disqualify",
    )


def time_up(post, engine) -> Entry:
    needs(engine, "time_up")
    return Entry({"time_up": True})


def forfeit(post, engine) -> Entry:
    # A page loaded before the codes were one table may still send an old code.
    team, reason = post.get("team", ""), forfeit_code(post.get("reason", ""))
    if team not in ("A", "B") or reason not in FORFEIT_REASONS:
        raise TableError("invalid_forfeit", _("请选择判负的一方和原因。"))
    return Entry(engine.forfeit(team, reason), reason=FORFEIT_REASONS[reason])


def _score(raw: str, what: str) -> int:
    value = whole_number(raw, maximum=999)
    if value is None:
        raise TableError(
            "invalid_score",
            _("%(what)s必须是0到999之间的整数，收到“%(value)s”。")
            % {"what": what, "value": plain_text(raw, limit=20)},
        )
    return value


def _rally_game(post) -> dict:
    """羽毛球, 乒乓球: a whole game's score (21–17)."""
    home = _score(post.get("home", ""), _("主方得分"))
    away = _score(post.get("away", ""), _("客方得分"))
    return {"home": home, "away": away}


def _xiangqi_game(post) -> dict:
    """象棋: a game's result and who moved first."""
    result = post.get("result", "")
    first_move = post.get("first_move", "")
    if result not in ("home", "away", "draw"):
        raise TableError("invalid_result", _("请选择这一盘的结果。"))
    if first_move not in ("home", "away"):
        raise TableError("invalid_first_move", _("请选择这一盘的先手方。"))
    return {"result": result, "first_move": first_move}


# Each sport's game form (its fields are in the sport's part of the table page).
GAME_FORMS = {"rally": _rally_game, "xiangqi": _xiangqi_game}


def game(post, engine) -> Entry:
    """One whole game: a rally game's score (羽毛球 21–17) or a chess game's result and who
    moved first (象棋)."""
    needs(engine, "game")
    return Entry(GAME_FORMS[engine.kind](post))


def _side(post, engine, name: str, missing: str) -> Entry:
    """A rally event naming one side: ``{name: "home" | "away"}``."""
    needs(engine, name)
    side = post.get("side", "")
    if side not in ("home", "away"):
        raise TableError("invalid_side", missing)
    return Entry({name: side})


def point(post, engine) -> Entry:
    """Point by point (羽毛球/乒乓球): the rally's winner."""
    return _side(post, engine, "point", _("请选择得分的一方。"))


def first_server(post, engine) -> Entry:
    """猜先: who serves first in the match."""
    return _side(post, engine, "first_server", _("请选择首先发球的一方。"))


# The controls by name, as the correction page's forms send it (``entry``).
CONTROLS = {
    "deal": deal,
    "penalty": penalty,
    "time_up": time_up,
    "forfeit": forfeit,
    "game": game,
    "point": point,
    "first_server": first_server,
}
