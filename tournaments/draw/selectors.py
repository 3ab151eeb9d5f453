"""Reads of the draw: the current draw and its active entries, group and Swiss tables, placings."""

from __future__ import annotations

from django.db.models import Q

from tournaments.draw.plan import AWAY, HOME
from tournaments.draw.rules import groups as group_rules
from tournaments.draw.rules import standings as ranking
from tournaments.models import Draw, Entry, Event, Match, Stage


def active_entries(event: Event) -> list[Entry]:
    return list(
        event.entries.filter(status=Entry.Status.REGISTERED).select_related("unit").order_by("pk")
    )


def current_draw(event: Event) -> Draw | None:
    return event.draws.filter(undone_at__isnull=True).first()


def _results_of(matches) -> list[ranking.MatchResult]:
    results = []
    for m in matches:
        if m.status == Match.Status.BYE:
            results.append(ranking.MatchResult(m.home_id, None, m.home_id))
        elif m.is_decided and m.home_id and m.away_id:
            winner = m.home_id if m.winner == HOME else m.away_id if m.winner == AWAY else None
            results.append(
                ranking.MatchResult(
                    m.home_id, m.away_id, winner, m.home_level_points, m.away_level_points
                )
            )
    return results


def group_tables(stage: Stage, matches: list[Match] | None = None):
    """[(group label, [StandingRow …]) …] for a round-robin stage."""
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    points = tuple(stage.settings.get("points", (2, 1, 0)))
    tables = []
    for g, members in enumerate(stage.settings.get("groups", [])):
        label = group_rules.group_label(g)
        results = _results_of(m for m in matches if m.group == label)
        tables.append((label, ranking.standings(members, results, points=points)))
    return tables


def swiss_table(stage: Stage, matches: list[Match] | None = None) -> dict[int, dict]:
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    points = stage.settings.get("points", (2, 1, 0))
    table: dict[int, dict] = {}

    def row(pk):
        return table.setdefault(
            pk, {"match_points": 0, "level_points": 0.0, "opponents": set(), "byes": 0}
        )

    for m in matches:
        if m.status == Match.Status.BYE:
            row(m.home_id)["match_points"] += points[0]
            row(m.home_id)["byes"] += 1
        elif m.is_decided and m.home_id and m.away_id:
            for pk, other, side in ((m.home_id, m.away_id, HOME), (m.away_id, m.home_id, AWAY)):
                r = row(pk)
                r["opponents"].add(other)
                r["match_points"] += (
                    points[1] if not m.winner else points[0] if m.winner == side else points[2]
                )
                r["level_points"] += m.home_level_points if side == HOME else m.away_level_points
        else:
            for pk, other in ((m.home_id, m.away_id), (m.away_id, m.home_id)):
                if pk:
                    row(pk)["opponents"].add(other)
    return table


def swiss_standings(stage: Stage, matches: list[Match] | None = None) -> list[dict]:
    """The Swiss table after the rounds played (section 10 tie-breaks)."""
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    members = sorted({pk for m in matches for pk in (m.home_id, m.away_id) if pk})
    points = tuple(stage.settings.get("points", (2, 1, 0)))
    rows = ranking.standings(members, _results_of(matches), points=points)
    return [{"rank": r.rank, "entry": r.entry, "row": r} for r in rows]


def placings(
    event: Event, matches: list[Match] | None = None, *, all_places: bool = False
) -> list[tuple[int, Entry]]:
    """Final places 1–4 once known: from the final and the 季军争夺战 of the last knockout,
    or from the table of a groups/Swiss event without a knockout.

    ``all_places``: once the event is decided, every place its brackets give as well —
    the losers of one knockout round share a place (the four quarter-final losers are all
    5th, the losers of the 1/8 finals all 9th …), an earlier stage's too (a preliminary
    knockout's losers, a Swiss preliminary's entries that did not qualify by their Swiss
    rank). Groups that did not advance get no place. A place that rests on a match under
    review is held back (:func:`placings_and_review`)."""
    return placings_and_review(event, matches, all_places=all_places)[0]


