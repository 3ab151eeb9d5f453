"""Rally-point rule sets for 羽毛球 (badminton) and 乒乓球 (table tennis), and which final
scores of a game are legal under them: pure Python, standard library only.

A match is best of ``2 * games_to_win - 1`` games (局); it ends as soon as one player has
won ``games_to_win`` games (the play is in :mod:`scoring.engines.rally`).

* 每球得分制 (rally scoring) - every rally scores a point, whoever served.
* 局 (game) - won by the first to ``points_to_win`` (21, 11) with a two-point lead; from
  (points_to_win - 1)-all (20平, 10平) play goes on until one player leads by 2. With a
  ``cap`` (badminton: 30) the player who reaches the cap wins even by one point (30-29).

Legal final scores (anything else is ``impossible_score``, with the reason): the winner
has ``points_to_win`` and the loser at most ``points_to_win - 2`` (21-19, 11-9); or both
have at least ``points_to_win - 1`` and the difference is exactly 2 (22-20, 29-27,
30-28, 12-10, 15-13); or, with a cap, ``cap``-``(cap - 1)`` (30-29). See ``docs/rules.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.engines.board import Words, words
from scoring.engines.common import (
    EngineError,
    RuleSetError,
    bad_event,
    check_rules_dict,
    gettext_noop,
    is_whole_number,
    rules_error,
)

SPORTS = ("badminton", "table_tennis")
_SPORT = {"badminton": words("羽毛球"), "table_tennis": words("乒乓球")}
# How many games a match takes, by the games to win.
_BEST_OF = {
    1: words("一局定胜负"),
    2: words("三局两胜"),
    3: words("五局三胜"),
    4: words("七局四胜"),
    5: words("九局五胜"),
}


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

    # Not configurable: a forfeit ends the player's event (the Anhui notice: 弃权者…后面的
    # 比赛资格就此终止), and the ball games are not played to a clock here.
    forfeit_ends_event = True
    time_limit_minutes = None

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

    def summary(self) -> Words:
        """The rule set in one line for score sheets, notices and the table page:
        羽毛球三局两胜，每球得分制，每局21分，…；得分方发球 (worded for the reader)."""
        p, cap = self.points_to_win, self.cap
        if cap == p:
            game = words("每局%(p)s分，先得%(p)s分者胜", p=p)
        else:
            game = words("每局%(p)s分，%(deuce)s平后须领先2分", p=p, deuce=p - 1)
            if cap is not None:
                game = words(
                    "%(game)s，%(last)s平时先得第%(cap)s分者胜", game=game, last=cap - 1, cap=cap
                )
        if self.sport == "badminton":
            serve = words("得分方发球")
        else:
            serve = words("每2分换发球，%(deuce)s平后每1分换发球", deuce=p - 1)
        return words(
            "%(sport)s%(best_of)s，每球得分制，%(game)s；%(serve)s",
            sport=_SPORT[self.sport],
            best_of=_BEST_OF[self.games_to_win],
            game=game,
            serve=serve,
        )

    def summary_zh(self) -> str:
        """The summary in Chinese, as the paper documents print it."""
        return str(self.summary())


BADMINTON_21 = RallyRules(
    id="badminton21",
    name=gettext_noop("羽毛球三局两胜（每局21分）"),
    games_to_win=2,
    points_to_win=21,
    cap=30,
    sport="badminton",
)
TABLE_TENNIS_11 = RallyRules(
    id="table-tennis11",
    name=gettext_noop("乒乓球五局三胜（每局11分）"),
    games_to_win=3,
    points_to_win=11,
    cap=None,
    sport="table_tennis",
)
TABLE_TENNIS_11_BEST_OF_3 = RallyRules(
    id="table-tennis11-bo3",
    name=gettext_noop("乒乓球三局两胜（每局11分）"),
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
        raise RuleSetError(f"unknown rally rule set {id!r}; known: {', '.join(PRESETS)}") from None


def as_rules(rules: RallyRules | str) -> RallyRules:
    return rules if isinstance(rules, RallyRules) else get_rules(rules)


# --------------------------------------------------------------------------- scores


def check_points(home: Any, away: Any) -> None:
    if not all(is_whole_number(x) and x >= 0 for x in (home, away)):
        raise bad_event(
            words("比分必须是不小于0的整数，收到 %(score)s", score=f"{home!r}–{away!r}")
        )


def score_problem(home: int, away: int, rules: RallyRules) -> Words | None:
    """Why ``home``-``away`` is not a finished game, or ``None`` when it is one."""
    p, cap = rules.points_to_win, rules.cap
    high, low = max(home, away), min(home, away)
    score = f"{home}–{away}"
    if cap is not None:
        need_lead = words(
            "%(score)s不是完整的一局：须领先2分（或打到%(cap)s分）", score=score, cap=cap
        )
    else:
        need_lead = words("%(score)s不是完整的一局：须领先2分", score=score)
    if high == low:
        return words("%(score)s不是完整的一局：双方比分不能相同", score=score)
    if cap is not None and high > cap:
        return words("%(score)s超过了%(cap)s分上限", score=score, cap=cap)
    if high < p:
        return words("%(score)s不是完整的一局：须先得到%(p)s分", score=score, p=p)
    if high == p:
        return need_lead if low == p - 1 and cap != p else None
    # Past points_to_win the game went through (p-1)-all: it ends at a two-point lead, or
    # at the cap by one point.
    diff = high - low
    if diff == 2 or (diff == 1 and high == cap):
        return None
    if diff == 1:
        return need_lead
    return words("%(score)s：超过%(p)s分时比分差必须正好是2分", score=score, p=p)


def validate_game_score(home: Any, away: Any, rules: RallyRules | str) -> str:
    """The winner ('home' | 'away') of a finished game with this score.

    Raises :class:`EngineError` ``invalid_event`` unless both scores are whole numbers
    >= 0, and ``impossible_score`` (the message gives the reason) unless the score is a
    legal final score (module docstring).
    """
    rules = as_rules(rules)
    check_points(home, away)
    problem = score_problem(home, away, rules)
    if problem is not None:
        raise EngineError("impossible_score", problem)
    return "home" if home > away else "away"


def is_game_over(home: int, away: int, rules: RallyRules | str) -> bool:
    """Whether a running score reached by single points is the end of the game."""
    return score_problem(home, away, as_rules(rules)) is None
