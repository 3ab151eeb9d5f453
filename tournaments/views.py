"""The public front door: the list of tournaments and a tournament's notice page (and PDF)."""

from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from tournaments.access import get_public_tournament, is_chief, is_organiser, leader_unit_ids
from tournaments.documents.notice import notice_blocks
from tournaments.documents.pdf import pdf_response, render_pdf
from tournaments.documents.share import share_tags
from tournaments.manage.services import may_create_tournaments
from tournaments.models import Entry, Official, Round, Tournament


@require_safe
def tournament_list(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.annotate(event_count=Count("events"))
    if not request.user.is_staff:
        # Drafts only for staff and for those who organise them.
        mine = Q(officials__user=request.user, officials__role=Official.Role.ORGANISER)
        visible = ~Q(status=Tournament.Status.DRAFT)
        if request.user.is_authenticated:
            visible |= Q(pk__in=Tournament.objects.filter(mine).values("pk"))
        tournaments = tournaments.filter(visible)
    return render(
        request,
        "tournaments/list.html",
        {"tournaments": tournaments, "may_create": may_create_tournaments(request.user)},
    )


def _notice_context(tournament: Tournament) -> dict:
    events = tournament.events.select_related("venue").annotate(
        entry_count=Count(
            "entries", filter=Q(entries__status=Entry.Status.REGISTERED), distinct=True
        ),
    )
    return {
        "tournament": tournament,
        "notice_blocks": notice_blocks(tournament.notice_text),
        "rules_blocks": notice_blocks(tournament.rules_text),
        "events": events,
        "venues": tournament.venues.all(),
        "officials": tournament.officials.all(),
        "schedule": _schedule(tournament),
    }


def _schedule(tournament: Tournament) -> list[dict]:
    """The notice's dates, then each drawn round's start time."""
    items = tournament.schedule()
    rounds = (
        Round.objects.filter(
            stage__event__tournament=tournament, stage__draw__undone_at__isnull=True
        )
        .exclude(starts_at=None)
        .select_related("stage__event")
        .order_by("starts_at")
    )
    for rnd in rounds:
        items.append(
            {"at": rnd.starts_at, "what": f"{rnd.stage.event.name} · {rnd.label}", "where": ""}
        )
    return sorted(items, key=lambda item: item["at"])


@require_safe
def tournament_detail(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_public_tournament(request, slug)
    context = _notice_context(tournament)
    context["can_manage"] = is_organiser(request.user, tournament)
    context["can_register"] = context["can_manage"] or bool(
        leader_unit_ids(request.user, tournament)
    )
    # The officials' own pages: the chief referee's desk, a referee's 我的台.
    context["can_desk"] = is_chief(request.user, tournament)
    context["is_official"] = request.user.is_authenticated and (
        Official.objects.filter(tournament=tournament, user=request.user).exists()
    )
    context["share"] = share_tags(request, tournament, "home")
    return render(request, "tournaments/detail.html", context)


@require_safe
def notice_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_public_tournament(request, slug)
    pdf = render_pdf("tournaments/notice_pdf.html", _notice_context(tournament), request=request)
    return pdf_response(pdf, f"{tournament.slug}-notice.pdf", download="download" in request.GET)