def placings_and_review(
    event: Event, matches: list[Match] | None = None, *, all_places: bool = False
) -> tuple[list[tuple[int, Entry]], list[int]]:
    """:func:`placings`, and the places held back until the chief referee's review."""
    draw = current_draw(event)
    if draw is None:
        return [], []
    stages = list(draw.stages.order_by("order"))
    if not stages:
        return [], []
    if all_places:
        matches = list(
            Match.objects.filter(round__stage__draw=draw).select_related("home", "away", "round")
        )
    elif matches is None:
        matches = list(
            Match.objects.filter(round__stage=stages[-1]).select_related("home", "away", "round")
        )
    # A knockout's places are its matches' entries; a table's come from the entries.
    needed = all_places or stages[-1].format != Stage.Format.KNOCKOUT
    entries = {e.pk: e for e in event.entries.all()} if needed else {}
    return places_and_review(stages, matches, entries, all_places=all_places)


def under_review(matches: list[Match]) -> set[int]:
    """The matches under review: those flagged for the chief referee after a correction
    upstream (``needs_review``), and every match played or under way whose entrants came
    through one of them (the final after a flagged semi-final …). Nothing is read: the
    knockout wiring of the matches given."""
    by_id = {m.pk: m for m in matches}
    found: set[int] = set()
    for match in matches:
        if match.needs_review and match.pk not in found:
            found.add(match.pk)
            found |= {m.pk for m in depending_on(match, by_id)}
    return found


def depending_on(match: Match, by_id: dict[int, Match]) -> list[Match]:
    """The matches played or under way downstream of ``match`` (its winner's and loser's
    next matches, theirs, …), in the order reached; ``by_id``: its stage's matches."""
    found: list[Match] = []
    queue = [match]
    while queue:
        current = queue.pop(0)
        for target in (by_id.get(current.winner_to_id), by_id.get(current.loser_to_id)):
            if target is not None and target.status in PLAYED_OR_UNDER_WAY and target not in found:
                found.append(target)
                queue.append(target)
    return found


PLAYED_OR_UNDER_WAY = (Match.Status.IN_PROGRESS, Match.Status.FINISHED, Match.Status.WALKOVER)


def undecided_feeder(match: Match) -> Match | None:
    """A match feeding ``match`` that has no result now (played on after a correction, or
    voided and replayed): until it has one, who should play ``match`` is not known."""
    return (
        Match.objects.filter(Q(winner_to=match) | Q(loser_to=match))
        .exclude(status__in=[Match.Status.FINISHED, Match.Status.WALKOVER, Match.Status.BYE])
        .select_related("home", "away", "round__stage")
        .order_by("pk")
        .first()
    )


def is_under_review(match: Match) -> bool:
    """Whether one match is under review (:func:`under_review`): one query, its stage's
    matches, unless it is flagged itself."""
    if match.needs_review:
        return True
    if match.status not in PLAYED_OR_UNDER_WAY:
        return False
    return match.pk in under_review(
        list(Match.objects.filter(round__stage_id=match.round.stage_id))
    )


def places_of(
    stages: list[Stage], matches: list[Match], entries: dict[int, Entry], *, all_places=False
) -> list[tuple[int, Entry]]:
    """:func:`placings` from rows already loaded (no query): the draw's stages in order,
    matches with their round (every stage's with ``all_places``, else at least the last
    stage's) and the event's entries by id."""
    return places_and_review(stages, matches, entries, all_places=all_places)[0]


