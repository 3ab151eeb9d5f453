"""What goes on each printed document: the draw sheet, the bracket, the table score sheets,
the results announcement and the certificates. Views turn these contexts into PDFs with
``pdf.render_pdf``; nothing here writes."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from functools import cached_property

import segno
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from guandan_cup.words import listing
from tournaments.documents.certificates import certificate_text, certificate_title
from tournaments.draw import selectors as draw_selectors
from tournaments.draw.read import Bracket, load_bracket
from tournaments.draw.rules import knockout
from tournaments.draw.sheet import draw_sheet, swiss_qualifiers
from tournaments.draw.status import event_finished
from tournaments.models import Entry, Event, Stage, Tournament
from tournaments.models.bracket import worded

# Kept in Chinese, as a certificate the organiser worded says them; a document shows them in
# its reader's language ({% translate row.prize %}).
PRIZES = {1: gettext_noop("一等奖"), 2: gettext_noop("二等奖"), 3: gettext_noop("三等奖")}
SOUVENIR = gettext_noop("纪念奖")
PARTICIPATION = gettext_noop("参与奖")
UNDER_REVIEW = gettext_noop("待复核")  # a place resting on a match yet to be reviewed
A4_LANDSCAPE_MAX = 32  # entries per A4 landscape bracket page
A3_LANDSCAPE_MAX = 128  # beyond this the tree is printed a quarter per page


def qr_data_uri(url: str) -> str:
    """A PNG data URI: a bitmap is one image for the PDF, where an SVG is hundreds of paths
    to draw (256 score sheets render several times faster). Four pixels a module, not one
    (a little faster): some PDF viewers ignore ``image-rendering: pixelated`` and would
    blur a tiny bitmap scaled up."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=4, border=1)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class QRCode:
    """A QR code of ``url`` that is made (``qr_data_uri``) when a template first shows it.
    The score sheets' codes are most of the time spent before their PDF is laid out; made
    while the template renders, those of a round rendered in pieces are made beside the
    other pieces' layout (``pdf.render_pdf``)."""

    def __init__(self, url: str):
        self.url = url

    @cached_property
    def data_uri(self) -> str:
        return qr_data_uri(self.url)


def footer_date(tournament: Tournament):
    return tournament.notice_date or timezone.localdate()


# --------------------------------------------------------------------------- draw sheet


def draw_context(event: Event) -> dict:
    bracket = load_bracket(event)
    return {
        "tournament": event.tournament,
        "event": event,
        "bracket": bracket,
        "sheet": draw_sheet(bracket),
        "venues": list(event.tournament.venues.all()),
        "date": footer_date(event.tournament),
    }


# --------------------------------------------------------------------------- bracket


# Printable area of a landscape page below the title, in millimetres.
PAGE_AREA = {"A4 landscape": (273, 148), "A3 landscape": (396, 232)}


@dataclass
class Box:
    match: object
    top: float  # mm from the top of the tree


@dataclass
class Column:
    name: str
    left: float
    boxes: list


@dataclass
class TreePage:
    """One page of the printed tree. Boxes are placed at computed positions (absolute
    positioning): WeasyPrint lays that out in a blink, where nested flexboxes took seconds."""

    title: str
    columns: list
    width: float
    height: float
    column_width: float
    box_height: float
    font_pt: float


# The tree of a bracket's picture (pictures to share): a column this wide for each round and
# this much height for each first-round match, so that names keep the printed size (about
# 30 px high in the 1080-px picture) and a bigger tree grows downwards, as a phone scrolls.
PICTURE_COLUMN_MM = 34
PICTURE_SLOT_MM = 12
PICTURE_TREE_MIN_MM = (108, 60)
# Above and below a tree on its page: the document's title, the stage's, the rounds' heads
# and the line of places.
PICTURE_TREE_FRAME_MM = 45


def _picture_area(rounds) -> tuple[float, float]:
    first = len([m for m in rounds[0][1] if not m.is_third_place]) if rounds else 1
    return (
        max(PICTURE_TREE_MIN_MM[0], len(rounds) * PICTURE_COLUMN_MM),
        max(PICTURE_TREE_MIN_MM[1], first * PICTURE_SLOT_MM),
    )


