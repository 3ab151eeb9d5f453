"""One face for the three scoring engines: Guandan levels (``scoring.engines.guandan.play``), 象棋
(``scoring.engines.xiangqi``) and rally-point badminton / table tennis (``scoring.engines.rally``).

The referee services, pages, JSON and documents talk to a :class:`Scorer` and never to an
engine directly, so a table of any sport is recorded, replayed, submitted, confirmed,
corrected and audited the same way. Pure Python, standard library only (no Django).

Sides: the services and the ``TableMatch`` row speak of ``"A"`` (home) and ``"B"`` (away),
as Guandan does; the rally and xiangqi engines speak of ``"home"`` and ``"away"``. The
scorer translates at its edges, so stored events stay in each engine's own JSON format
(the format of ``matches/ID.json``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scoring.engines import rally, xiangqi
from scoring.engines.common import SportError
from scoring.engines.guandan import play as guandan
from scoring.engines.guandan.events import GuandanError

# Either engine's user-fixable error: both carry ``code``, ``message`` and ``event_index``.
ScoringError = (GuandanError, SportError)

KINDS = ("guandan", "xiangqi", "rally")
TO_SIDE = {"A": "home", "B": "away"}
TO_TEAM = {"home": "A", "away": "B"}

# The discipline's default rule set when an event names none.
DEFAULT_RULESET = {
    "xiangqi": xiangqi.ANHUI_2021_XIANGQI.id,
    "badminton": rally.BADMINTON_21.id,
    "table_tennis": rally.TABLE_TENNIS_11.id,
}
GUANDAN_DISCIPLINES = ("guandan_team", "guandan_pairs")
# The referee page's forfeit reasons, in the sports engines' codes.
_SPORT_REASONS = {"withdrew": "withdrawn"}


def format_points(value) -> str:
    """A score for people: 1.0 → "1", 1.5 → "1½", 0.5 → "½" (chess points)."""
    whole = int(value)
    if value - whole >= 0.5:
        return f"{whole}½" if whole else "½"
    return str(whole)


def kind_of(discipline: str) -> str:
    if discipline in GUANDAN_DISCIPLINES:
        return "guandan"
    if discipline == "xiangqi":
        return "xiangqi"
    if discipline in rally.SPORTS:
        return "rally"
    raise ValueError(f"unknown discipline {discipline!r}")


def preset_choices() -> dict[str, list[tuple[str, str]]]:
    """The preset rule sets of every discipline, for a form's grouped choices."""
    return {
        "guandan": [(k, r.name) for k, r in guandan.PRESETS.items()],
        "xiangqi": [(k, r.name) for k, r in xiangqi.PRESETS.items()],
        "badminton": [(k, r.name) for k, r in rally.PRESETS.items() if r.sport == "badminton"],
        "table_tennis": [
            (k, r.name) for k, r in rally.PRESETS.items() if r.sport == "table_tennis"
        ],
    }


def scorer_for(discipline: str, ruleset: str = "", config: Mapping | None = None) -> Scorer:
    """The scorer of an event: a custom rule set from ``config`` when given, else the named
    preset, else the discipline's default. ``ValueError`` (with the reason) when the rule set
    is unknown, malformed or of another sport."""
    kind = kind_of(discipline)
    config = dict(config or {})
    if kind == "guandan":
        if config:
            rules = guandan.RuleSet.from_dict(config)
        elif ruleset:
            rules = guandan.get_ruleset(ruleset)
        else:
            raise ValueError("a guandan event needs a rule set")
    elif kind == "xiangqi":
        if config:
            rules = xiangqi.XiangqiRules.from_dict(config)
        else:
            rules = xiangqi.get_rules(ruleset or DEFAULT_RULESET["xiangqi"])
    else:
        if config:
            rules = rally.RallyRules.from_dict(config)
        else:
            rules = rally.get_rules(ruleset or DEFAULT_RULESET[discipline])
        if rules.sport != discipline:
            raise ValueError(f"rule set {rules.id!r} is for {rules.sport}, not {discipline}")
    return Scorer(kind, rules)