def places_and_review(
    stages: list[Stage], matches: list[Match], entries: dict[int, Entry], *, all_places=False
) -> tuple[list[tuple[int, Entry]], list[int]]:
    """:func:`places_of`, and the places held back because the match they come from is
    under review (:func:`under_review`): shown as 待复核, never given to anyone meanwhile."""
    if not stages:
        return [], []
    review = under_review(matches)
    last = stages[-1]
    mine = [m for m in matches if m.round.stage_id == last.pk]
    out = _podium(last, mine, entries, review)
    if not all_places or not out or not all(m.is_decided for m in matches):
        return _settled(out)
    placed = {entry.pk for _rank, entry, _source in out}
    more: list[tuple[int, int, bool]] = []
    for stage in reversed(stages):
        stage_matches = [m for m in matches if m.round.stage_id == stage.pk]
        if stage.format == Stage.Format.KNOCKOUT:
            total = stage.settings.get("total_rounds") or max(
                (m.round.number for m in stage_matches), default=0
            )
            for m in stage_matches:
                loser = m.loser_entry
                if m.is_third_place or loser is None or m.status == Match.Status.BYE:
                    continue
                # Losing in round r of a bracket of 2^total: 2^(total - r) entries go on.
                # (A main knockout's semi-final losers are on the podium already.)
                semi = m.round.number == total - 1
                if m.round.number < total - 1 or (semi and stage.settings.get("stop_at")):
                    more.append((2 ** (total - m.round.number) + 1, loser.pk, m.pk in review))
        elif stage.format == Stage.Format.SWISS:
            above = len(placed) + len({pk for _r, pk, _h in more})
            held = any(m.pk in review for m in stage_matches)
            for row in swiss_standings(stage, stage_matches):
                more.append((max(row["rank"], above + 1), row["entry"], held))
    for rank, pk, held in sorted(more):
        if pk not in placed and pk in entries:
            placed.add(pk)
            out.append((rank, entries[pk], held))
    return _settled(out)


def _settled(places: list[tuple[int, Entry, bool]]) -> tuple[list[tuple[int, Entry]], list[int]]:
    """The places given, and the ranks held back for review. A disqualified entry (取消资格)
    receives no place — and so no prize or 纪念奖; the others keep the places the bracket
    gives them (the disqualified one's stays empty). No entry is placed twice: a place
    held back is given to no one, and an entry keeps only its best place."""
    given: list[tuple[int, Entry]] = []
    held: list[int] = []
    seen: set[int] = set()
    for rank, entry, under in sorted(places, key=lambda p: p[0]):
        if under:
            held.append(rank)
        elif entry.status != Entry.Status.DISQUALIFIED and entry.pk not in seen:
            seen.add(entry.pk)
            given.append((rank, entry))
    return given, sorted(held)


def _podium(last: Stage, matches: list[Match], entries: dict[int, Entry], review: set[int]):
    """(place, entry, held back for review) of places 1–4."""
    if last.format == Stage.Format.KNOCKOUT:
        if last.settings.get("stop_at"):
            return []
        final_round = max((m.round.number for m in matches), default=0)
        final = next(
            (m for m in matches if m.round.number == final_round and not m.is_third_place), None
        )
        third = next((m for m in matches if m.is_third_place), None)
        out = []
        if final and final.is_decided and final.winner_entry:
            held = final.pk in review
            out += [(1, final.winner_entry, held)]
            if final.loser_entry:
                out += [(2, final.loser_entry, held)]
        if third and third.is_decided and third.winner_entry:
            held = third.pk in review
            out += [(3, third.winner_entry, held)]
            if third.loser_entry:
                out += [(4, third.loser_entry, held)]
        elif final and final.is_decided and not third:
            semis = [m for m in matches if m.round.number == final_round - 1 and m.loser_entry]
            out += [(3, m.loser_entry, m.pk in review) for m in semis]
        return out
    if not all(m.is_decided for m in matches):
        return []
    if last.format == Stage.Format.SWISS:
        if len({m.round.number for m in matches}) < last.settings.get("rounds", 0):
            return []
        held = any(m.pk in review for m in matches)
        return [
            (row["rank"], entries[row["entry"]], held) for row in swiss_standings(last, matches)[:4]
        ]
    return []
