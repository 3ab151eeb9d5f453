"""One face for the scoring engines: a lookup by sport (Guandan levels, 象棋, rally-point
badminton and table tennis), each engine implementing :class:`scoring.engines.common.Engine`.

The referee services, pages, JSON and documents talk to a :class:`Scorer` and never to an
engine directly, so a table of any sport is recorded, replayed, submitted, confirmed,
corrected and audited the same way; a new sport is one new engine module in
:data:`ENGINES`. Pure Python, standard library only (no Django).

Sides: the services and the ``TableMatch`` row speak of ``"A"`` (home) and ``"B"`` (away);
each engine translates its own sides at its protocol, so stored events stay in each
engine's own JSON format (the format of ``matches/ID.json``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from scoring.engines import common, rally, xiangqi
from scoring.engines.board import Board, RecordItem, Sheet, Words
from scoring.engines.common import Engine
from scoring.engines.guandan import engine as guandan

ENGINES: dict[str, Engine] = {e.KIND: e for e in (guandan, xiangqi, rally)}
KINDS = tuple(ENGINES)


def kind_of(discipline: str) -> str:
    for kind, engine in ENGINES.items():
        if discipline in engine.DISCIPLINES:
            return kind
    raise ValueError(f"unknown discipline {discipline!r}")


def preset_choices() -> dict[str, list[tuple[str, str]]]:
    """The preset rule sets of every discipline, for a form's grouped choices: (id, name),
    the name a Chinese message the page translates (a preset's name is the app's words)."""
    return {group: items for e in ENGINES.values() for group, items in e.preset_choices().items()}


def scorer_for(discipline: str, ruleset: str = "", config: Mapping | None = None) -> Scorer:
    """The scorer of an event: a custom rule set from ``config`` when given, else the named
    preset, else the discipline's default. ``RuleSetError`` (with the reason) when the rule set
    is unknown, malformed or of another sport."""
    kind = kind_of(discipline)
    if config and not isinstance(config, Mapping):  # [1], 5, "x": not a rule set at all
        raise common.RuleSetError("rule set must be a JSON object")
    rules = ENGINES[kind].rules_for(discipline, ruleset, dict(config or {}))
    return Scorer(kind, rules)


@dataclass(frozen=True)
class Scorer:
    """An engine and its rule set behind one interface.

    Where a method reads a ``state``, it takes the engine's state (from :meth:`replay` or
    :meth:`apply`) or the dict stored on the table (:meth:`state_dict`) alike.
    """

    kind: str
    rules: Any

    @property
    def engine(self) -> Engine:
        return ENGINES[self.kind]

    # ---------------------------------------------------------------- description

    @property
    def id(self) -> str:
        return self.rules.id

    @property
    def summary(self) -> Words:
        """The rule set in one line (score sheets, the referee page), worded when shown."""
        return self.rules.summary()

    @property
    def forfeit_ends_event(self) -> bool:
        """Whether a forfeit also ends the entry's event (no more matches). Guandan: as the
        rule set says (Anhui: 弃权…比赛资格就此终止). The other sports: always — the Anhui
        notice: 弃权者…后面的比赛资格就此终止."""
        return bool(self.rules.forfeit_ends_event)

    @property
    def play_out_decided_ties(self) -> bool:
        """Whether a team tie's remaining tables are played to their end once the tie is
        decided (only guandan has team ties; its rule set says)."""
        return bool(getattr(self.rules, "play_out_decided_ties", False))

    @property
    def best_of(self) -> int:
        """How many games at most (Guandan: games to win × 2 − 1; xiangqi: 3)."""
        return self.rules.best_of

    @property
    def time_limit_minutes(self) -> int | None:
        """The time a table may take, or None (no clock)."""
        return self.rules.time_limit_minutes

    @property
    def time_from(self) -> str:
        """Where the time limit counts from (``common.TIME_FROM``): the rule set's choice;
        a sport whose rule set does not say counts from the first record."""
        return getattr(self.rules, "time_from", "first_deal")

    def clock_start[T](self, *, scheduled: T | None, start: T | None, first_deal: T | None):
        """When the time limit starts counting, of the moments known (common.clock_start)."""
        return common.clock_start(
            self.time_from, scheduled=scheduled, start=start, first_deal=first_deal
        )

    @property
    def recorded(self) -> frozenset[str]:
        """What a referee of this sport records (for the pages: ``"penalty" in …``)."""
        return self.engine.EVENTS

    def records(self, what: str) -> bool:
        """Whether a referee of this sport records ``what``: "deal", "penalty", "time_up",
        "game", "point", "first_server", "forfeit"."""
        return what in self.engine.EVENTS

    # ------------------------------------------------------------------- engine

    def initial(self):
        return self.engine.initial_state(self.rules)

    def parse(self, payload: Any):
        """An event from its stored JSON; raises :class:`~scoring.engines.common.EngineError`."""
        return self.engine.parse_event(payload)

    def to_dict(self, event) -> dict:
        return self.engine.event_to_dict(event)

    def normalise(self, payload: Any) -> dict:
        """The canonical JSON of an event (what is stored)."""
        return self.to_dict(self.parse(payload))

    def apply(self, state, event):
        return self.engine.apply_event(state, event, self.rules)

    def replay_steps(self, payloads: Iterable[Any]) -> Iterator[tuple[Any, Any, Any]]:
        """(state before, payload, state after) for each recorded event in turn; an
        :class:`~scoring.engines.common.EngineError` names the event's index."""
        return common.replay_steps(self.initial(), self._step, payloads)

    def replay(self, payloads: Iterable[Any]):
        return common.replay(self.initial(), self._step, payloads)

    def _step(self, state, payload):
        return self.apply(state, self.parse(payload))

    def describe(self, before, event, after, names: Mapping[str, str]) -> Words:
        """What the event did, in words (``str()`` the Chinese); ``names`` is keyed by
        ``"A"``/``"B"``."""
        return self.engine.describe_event(before, event, after, self.rules, names)

    # ------------------------------------------------------------------- events

    def forfeit(self, team: str, reason: str) -> dict:
        """The JSON of a forfeit by ``team`` (``"A"``/``"B"``) in this engine's format."""
        return self.engine.forfeit_event(team, reason)

    def after_whistle(self, payload: dict | None = None) -> list[dict]:
        """The events the chief referee's whistle records at once (``payload`` None), or
        those that follow ``payload`` when it is recorded after the whistle."""
        return self.engine.after_whistle(self.rules, payload)

    def deduction(self, team: str) -> dict | None:
        """The penalty of three upheld reports against ``team``; None without levels."""
        return self.engine.deduction(self.rules, team)

    # ------------------------------------------------------------------- state

    def state_dict(self, state) -> dict:
        """The state as stored on the table and shown on its page."""
        return self.engine.stored_state(state, self.rules)

    def public_state(self, state) -> dict:
        """The state in ``matches/ID.json`` (Guandan: the public examples' ``expected``
        format)."""
        return self.engine.public_state(state, self.rules)

    def _stored(self, state) -> dict:
        return state if isinstance(state, Mapping) else self.state_dict(state)

    def match_over(self, state) -> bool:
        return bool(self._stored(state).get("match_over"))

    def winner(self, state) -> str | None:
        """``"A"`` (home), ``"B"`` (away) or ``None`` (not over, or a drawn Guandan table)."""
        return self.engine.winner(self._stored(state))

    def decided_by(self, state) -> str | None:
        """How the match ended: "forfeit", "games", "points", "time_levels" …"""
        return self._stored(state).get("decided_by")

    def started(self, state) -> bool:
        """Whether any play is recorded: a deal, a game, a point."""
        return self.engine.started(self._stored(state))

    def score(self, state) -> tuple[str, str]:
        """The scoreboard's two big numbers: levels (Guandan), points (象棋: 1½), games won."""
        return self.engine.score(self._stored(state))

    def games(self, state) -> list[dict] | None:
        """Games in play order in the ``matches/ID.json`` form; ``None`` for Guandan, whose
        record is the deals."""
        return self.engine.games(self._stored(state))

    def games_won(self, state) -> tuple[int, int]:
        """Games won by home and away (xiangqi: games won outright, draws not counted)."""
        return self.engine.games_won(self._stored(state))

    @property
    def margin_heading(self):
        """The standings' column for margin(): 级分, 净胜局, 净胜分 (Words)."""
        return self.engine.MARGIN_HEADING

    def margin(self, state) -> float:
        """Home's margin for standings: 级差 (Guandan), games (rally sports), points (象棋)."""
        return self.engine.margin(self._stored(state))

    def tie_score(self, state) -> tuple[int, int]:
        """The score of a tie that one table decides: the table won (Guandan pairs) or the
        games won (象棋, 羽毛球, 乒乓球)."""
        return self.engine.tie_score(self._stored(state))

    def tie_points(self, state) -> dict | None:
        """A match scored in points (象棋): {"home": 1.5, "away": 0.5}, halves kept;
        ``None`` where the tie is scored in tables or games won (Guandan, 羽毛球, 乒乓球)."""
        return self.engine.tie_points(self._stored(state))

    def points_shown(self, state) -> tuple[str, str] | None:
        """The points of a match scored in points as people write them (1½, ½), for every
        place a chess result is shown; ``None`` for the other sports."""
        if self.tie_points(state) is None:
            return None
        return self.score(state)

    def games_shown(self, state) -> tuple[int, int] | None:
        """A match played at one table as people read its score: the games won (a guandan
        pairs match 2:0 or 2:1, not the 1:0 of the table it won), so far while it is played.
        ``None`` where the games do not say who won — a match won on levels at the time
        limit, a forfeit before a game was finished, a drawn table: its score is then the
        table won."""
        home, away = self.games_won(state)
        if not self.match_over(state):
            return home, away
        winner = self.winner(state)
        if (winner == "A" and home > away) or (winner == "B" and away > home):
            return home, away
        return None

    def live_score(self, tables: Iterable[tuple[Any, bool]]) -> tuple:
        """A tie's score as it stands, from its tables' (state, confirmed): the tables
        confirmed so far (Guandan), or the one table's score (the other sports)."""
        return self.engine.live_score([(self._stored(s), done) for s, done in tables])

    # ------------------------------------------------------------ for people

    def board(self, state, names: Mapping[str, str] | None = None) -> Board:
        """How the table looks (:class:`scoring.engines.board.Board`): what every page that
        shows a table renders; ``names`` keyed by ``"A"``/``"B"``."""
        return self.engine.board(self._stored(state), self.rules, dict(names or {}))

    def sheet(self, items: Iterable[RecordItem], names: Mapping[str, str]) -> Sheet:
        """The record on the paper score sheet (:class:`scoring.engines.board.Sheet`), from
        the table's active events in order."""
        return self.engine.sheet(list(items), self.rules, dict(names))

    @property
    def controls(self) -> Mapping[str, Any]:
        """Which entry controls a referee of this sport uses (``Board.entry`` of a new
        table): deals, games with their score, games with who moved first, points."""
        return self.board(self.initial()).entry

    @property
    def heading(self) -> Words:
        """What a board's two numbers are: 级数 (Guandan), 比分 (games, points)."""
        return self.board(self.initial()).heading

    def table_title(self, number: int, table_number: int | None = None) -> Words:
        """What a table is called: 第2台 · 5号桌 in a team tie, 比赛记录 · 5号台 alone."""
        return self.engine.table_title(number, table_number)

    def table_place(self, number: int, table_number: int | None = None) -> Words | None:
        """Where the table is, for a heading that names the match already (the score
        sheet's): 第2台 · 5号桌, 5号台, or None."""
        return self.engine.table_place(number, table_number)


__all__ = ["ENGINES", "KINDS", "Scorer", "kind_of", "preset_choices", "scorer_for"]