def _tree_page(title: str, rounds, size: str, *, picture: bool = False) -> TreePage:
    width, height = _picture_area(rounds) if picture else PAGE_AREA[size]
    count = max(1, len(rounds))
    column_width = width / count
    first = max(1, len([m for m in rounds[0][1] if not m.is_third_place])) if rounds else 1
    slot = height / first
    line = min(4.6, slot * 0.45)
    columns = []
    for index, (name, matches) in enumerate(rounds):
        regular = [m for m in matches if not m.is_third_place]
        per = height / max(1, len(regular))
        boxes = [Box(m, i * per + (per - 2 * line) / 2) for i, m in enumerate(regular)]
        for m in (m for m in matches if m.is_third_place):
            # Under the final, in the last column.
            boxes.append(Box(m, min(height - 3 * line, height / 2 + 4 * line)))
        columns.append(Column(name, index * column_width, boxes))
    return TreePage(
        title, columns, width, height, column_width - 4, 2 * line, round(line * 2.835 * 0.72, 1)
    )


def bracket_pages(bracket: Bracket, *, picture: bool = False) -> tuple[str, list[TreePage], list]:
    """(page size, tree pages, standings stages) for the printed bracket: A4 landscape up to
    32 entries, A3 up to 128, beyond that a page per quarter and an overview. ``picture``:
    each tree on a page of its own size (:func:`_picture_area`), for the picture to share."""
    pages: list[TreePage] = []
    size = "A4 landscape"
    others = []
    knockouts = []
    for view in bracket.stages:
        if view.stage.format != Stage.Format.KNOCKOUT:
            others.append(view)
            continue
        rounds = [(rv.round.label, rv.matches) for rv in view.rounds]
        knockouts.append((view.stage.label, rounds))
        if rounds and len(rounds[0][1]) * 2 > A4_LANDSCAPE_MAX:
            size = "A3 landscape"
    for name, rounds in knockouts:
        first = len(rounds[0][1]) * 2 if rounds else 0
        if first <= A3_LANDSCAPE_MAX:
            pages.append(_tree_page(name, rounds, size, picture=picture))
            continue
        for q in range(4):
            part = []
            for round_name, matches in rounds:
                regular = [m for m in matches if not m.is_third_place]
                if len(regular) < 4:
                    break
                per = len(regular) // 4
                part.append((round_name, regular[q * per : (q + 1) * per]))
            quarter = gettext("第%(n)s区") % {"n": q + 1}
            pages.append(_tree_page(f"{name} · {quarter}", part, size, picture=picture))
        overview = [(round_name, matches) for round_name, matches in rounds if len(matches) <= 5]
        last_eight = gettext("八强起")
        pages.append(_tree_page(f"{name} · {last_eight}", overview, size, picture=picture))
    return size, pages, others


def bracket_context(event: Event, *, picture: bool = False) -> dict:
    """The printed bracket; ``picture``: laid out for its picture to share (a phone-wide page
    as wide and tall as the biggest tree, see ``documents.picture``)."""
    from scoring.selectors import show_points

    bracket = load_bracket(event)
    show_points(event, [m for sv in bracket.stages for rv in sv.rounds for m in rv.matches])
    size, pages, others = bracket_pages(bracket, picture=picture)
    for view in others:
        # The groups' names as the reader calls them (A组, Group A).
        view.printed_groups = [(worded(label), rows) for label, rows in view.groups]
        qualifiers = swiss_qualifiers(view.stage) if view.swiss else None
        if qualifiers:
            # A Swiss preliminary's top K and how they meet in the knockout (1–8, 4–5 …).
            order = knockout.ranked_order(knockout.bracket_size(max(qualifiers, 2)))
            view.seeding = listing(
                f"{a}—{b}" if b <= qualifiers else gettext("%(seed)s（轮空）") % {"seed": a}
                for a, b in zip(order[::2], order[1::2], strict=True)
            )
            view.qualifiers = qualifiers
    return {
        "tournament": event.tournament,
        "event": event,
        "bracket": bracket,
        "page_size": size,
        "pages": pages,
        "standings": others,
        "date": footer_date(event.tournament),
        "picture": _bracket_picture_page(pages) if picture else None,
    }


def _bracket_picture_page(pages: list[TreePage]) -> dict:
    from tournaments.documents.picture import PICTURE_MARGIN_MM, picture_page

    widest = max((p.width for p in pages), default=PICTURE_TREE_MIN_MM[0])
    tallest = max((p.height for p in pages), default=0)
    return picture_page(
        width_mm=widest + 2 * PICTURE_MARGIN_MM, height_mm=max(tallest + PICTURE_TREE_FRAME_MM, 400)
    )


