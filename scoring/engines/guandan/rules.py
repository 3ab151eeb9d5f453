"""Guandan rule sets: the scoring configuration a match is played under.

Pure Python, standard library only. Terms: 级 (level) is a team's rank 2..A, stored as
2..14; 上游/二游/三游/末游 are 1st-4th to finish a deal; 打A is a deal played by the
declarer (打家, the team whose level is trump) at its own level A; 突然死亡法 is sudden
death after the time limit. See ``docs/rules.md`` (the custom rule set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.engines.board import Words, words
from scoring.engines.common import TIME_FROM, RuleSetError, gettext_noop

TEAMS = ("A", "B")
ACE = 14
LOWEST = 2
_LABELS = {11: "J", 12: "Q", 13: "K", 14: "A"}

FAIL_COUNTINGS = ("own_a_cumulative", "own_a_consecutive", "any_lost_deal_at_a")
TIME_RULES = ("levels_then_last_top", "sudden_death", "draw_allowed")
# Where the time limit counts from, as the rule line says it (scoring.engines.common).
TIME_FROM_WORDS = {
    "scheduled": words("从规定开赛时间起计"),
    "start": words("从裁判宣布开始起计"),
    "first_deal": words("从第一副牌起计"),
}


def level_label(level: int) -> str:
    """Display form of a level: 2..10 as digits, 11..14 as J, Q, K, A."""
    if isinstance(level, bool) or not isinstance(level, int) or not LOWEST <= level <= ACE:
        raise ValueError(f"level must be an int 2..14, got {level!r}")
    return _LABELS.get(level, str(level))


# The level of each display form ("2" → 2 … "A" → 14): how a stored state is read back.
LEVELS = {level_label(level): level for level in range(LOWEST, ACE + 1)}


def level_value(label: str | None) -> int:
    """The level of a display form (:func:`level_label`'s inverse); 2 for anything else."""
    return LEVELS.get(label, LOWEST)


def other(team: str) -> str:
    return "B" if team == "A" else "A"


# ------------------------------------------------------------------------- rule sets


@dataclass(frozen=True)
class RuleSet:
    """Immutable scoring configuration; every choice of a custom rule set (docs/rules.md) is
    a field.

    ``a_fail_counting`` (only used when ``a_fail_limit`` is set):

    * ``own_a_cumulative`` - a failed attempt at the team's own A counts; the count is
      kept for the whole game.
    * ``own_a_consecutive`` - as above, but the streak is broken (count back to 0) as
      soon as the team takes 上游 in a deal that is not its own A attempt, i.e. it
      "wins a deal in between". Every own-A deal either passes A or fails, and a team
      that lost the declaration can only regain it by taking 上游 at the opponents'
      level, so this is the one reading of "consecutive" that differs from cumulative.
    * ``any_lost_deal_at_a`` - a team at level A counts a failure in every deal
      the opponents take 上游, declarer or not, plus its own A deals where it took
      上游 but the partner's place is not a winning one (e.g. 末游).

    ``a_win_requires_declarer=False`` (lenient): a team at A that takes 上游 with an
    allowed partner place wins even in a deal played at the opponents' level. Such a
    non-declarer deal is never counted as a failed attempt of that team.
    """

    id: str
    name: str
    promotion: tuple[int, int, int]
    a_win_requires_declarer: bool = True
    a_win_partner_places: frozenset[int] = frozenset({2, 3})
    a_fail_limit: int | None = None
    a_fail_counting: str = "own_a_cumulative"
    a_fail_reset_to: int = 2
    games_to_win: int = 1
    time_limit_minutes: int | None = 60
    time_rule: str = "levels_then_last_top"
    # Where the limit counts from: "scheduled", "start" (the referee's 开始 at the table) or
    # "first_deal" (scoring.engines.common.TIME_FROM).
    time_from: str = "start"
    default_penalty_levels: int = 2
    forfeit_ends_event: bool = False
    # A team tie is won by a majority of its tables; once it is decided the table still in
    # play stops (不再进行), unless the rules want every table played to its end.
    play_out_decided_ties: bool = False

    def __post_init__(self) -> None:
        # Normalise convenient input types so the object stays hashable.
        if isinstance(self.promotion, list):
            object.__setattr__(self, "promotion", tuple(self.promotion))
        if isinstance(self.a_win_partner_places, (set, list, tuple)):
            object.__setattr__(self, "a_win_partner_places", frozenset(self.a_win_partner_places))
        self._validate()

    def _validate(self) -> None:
        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        def need(ok: bool, what: str) -> None:
            if not ok:
                raise RuleSetError(f"invalid rule set {self.id!r}: {what}")

        need(isinstance(self.id, str) and self.id.strip() != "", "id must be a non-empty string")
        need(isinstance(self.name, str), "name must be a string")
        p = self.promotion
        need(
            isinstance(p, tuple) and len(p) == 3 and all(is_int(x) and 1 <= x <= 12 for x in p),
            f"promotion must be three whole numbers 1..12, got {p!r}",
        )
        need(p[0] >= p[1] >= p[2], f"promotion must not increase from 二游 to 末游, got {p!r}")
        need(
            isinstance(self.a_win_requires_declarer, bool), "a_win_requires_declarer must be a bool"
        )
        places = self.a_win_partner_places
        need(
            isinstance(places, frozenset) and 2 in places and places <= {2, 3},
            f"a_win_partner_places must be {{2}} or {{2, 3}} (1-4 never passes A), got {places!r}",
        )
        need(
            self.a_fail_limit is None or (is_int(self.a_fail_limit) and self.a_fail_limit >= 1),
            f"a_fail_limit must be None or a whole number >= 1, got {self.a_fail_limit!r}",
        )
        need(
            self.a_fail_counting in FAIL_COUNTINGS,
            f"a_fail_counting must be one of {FAIL_COUNTINGS}",
        )
        need(
            is_int(self.a_fail_reset_to) and LOWEST <= self.a_fail_reset_to < ACE,
            f"a_fail_reset_to must be a level 2..13, got {self.a_fail_reset_to!r}",
        )
        need(is_int(self.games_to_win) and 1 <= self.games_to_win <= 9, "games_to_win must be 1..9")
        need(
            self.time_limit_minutes is None
            or (is_int(self.time_limit_minutes) and self.time_limit_minutes >= 1),
            "time_limit_minutes must be None or a whole number >= 1",
        )
        need(self.time_rule in TIME_RULES, f"time_rule must be one of {TIME_RULES}")
        need(self.time_from in TIME_FROM, f"time_from must be one of {TIME_FROM}")
        # Comparing levels at time-up is only defined inside one game; with several games
        # to win only sudden death says what happens (docs/rules.md, "Time up").
        need(
            self.time_rule == "sudden_death" or self.games_to_win == 1,
            f"time_rule {self.time_rule!r} compares levels, so games_to_win must be 1",
        )
        need(
            is_int(self.default_penalty_levels) and 1 <= self.default_penalty_levels <= 12,
            "default_penalty_levels must be 1..12",
        )
        need(isinstance(self.forfeit_ends_event, bool), "forfeit_ends_event must be a bool")
        need(isinstance(self.play_out_decided_ties, bool), "play_out_decided_ties must be a bool")

    @property
    def best_of(self) -> int:
        """How many games a match can take at most."""
        return 2 * self.games_to_win - 1

    @property
    def shows_a_failures(self) -> bool:
        """Whether states carry a_failures/sudden_death (docs/rules.md, the custom rule set)."""
        return self.a_fail_limit is not None or self.time_rule == "sudden_death"

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "promotion": list(self.promotion),
            "a_win_requires_declarer": self.a_win_requires_declarer,
            "a_win_partner_places": sorted(self.a_win_partner_places),
            "a_fail_limit": self.a_fail_limit,
            "a_fail_counting": self.a_fail_counting,
            "a_fail_reset_to": self.a_fail_reset_to,
            "games_to_win": self.games_to_win,
            "time_limit_minutes": self.time_limit_minutes,
            "time_rule": self.time_rule,
            "time_from": self.time_from,
            "default_penalty_levels": self.default_penalty_levels,
            "forfeit_ends_event": self.forfeit_ends_event,
            "play_out_decided_ties": self.play_out_decided_ties,
        }

    @classmethod
    def from_dict(cls, d: dict) -> RuleSet:
        if not isinstance(d, dict):
            raise RuleSetError("rule set must be a JSON object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - known)
        if unknown:
            raise RuleSetError(f"unknown rule set keys: {', '.join(map(str, unknown))}")
        missing = sorted(k for k in ("id", "name", "promotion") if k not in d)
        if missing:
            raise RuleSetError(f"rule set is missing: {', '.join(missing)}")
        kwargs = dict(d)
        for key in ("promotion", "a_win_partner_places"):
            if key in kwargs and not isinstance(kwargs[key], (list, tuple, set, frozenset)):
                raise RuleSetError(f"rule set {key} must be a list")
        places = kwargs.get("a_win_partner_places")
        # As docs/rules.md writes it: [2] or [2, 3], whole numbers, sorted, each once.
        if (
            places is not None
            and list(places) not in ([2], [2, 3])
            or any(not isinstance(x, int) or isinstance(x, bool) for x in places or ())
        ):
            raise RuleSetError(
                f"invalid rule set {d.get('id')!r}: a_win_partner_places must be [2] or "
                f"[2, 3] (1-4 never passes A), got {places!r}"
            )
        try:
            return cls(**kwargs)
        except TypeError as exc:  # e.g. unhashable members in a list
            raise RuleSetError(f"invalid rule set: {exc}") from None

    def summary(self) -> Words:
        """The rule set in one line for score sheets, notices and the table page: 升级5/3/1；
        A必打，…；三局两胜；限时150分钟，到时进入突然死亡法 (worded for the reader)."""
        if self.a_win_partner_places == frozenset({2}):
            a_rule = words("A必打（须双上才能过A）")
        else:
            a_rule = words("A必打")
        if not self.a_win_requires_declarer:
            a_rule = words("%(rule)s，在A级取得上游即可过A", rule=a_rule)
        if self.a_fail_limit is not None:
            n = self.a_fail_limit
            how = {
                "own_a_cumulative": words("累计%(n)s次打A未过", n=n),
                "own_a_consecutive": words("连续%(n)s次打A未过", n=n),
                "any_lost_deal_at_a": words("在A级累计失利%(n)s副", n=n),
            }[self.a_fail_counting]
            a_rule = words(
                "%(rule)s，%(how)s退回%(level)s",
                rule=a_rule,
                how=how,
                level=level_label(self.a_fail_reset_to),
            )
        n = self.games_to_win
        if n == 1:
            games = words("一局定胜负")
        elif n == 2:
            games = words("三局两胜")
        else:
            games = words("%(total)s局%(n)s胜", total=2 * n - 1, n=n)
        if self.time_limit_minutes is None:
            time = words("不限时")
        else:
            then = {
                "levels_then_last_top": words("到时比级数，同级看末副上游"),
                "sudden_death": words("到时进入突然死亡法"),
                "draw_allowed": words("到时比级数，同级为平局"),
            }[self.time_rule]
            time = words(
                "限时%(n)s分钟（%(start)s），%(then)s",
                n=self.time_limit_minutes,
                start=TIME_FROM_WORDS[self.time_from],
                then=then,
            )
        return words(
            "升级%(promotion)s；%(a_rule)s；%(games)s；%(time)s",
            promotion="/".join(map(str, self.promotion)),
            a_rule=a_rule,
            games=games,
            time=time,
        )

    def summary_zh(self) -> str:
        """The summary in Chinese, as the paper documents print it."""
        return str(self.summary())


NANTONG_2014 = RuleSet(
    id="nantong2014",
    name=gettext_noop("南通中学教工掼蛋比赛规则（2014）"),
    promotion=(3, 2, 1),
    time_limit_minutes=60,
    time_rule="levels_then_last_top",
    # 每场比赛时间为1小时: each match's own hour, from its start at the table.
    time_from="start",
    default_penalty_levels=2,  # the notice fixes no amount; the referee page defaults to 2
)
ANHUI_2021 = RuleSet(
    id="anhui2021",
    name=gettext_noop("安徽农业大学教职工掼蛋规程（2021）"),
    promotion=(5, 3, 1),
    a_fail_limit=3,
    a_fail_counting="own_a_cumulative",
    a_fail_reset_to=2,
    games_to_win=2,
    time_limit_minutes=150,
    time_rule="sudden_death",
    # 每场比赛时间为两个半小时…由裁判长鸣哨，宣布全场选手同时进入: the whole hall's round
    # from its scheduled start.
    time_from="scheduled",
    default_penalty_levels=2,
    forfeit_ends_event=True,
)
PRESETS: dict[str, RuleSet] = {r.id: r for r in (NANTONG_2014, ANHUI_2021)}


def get_ruleset(id: str) -> RuleSet:
    try:
        return PRESETS[id]
    except (KeyError, TypeError):
        raise RuleSetError(f"unknown ruleset {id!r}; known: {', '.join(PRESETS)}") from None


def as_ruleset(ruleset: RuleSet | str) -> RuleSet:
    return ruleset if isinstance(ruleset, RuleSet) else get_ruleset(ruleset)
