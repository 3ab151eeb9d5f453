"""象棋 (xiangqi) rule sets and their summary for people: pure Python, standard library only.

The play is in :mod:`scoring.engines.xiangqi` (which re-exports these, so callers import from
``scoring.engines.xiangqi`` only); the terms (盘, 先手, 猜先, 和棋, 后手胜) are defined there.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.engines.board import Words, words
from scoring.engines.common import (
    RuleSetError,
    check_rules_dict,
    gettext_noop,
    rules_error,
)

# What a drawn deciding game means: the notice's 后手胜, or another game by lot until
# one is decisive (加赛), the usual rule elsewhere.
THIRD_GAME_DRAW_RULES = ("second_mover", "replay")

# The numbers of games a rule set may have, in the words a summary uses: the match (三盘两胜,
# 五盘制), its deciding game (第三盘) and the games before it (前两盘). Chinese writes them
# in characters, so each is a message of its own.
_MATCH = {3: words("三盘两胜"), 5: words("五盘制"), 7: words("七盘制"), 9: words("九盘制")}
_LAST_GAME = {3: words("第三盘"), 5: words("第五盘"), 7: words("第七盘"), 9: words("第九盘")}
_FIRST_GAMES = {2: words("前两盘"), 4: words("前四盘"), 6: words("前六盘"), 8: words("前八盘")}


@dataclass(frozen=True)
class XiangqiRules:
    """A xiangqi match rule set (explicit config, never read from settings)."""

    id: str
    name: str
    games: int = 3
    draw_points: float = 0.5
    third_game_draw_goes_to: str = "second_mover"

    def __post_init__(self) -> None:
        dp = self.draw_points
        if isinstance(dp, (int, float)) and not isinstance(dp, bool):
            object.__setattr__(self, "draw_points", float(dp))
        self._validate()

    def _validate(self) -> None:
        def need(ok: bool, what: str) -> None:
            if not ok:
                raise rules_error(self.id, what)

        need(isinstance(self.id, str) and self.id.strip() != "", "id must be a non-empty string")
        need(isinstance(self.name, str), "name must be a string")
        g = self.games
        need(
            isinstance(g, int) and not isinstance(g, bool) and 1 <= g <= 9 and g % 2 == 1,
            f"games must be an odd whole number 1..9, got {g!r}",
        )
        need(
            isinstance(self.draw_points, float) and 0 <= self.draw_points < 1,
            f"draw_points must be a number from 0 to below 1, got {self.draw_points!r}",
        )
        need(
            self.third_game_draw_goes_to in THIRD_GAME_DRAW_RULES,
            f"third_game_draw_goes_to must be one of {THIRD_GAME_DRAW_RULES}",
        )

    # Not configurable: a forfeit ends the player's event (the Anhui notice: 弃权者…后面的
    # 比赛资格就此终止), and chess is not played to a clock here.
    forfeit_ends_event = True
    time_limit_minutes = None

    @property
    def best_of(self) -> int:
        return self.games

    @property
    def alternating_games(self) -> int:
        """Games played with alternating first moves before the deciding game (2 of 3)."""
        return self.games - 1

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "games": self.games,
            "draw_points": self.draw_points,
            "third_game_draw_goes_to": self.third_game_draw_goes_to,
        }

    @classmethod
    def from_dict(cls, d: dict) -> XiangqiRules:
        return cls(**check_rules_dict(d, cls, ("id", "name")))

    def summary(self) -> Words:
        """The rule set in one line for score sheets, notices and the table page: 三盘两胜：
        前两盘双方各先手一次，胜1分、和0.5分、负0分；… (worded for the reader)."""
        if self.games == 1:
            if self.third_game_draw_goes_to == "second_mover":
                on_draw = words("和棋则后手获胜")
            else:
                on_draw = words("和棋则再猜先加赛，直至分出胜负")
            return words("一盘定胜负：猜先，%(on_draw)s", on_draw=on_draw)
        last = _LAST_GAME[self.games]
        if self.third_game_draw_goes_to == "second_mover":
            on_draw = words("%(last)s和棋则后手获胜", last=last)
        else:
            on_draw = words("%(last)s和棋则再猜先加赛，直至分出胜负", last=last)
        first = _FIRST_GAMES[self.alternating_games]
        return words(
            "%(match)s：%(turns)s，%(scoring)s；%(lead)s，总分相同则%(last)s猜先，%(on_draw)s",
            match=_MATCH[self.games],
            turns=first_moves(self.alternating_games),
            scoring=words("胜1分、和%(draw)s分、负0分", draw=format_number(self.draw_points)),
            lead=words("%(first)s总分领先者获胜", first=first),
            last=last,
            on_draw=on_draw,
        )

    def summary_zh(self) -> str:
        """The summary in Chinese, as the paper documents print it."""
        return str(self.summary())


def first_moves(alternating: int) -> Words:
    """Who moves first in the games before the deciding one: 前两盘双方各先手一次."""
    first = _FIRST_GAMES[alternating]
    if alternating == 2:
        return words("%(first)s双方各先手一次", first=first)
    return words("%(first)s双方轮流先手", first=first)


def format_number(x: float) -> str:
    """A number of points as a sum writes it: 1, 0.5, 1.5."""
    return str(int(x)) if float(x).is_integer() else str(x)


ANHUI_2021_XIANGQI = XiangqiRules(
    id="anhui2021-xiangqi", name=gettext_noop("安徽农业大学教职工象棋比赛（2021）")
)
PRESETS: dict[str, XiangqiRules] = {r.id: r for r in (ANHUI_2021_XIANGQI,)}


def get_rules(id: str) -> XiangqiRules:
    try:
        return PRESETS[id]
    except (KeyError, TypeError):
        raise RuleSetError(
            f"unknown xiangqi rule set {id!r}; known: {', '.join(PRESETS)}"
        ) from None


def as_rules(rules: XiangqiRules | str) -> XiangqiRules:
    return rules if isinstance(rules, XiangqiRules) else get_rules(rules)