# --------------------------------------------------------------------------- score sheets


def scoresheet_tables(event: Event, round_number: int | None = None):
    """The tables that get a score sheet: the current draw's, of one round or all."""
    from scoring.models import TableMatch

    tables = TableMatch.objects.filter(
        match__round__stage__event=event, match__round__stage__draw__undone_at__isnull=True
    )
    if round_number is not None:
        tables = tables.filter(match__round__number=round_number)
    return tables


def scoresheet_context(
    event: Event, request, *, round_number: int | None = None, players_links: bool = False
) -> dict:
    """One sheet per table of the chosen round (default: every round with open tables),
    filled in with what is already recorded. ``players_links``: the QR codes are the tables'
    players' links (for the officials of a tournament whose players enter results)."""
    tables = (
        scoresheet_tables(event, round_number)
        .with_people(
            "match__round__stage", "match__home__unit", "match__away__unit", "match__venue"
        )
        .prefetch_related("events")
        .order_by(
            "match__round__stage__order",
            "match__round__number",
            "match__group",
            "match__index",
            "number",
        )
    )
    engine = event.scorer()
    sheets = []
    for table in tables:
        sheets.append(
            _sheet(
                engine,
                event,
                table,
                request,
                position=len(sheets) + 1,
                players_links=players_links,
            )
        )
    return {
        "tournament": event.tournament,
        "event": event,
        "rules": engine.rules,
        "engine": engine,
        "sheets": sheets,
        "sheet_count": len(sheets),
    }


def _sheet(
    engine, event: Event, table, request, *, position: int, players_links: bool = False
) -> dict:
    """One table's sheet: the engine's record on paper (``Scorer.sheet``), filled in with
    what is recorded so far, and the table's QR code, times and signatures."""
    from scoring.engines.board import RecordItem
    from scoring.selectors import pair_name
    from scoring.services import players

    match = table.match
    names = {
        "A": pair_name(table.home_pair)
        if table.home_pair
        else (match.home.name if match.home_id else ""),
        "B": pair_name(table.away_pair)
        if table.away_pair
        else (match.away.name if match.away_id else ""),
    }
    active = [e for e in sorted(table.events.all(), key=lambda e: e.seq) if e.undone_at is None]
    sheet = engine.sheet([RecordItem(e.payload, e.reason) for e in active], names)
    if players_links:
        address = reverse("scoring:play-table", args=[players.make_code(table)])
    else:
        address = reverse("scoring:table", args=[event.tournament.slug, event.slug, table.pk])
    url = request.build_absolute_uri(address)
    return {
        "entry_words": players.entry_words(table),
        # Which sheet of the stack this is: counted here, as the sheets may be rendered in
        # pieces (pdf.render_pdf), where a page counter would restart.
        "position": position,
        "table": table,
        "place": engine.table_place(table.number, table.table_number),
        "match": match,
        "home": names["A"],
        "away": names["B"],
        "sheet": sheet,
        # The empty rows' numbers, one a line, where the grid's empty rows are one box whose
        # background draws the rules (pdf.css, .blank-deals): a row each made the sheets
        # several times slower to lay out.
        "blank_numbers": "\n".join(str(n) for n, _note in sheet.blanks),
        "qr": QRCode(url),
        "url": url,
        "winner": names.get(table.winner, ""),
        # When the last event (a deal, the whistle, a forfeit) ended it; blank while in play.
        "ended_at": max((e.created_at for e in active), default=None) if sheet.ended else None,
    }


# --------------------------------------------------------------------------- results


def prize_for(rank: int | None, entry: Entry) -> str:
    if entry.participation_award_only:
        return PARTICIPATION
    return PRIZES.get(rank, SOUVENIR)


