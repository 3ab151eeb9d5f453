"""The printed documents, as PDFs: inline (a print view) or, with ?download=1, a download;
the bracket, the results and the units' standings also as pictures to share (PNG), each with
its PDF's permission, laid out from the same template on a phone-wide page; a big round's
score sheets built in the background, their page showing the progress."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_safe

from guandan_cup.inputs import SMALL_INT, whole_number
from scoring.services.confirmation import is_official
from tournaments.access import get_event, get_public_tournament
from tournaments.day import selectors as day_selectors
from tournaments.documents import build as documents
from tournaments.documents import sheets
from tournaments.documents.pdf import pdf_response, render_pdf
from tournaments.documents.picture import picture_page, png_response, tournament_picture
from tournaments.documents.unit_results import standings_context, unit_results_context
from tournaments.live.http import live_response
from tournaments.models import SheetBuild, Tournament

# How often the score sheets' page asks how far their build is, in seconds.
SHEETS_POLL_SECONDS = 2


def _send(request, template: str, context: dict, filename: str, split: str = "") -> HttpResponse:
    pdf = render_pdf(template, context, request=request, split=split)
    return pdf_response(pdf, filename, download="download" in request.GET)


@require_safe
def draw_pdf(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    event = get_event(get_public_tournament(request, slug), event_slug)
    return _send(
        request, "pdf/draw.html", documents.draw_context(event), f"{slug}-{event_slug}-draw.pdf"
    )


@require_safe
def bracket_pdf(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    event = get_event(get_public_tournament(request, slug), event_slug)
    return _send(
        request,
        "pdf/bracket.html",
        documents.bracket_context(event),
        f"{slug}-{event_slug}-bracket.pdf",
    )


@require_safe
@live_response("bracket-png", compress=False)
def bracket_png(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    """The bracket as one tall picture: rendered once per version and language, then 304s
    and cached copies like the live bracket page."""
    event = get_event(get_public_tournament(request, slug), event_slug)
    context = documents.bracket_context(event, picture=True)
    return png_response(render_pdf("pdf/bracket.html", context, request=request))


@require_safe
def scoresheets_pdf(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    """A round's score sheets; a round of more than ``sheets.SYNC_SHEETS`` tables is built in
    the background: its finished file, else its page (which builds it, showing progress)."""
    event = get_event(get_public_tournament(request, slug), event_slug)
    raw = request.GET.get("round", "")
    round_number = whole_number(raw, maximum=SMALL_INT)
    links = players_links(request, event.tournament)
    if sheets.sheet_count(event, round_number) > sheets.SYNC_SHEETS:
        build = sheets.finished(event, sheets.reader_of(request, round_number, links))
        if build is None:
            return redirect(_sheets_page_url(event, round_number))
        return _build_response(request, build)
    context = documents.scoresheet_context(
        event, request, round_number=round_number, players_links=links
    )
    response = _send(
        request,
        "pdf/scoresheets.html",
        context,
        f"{slug}-{event_slug}-scoresheets.pdf",
        split="sheets",  # a round's 256 sheets are rendered on the idle cores
    )
    if links:
        patch_cache_control(response, private=True, no_store=True)
    return response


def _sheets_page_url(event, round_number: int | None) -> str:
    url = reverse("documents:scoresheets", args=[event.tournament.slug, event.slug])
    return url + (f"?round={round_number}" if round_number is not None else "")


def _build_response(request, build: SheetBuild) -> HttpResponse:
    event = build.event
    name = f"{event.tournament.slug}-{event.slug}-scoresheets.pdf"
    with translation.override(build.language):
        response = pdf_response(bytes(build.pdf), name, download="download" in request.GET)
    if build.players_links:
        patch_cache_control(response, private=True, no_store=True)
    return response


@require_safe
def scoresheets_page(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    """记分表 of a round, built once per version of the event: the page starts the build,
    shows how many sheets are done (htmx asks again every 2 s), then offers the file; a
    failed build says so and is offered again (``?again=1``)."""
    tournament = get_public_tournament(request, slug)
    event = get_event(tournament, event_slug)
    round_number = whole_number(request.GET.get("round", ""), maximum=SMALL_INT)
    reader = sheets.reader_of(request, round_number, players_links(request, tournament))
    build = sheets.current(event, reader)
    if build is not None and build.state == SheetBuild.State.FAILED and "again" in request.GET:
        sheets.again(build)
        return redirect(_sheets_page_url(event, round_number))
    if build is None:
        build = sheets.start(event, reader)
    context = {
        "tournament": tournament,
        "event": event,
        "round_number": round_number,
        "build": build,
        "page_url": _sheets_page_url(event, round_number),
        "poll_seconds": SHEETS_POLL_SECONDS,
        "official": is_official(request.user, tournament),
    }
    template = "tournaments/scoresheets.html" + ("#build_status" if request.htmx else "")
    response = render(request, template, context)
    # What it shows moves on while the sheets build, and is the reader's own.
    patch_cache_control(response, private=True, no_store=True)
    return response


@require_safe
def scoresheets_file(request: HttpRequest, slug: str, event_slug: str, build_id: int):
    """A finished build's PDF: a copy with the players' links only for the officials."""
    tournament = get_public_tournament(request, slug)
    event = get_event(tournament, event_slug)
    build = get_object_or_404(
        SheetBuild.objects.select_related("event__tournament"),
        pk=build_id,
        event=event,
        state=SheetBuild.State.DONE,
    )
    if build.players_links and not players_links(request, tournament):
        raise Http404("Not this reader's copy")
    return _build_response(request, build)


def players_links(request, tournament: Tournament) -> bool:
    """Whether the tables' QR codes printed for this reader are the players' links (扫码录分):
    for the tournament's officials when its players enter results; the public's copy has
    the tables' public pages."""
    return tournament.result_entry != Tournament.ResultEntry.REFEREES and is_official(
        request.user, tournament
    )


