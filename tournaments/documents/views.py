"""The printed documents, as PDFs: inline (a print view) or, with ?download=1, a download."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from guandan_cup.inputs import SMALL_INT, whole_number
from tournaments.access import get_event, get_public_tournament
from tournaments.day import selectors as day_selectors
from tournaments.documents import build as documents
from tournaments.documents.pdf import pdf_response, render_pdf
from tournaments.documents.unit_results import unit_results_context


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
def scoresheets_pdf(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    event = get_event(get_public_tournament(request, slug), event_slug)
    raw = request.GET.get("round", "")
    round_number = whole_number(raw, maximum=SMALL_INT)
    context = documents.scoresheet_context(event, request, round_number=round_number)
    return _send(
        request,
        "pdf/scoresheets.html",
        context,
        f"{slug}-{event_slug}-scoresheets.pdf",
        split="sheets",  # a round's 256 sheets are rendered on the idle cores
    )


@require_safe
def results_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_public_tournament(request, slug)
    context = {**documents.results_context(tournament), **unit_results_context(tournament)}
    return _send(request, "pdf/results.html", context, f"{slug}-results.pdf")


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