@dataclass(frozen=True)
class Scorer:
    """An engine and its rule set behind one interface."""

    kind: str
    rules: Any

    # ---------------------------------------------------------------- description

    @property
    def id(self) -> str:
        return self.rules.id

    @property
    def is_guandan(self) -> bool:
        return self.kind == "guandan"

    @property
    def summary(self) -> str:
        """The rule set in one Chinese line (score sheets, the referee page)."""
        return self.rules.summary_zh()

    @property
    def forfeit_ends_event(self) -> bool:
        """Whether a forfeit also ends the entry's event (no more matches). Guandan: as the
        rule set says (Anhui: 弃权…比赛资格就此终止). The other sports: always — the Anhui
        notice: 弃权者…后面的比赛资格就此终止."""
        return bool(self.rules.forfeit_ends_event) if self.is_guandan else True

    @property
    def best_of(self) -> int:
        """How many games at most (Guandan: games to win × 2 − 1; xiangqi: 3)."""
        if self.kind == "rally":
            return self.rules.best_of
        if self.kind == "xiangqi":
            return self.rules.alternating_games + 1
        return 2 * self.rules.games_to_win - 1

    # ------------------------------------------------------------------- engine

    def _engine(self):
        return {"guandan": guandan, "xiangqi": xiangqi, "rally": rally}[self.kind]

    def initial(self):
        return self._engine().initial_state(self.rules)

    def parse(self, payload: Any):
        """An event from its stored JSON; raises one of :data:`ScoringError`."""
        return self._engine().parse_event(payload)

    def to_dict(self, event) -> dict:
        return self._engine().event_to_dict(event)

    def normalise(self, payload: Any) -> dict:
        """The canonical JSON of an event (what is stored)."""
        return self.to_dict(self.parse(payload))

    def apply(self, state, event):
        return self._engine().apply_event(state, event, self.rules)

    def replay(self, payloads: Iterable[Any]):
        return self._engine().replay(self.rules, list(payloads))

    def describe(self, before, event, after, names: Mapping[str, str]) -> str:
        """The engine's Chinese sentence; ``names`` is keyed by ``"A"``/``"B"``."""
        if self.is_guandan:
            return guandan.describe(before, event, after, self.rules, names=names)
        sides = {TO_SIDE[k]: v for k, v in names.items() if k in TO_SIDE}
        return self._engine().describe(before, event, after, self.rules, names=sides)

    # ------------------------------------------------------------------- state

    def state_dict(self, state) -> dict:
        """The state as stored on the table and shown on its page."""
        if self.is_guandan:
            return guandan.state_to_full_dict(state, self.rules)
        return self._engine().state_to_dict(state, self.rules)

    def public_state(self, state) -> dict:
        """The state in ``matches/ID.json`` (Guandan: the vectors' ``expected`` format)."""
        if self.is_guandan:
            return guandan.state_to_dict(state, self.rules)
        return self._engine().state_to_dict(state, self.rules)

    @staticmethod
    def match_over(state) -> bool:
        return bool(state.match_over)

    def winner(self, state) -> str | None:
        """``"A"`` (home), ``"B"`` (away) or ``None`` (not over, or a drawn Guandan table)."""
        if not state.match_over or state.winner is None:
            return None
        return state.winner if self.is_guandan else TO_TEAM[state.winner]

    def decided_by(self, state) -> str | None:
        return state.decided_by

    def games(self, state) -> list[dict] | None:
        """Games in play order in the ``matches/ID.json`` form; ``None`` for Guandan, whose
        record is the deals."""
        if self.kind == "rally":
            return [{"home": h, "away": a} for h, a in state.games]
        if self.kind == "xiangqi":
            return [xiangqi.event_to_dict(g) for g in state.games]
        return None

    def games_won(self, state) -> tuple[int, int]:
        """Games won by home and away (xiangqi: games won outright, draws not counted)."""
        if self.kind == "rally":
            return state.games_won["home"], state.games_won["away"]
        if self.kind == "xiangqi":
            wins = [g.winner for g in state.games]
            return wins.count("home"), wins.count("away")
        return state.games_won["A"], state.games_won["B"]

    def margin(self, state) -> float:
        """Home's margin for standings (级差 for Guandan is worked out by the services):
        games for rally sports, points for xiangqi."""
        if self.kind == "xiangqi":
            return float(state.points["home"] - state.points["away"])
        home, away = self.games_won(state)
        return float(home - away)

    # ------------------------------------------------------------------- events

    def forfeit(self, team: str, reason: str) -> dict:
        """The JSON of a forfeit by ``team`` (``"A"``/``"B"``) in this engine's format."""
        if team not in TO_SIDE:
            raise ValueError(f"team must be A or B, got {team!r}")
        if self.is_guandan:
            return {"forfeit": {"team": team, "reason": reason}}
        reason = _SPORT_REASONS.get(reason, reason)
        return {"forfeit": {"side": TO_SIDE[team], "reason": reason}}


__all__ = [
    "DEFAULT_RULESET",
    "KINDS",
    "ScoringError",
    "Scorer",
    "format_points",
    "kind_of",
    "preset_choices",
    "scorer_for",
]