def results_context(tournament: Tournament) -> dict:
    """Placings and prizes per event, disqualifications, and one certificate per award."""
    from scoring.models import AuditEntry, TableEvent
    from scoring.selectors import ruled_tie_name, table_heading

    events = []
    certificates = []
    for event in tournament.events.all():
        bracket = load_bracket(event)
        # Every place the brackets give (the quarter-final losers all 5th …), as the units'
        # standings count them; only 1–3 earn a prize.
        places, held = (
            draw_selectors.placings_and_review(event, all_places=True)
            if bracket.placing_rows
            else ([], [])
        )
        placed = dict((entry.pk, rank) for rank, entry in places)
        rows = [
            {"rank": rank, "entry": entry, "prize": prize_for(rank, entry)}
            for rank, entry in places
        ]
        # A place resting on a match under review is given to no one until the chief
        # referee's review; the entries of those matches get no award meanwhile either.
        rows += [{"rank": rank, "entry": None, "prize": UNDER_REVIEW} for rank in held]
        rows.sort(key=lambda row: row["rank"])
        reviewed = _entries_under_review(bracket)
        # Everyone else who played gets the souvenir award (纪念奖); withdrawn and
        # disqualified entries get none.
        others = [
            e
            for e in bracket.entries.values()
            if e.pk not in placed
            and e.pk not in reviewed
            and e.status in (Entry.Status.REGISTERED, Entry.Status.ELIMINATED)
        ]
        # …once the event is over: before its last result nobody has an award yet.
        over = event_finished(event)
        for entry in sorted(others, key=lambda e: e.pk):
            rows.append(
                {"rank": None, "entry": entry, "prize": prize_for(None, entry) if over else ""}
            )
        disqualified = [
            e
            for e in bracket.entries.values()
            if e.status in (Entry.Status.DISQUALIFIED, Entry.Status.ELIMINATED)
        ]
        # A table's disqualification, unless its entry is named above already (a pair or a
        # player out of the event): a team's pair that lost only its table.
        out = {e.pk for e in disqualified}
        notes = [
            n
            for n in TableEvent.objects.filter(
                table__match__round__stage__event=event,
                table__voided_at__isnull=True,
                undone_at__isnull=True,
                payload__penalty__kind="disqualify",
            ).select_related(
                "table__home_pair",
                "table__away_pair",
                "table__match__round",
                "table__match__home",
                "table__match__away",
            )
            if _penalised_entry_id(n) not in out
        ]
        for n in notes:
            n.table_name = table_heading(n.table)  # 1/4决赛 · 体育—行政 · 第1台
        rulings = list(
            AuditEntry.objects.filter(
                match__round__stage__event=event,
                action__in=[AuditEntry.Action.RULING, AuditEntry.Action.REPLAY],
            )
            .select_related("match__round", "match__home", "match__away")
            .order_by("created_at", "pk")  # in the order they were made
        )
        for r in rulings:
            r.tie = ruled_tie_name(r)  # the pairing it was made on
        events.append(
            {
                "event": event,
                "rulings": rulings,
                "rows": rows,
                "decided": bool(bracket.placing_rows),
                "under_review": held,
                "drawn": bracket.drawn,
                "disqualified": disqualified,
                "notes": notes,
            }
        )
        for row in rows:
            if row["rank"] in PRIZES and row["entry"] is not None:
                certificates.append(
                    {"event": event, **row, "text": certificate_text(tournament, event, row)}
                )
    return {
        "tournament": tournament,
        "events": events,
        "certificates": certificates,
        # Results are announced on the day of the tournament, not the day of the notice.
        "date": tournament.starts_on,
        "signature": tournament.certificate_signature or tournament.organiser_name,
        "certificate_title": certificate_title(tournament),
    }


def _penalised_entry_id(event) -> int | None:
    """The entry a recorded penalty was given to: its pair's, or the match's side (chess
    and the ball games have no pairs)."""
    team = (event.payload.get("penalty") or {}).get("team")
    table = event.table
    pair = table.home_pair if team == "A" else table.away_pair
    if pair is not None:
        return pair.entry_id
    return table.match.home_id if team == "A" else table.match.away_id


def _entries_under_review(bracket: Bracket) -> set[int]:
    """The entries a review may still place: those of the matches under review, and those
    their feeders now send there (the rightful entry of a flagged match)."""
    matches = [m for sv in bracket.stages for rv in sv.rounds for m in rv.matches]
    review = {m.pk for m in matches if m.under_review}
    found = set()
    for m in matches:
        if m.pk in review:
            found |= {m.home_id, m.away_id}
        for to_id, entry in ((m.winner_to_id, m.winner_entry), (m.loser_to_id, m.loser_entry)):
            if to_id in review and entry is not None:
                found.add(entry.pk)
    return found - {None}