@login_required
@require_safe
def table_cards_pdf(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    """桌卡: one card per table of a round, its players' link as a big QR code, for the desk
    to set on the tables (the tournament's officials; their players enter results)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_official(request.user, tournament):
        raise PermissionDenied("Officials only.")
    event = get_event(tournament, event_slug)
    round_number = whole_number(request.GET.get("round", ""), maximum=SMALL_INT)
    context = documents.scoresheet_context(
        event, request, round_number=round_number, players_links=players_links(request, tournament)
    )
    response = _send(request, "pdf/tablecards.html", context, f"{slug}-{event_slug}-tablecards.pdf")
    patch_cache_control(response, private=True, no_store=True)
    return response


def _results(tournament: Tournament) -> dict:
    return {**documents.results_context(tournament), **unit_results_context(tournament)}


@require_safe
def results_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_public_tournament(request, slug)
    return _send(request, "pdf/results.html", _results(tournament), f"{slug}-results.pdf")


@require_safe
def results_png(request: HttpRequest, slug: str) -> HttpResponse:
    """The results announcement (every event's places and prizes, the units' standings) as
    one tall picture; the certificates stay on paper."""
    tournament = get_public_tournament(request, slug)

    def pdf() -> bytes:
        context = {**_results(tournament), "certificates": [], "unit_certificates": []}
        context["picture"] = picture_page()
        return render_pdf("pdf/results.html", context, request=request)

    return tournament_picture(request, tournament, "results-png", pdf)


@require_safe
def standings_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    """The units' standings (团体总分) alone, as results.pdf prints them."""
    tournament = get_public_tournament(request, slug)
    return _send(
        request, "pdf/standings.html", standings_context(tournament), f"{slug}-standings.pdf"
    )


@require_safe
def standings_png(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_public_tournament(request, slug)

    def pdf() -> bytes:
        context = {**standings_context(tournament), "picture": picture_page()}
        return render_pdf("pdf/standings.html", context, request=request)

    return tournament_picture(request, tournament, "standings-png", pdf)


@require_safe
def day_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    """The day plan for the wall: one page per hall, A4 landscape (``?size=A3`` for A3)."""
    tournament = get_public_tournament(request, slug)
    size = "A3" if request.GET.get("size", "").upper() == "A3" else "A4"
    context = {
        "tournament": tournament,
        "line": day_selectors.timeline(tournament, with_duties=True),
        "page_size": size,
        "font_pt": 11 if size == "A3" else 9,
    }
    return _send(request, "pdf/day.html", context, f"{slug}-schedule.pdf")
