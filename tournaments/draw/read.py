"""Read a whole event's bracket in a fixed number of queries, for the live page, bracket.json
and the printed documents. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import reverse

from tournaments.draw import selectors as draw_selectors
from tournaments.models import Entry, Event, Match, Round, Stage
from tournaments.models.bracket import worded


@dataclass
class RoundView:
    round: Round
    matches: list[Match]


@dataclass
class StageView:
    stage: Stage
    rounds: list[RoundView]
    groups: list = field(default_factory=list)  # [(label, [StandingRow]), …]
    swiss: list = field(default_factory=list)  # [{"rank", "entry", "row"}, …]


@dataclass
class Bracket:
    event: Event
    stages: list[StageView]
    placings: list[tuple[int, Entry]]
    entries: dict[int, Entry]
    # Places held back while the match they come from is under review (待复核).
    placings_under_review: list[int] = field(default_factory=list)

    @property
    def drawn(self) -> bool:
        return bool(self.stages)

    @property
    def placing_rows(self) -> list[tuple[int, Entry | None]]:
        """The places in order as shown, a place under review with no one (待复核)."""
        rows = [*self.placings, *((rank, None) for rank in self.placings_under_review)]
        return sorted(rows, key=lambda row: row[0])

    @property
    def placing_groups(self) -> list[tuple[int, list[Entry | None]]]:
        """:attr:`placing_rows` by place: the entries that share one (the four quarter-final
        losers all 5th) on one line."""
        return group_places(self.placing_rows)


def group_places(rows) -> list[tuple[int, list]]:
    """``[(rank, entry), …]`` in order as ``[(rank, [entry, …]), …]``."""
    groups: list[tuple[int, list]] = []
    for rank, entry in rows:
        if groups and groups[-1][0] == rank:
            groups[-1][1].append(entry)
        else:
            groups.append((rank, [entry]))
    return groups


def load_bracket(event: Event) -> Bracket:
    """Stages, rounds, matches (with entries and venue) and tables: six queries whatever the
    size of the event."""
    draw = draw_selectors.current_draw(event)
    entries = {e.pk: e for e in Entry.objects.filter(event=event).select_related("unit")}
    if draw is None:
        return Bracket(event=event, stages=[], placings=[], entries=entries)
    stages = list(Stage.objects.filter(draw=draw).order_by("order"))
    rounds = list(Round.objects.filter(stage__draw=draw).order_by("stage__order", "number"))
    matches = list(
        Match.objects.filter(round__stage__draw=draw)
        .select_related("venue")
        .order_by("round__stage__order", "round__number", "group", "index")
    )
    review = draw_selectors.under_review(matches)
    round_by_id = {r.pk: r for r in rounds}
    stage_by_id = {s.pk: s for s in stages}
    for s in stages:
        s.draw = draw  # the plan's options without a query per stage
    for r in rounds:
        r.stage = stage_by_id[r.stage_id]
    for m in matches:
        m.round = round_by_id[m.round_id]
        # Entries come from the one dictionary instead of a join per match.
        m.home = entries.get(m.home_id)
        m.away = entries.get(m.away_id)
        m.under_review = m.pk in review
    label_beside_third_place(matches)
    views = []
    for stage in stages:
        stage_matches = [m for m in matches if m.round.stage_id == stage.pk]
        round_views = [
            RoundView(r, [m for m in stage_matches if m.round_id == r.pk])
            for r in rounds
            if r.stage_id == stage.pk
        ]
        view = StageView(stage, round_views)
        if stage.format == Stage.Format.GROUPS:
            view.groups = [
                (label, [(row, entries[row.entry]) for row in rows])
                for label, rows in draw_selectors.group_tables(stage, stage_matches)
            ]
        elif stage.format == Stage.Format.SWISS:
            view.swiss = [
                {**row, "entry": entries[row["entry"]]}
                for row in draw_selectors.swiss_standings(stage, stage_matches)
            ]
        views.append(view)
    # Every place the event gives, as the units' standings count them: the podium as soon
    # as it is known, then (once every match is decided) the losers of each earlier round
    # sharing a place (5th, 9th …) and an earlier stage's.
    places, held = draw_selectors.places_and_review(stages, matches, entries, all_places=True)
    return Bracket(
        event=event,
        stages=views,
        placings=places,
        entries=entries,
        placings_under_review=held,
    )


def label_beside_third_place(matches) -> None:
    """Where a round holds the 季军争夺战 beside the final, give each of its matches its
    ``label`` — its round as people call it (``Match.round_label``: 决赛, 季军争夺战) — so
    that no list shows two unnamed 待定——待定 under one round; "" for every other match."""
    shared = {m.round_id for m in matches if m.is_third_place}
    for m in matches:
        m.label = m.round_label if m.round_id in shared else ""


def _side(entry: Entry | None) -> dict | None:
    return None if entry is None else {"entry_id": entry.pk, "name": entry.name}


def match_json(event: Event, match: Match) -> dict:
    t = event.tournament.slug
    return {
        "id": match.pk,
        "home": _side(match.home),
        "away": _side(match.away),
        "status": match.status,
        "winner": match.winner or None,
        "score": {"home": match.home_score, "away": match.away_score},
        # 象棋: the points with their halves (1.5, 0.5), set by the page that reads the
        # tables (scoring.selectors.show_points); absent for the other sports.
        **({"points": match.points} if getattr(match, "points", None) is not None else {}),
        # A match at one table of the other sports: the games won (a guandan pairs match
        # 2:0, where ``score`` counts the table won), so far while it is played.
        **({"games_won": match.games_won} if getattr(match, "games_won", None) is not None else {}),
        "url": reverse("live:match-json", args=[t, event.slug, match.pk]),
        "group": match.group_label or None,
        "third_place": match.is_third_place,
        "note": match.note_label or None,
        # A correction upstream changed who should have played it (or one it came through):
        # the chief referee reviews (tournaments.draw.selectors.under_review).
        "under_review": getattr(match, "under_review", match.needs_review),
        "venue": match.venue.name if match.venue_id else None,
        "first_table": match.first_table,
        "scheduled_at": match.scheduled_at.isoformat() if match.scheduled_at else None,
    }


def bracket_json(bracket: Bracket) -> dict:
    event = bracket.event
    stages = []
    for view in bracket.stages:
        stage = {
            "name": view.stage.label,
            "format": view.stage.format,
            "rounds": [
                {
                    "number": rv.round.number,
                    "name": rv.round.label,
                    "starts_at": rv.round.starts_at.isoformat() if rv.round.starts_at else None,
                    "matches": [match_json(event, m) for m in rv.matches],
                }
                for rv in view.rounds
            ],
        }
        if view.groups:
            stage["groups"] = [
                {"name": worded(label), "standings": [_row_json(row, entry) for row, entry in rows]}
                for label, rows in view.groups
            ]
        if view.swiss:
            stage["standings"] = [_row_json(item["row"], item["entry"]) for item in view.swiss]
        stages.append(stage)
    return {
        "tournament": event.tournament.slug,
        "event": event.slug,
        "version": event.version,
        "stages": stages,
        "placings": [
            {"rank": rank, "entry_id": e.pk, "name": e.name} for rank, e in bracket.placings
        ],
        # Places not given while the match they come from is under review.
        "placings_under_review": bracket.placings_under_review,
    }


def _row_json(row, entry: Entry) -> dict:
    return {
        "rank": row.rank,
        "entry_id": entry.pk,
        "name": entry.name,
        "played": row.played,
        "won": row.won,
        "drawn": row.drawn,
        "lost": row.lost,
        "match_points": row.match_points,
        "level_points": row.level_points,
        "opponents_points": row.opponents_points,
        "decided_by": row.decided_by,
    }


def current_round(bracket: Bracket) -> RoundView | None:
    """The round in play: the first with a tie still to be decided whose two sides are
    known; once everything is decided, the last round that had ties."""
    views = [rv for sv in bracket.stages for rv in sv.rounds]
    for rv in views:
        if any(
            m.status in (Match.Status.PENDING, Match.Status.IN_PROGRESS) and m.home_id and m.away_id
            for m in rv.matches
        ):
            return rv
    played = [rv for rv in views if any(m.status != Match.Status.BYE for m in rv.matches)]
    return played[-1] if played else None


def round_by_id(bracket: Bracket, round_id: int) -> RoundView | None:
    return next((rv for sv in bracket.stages for rv in sv.rounds if rv.round.pk == round_id), None)
