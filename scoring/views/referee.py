"""我的台: a referee's own tables, in time order, each with its state and the QR code of its
page; the next table to play is highlighted. A referee's login lands here."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from scoring.selectors import (
    TABLE_STATE_LABELS,
    open_calls,
    referee_tables,
    refereed_by,
    table_heading,
    table_state,
)
from scoring.services.common import side_names
from tournaments.access import is_chief
from tournaments.models import HallDuty, Official, Tournament

# Tables a referee has nothing more to do at.
DONE = ("submitted", "confirmed", "walkover")


@login_required
@require_safe
def my_tables(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    official = (
        Official.objects.filter(tournament=tournament, user=request.user)
        .order_by("role", "pk")
        .first()
    )
    if official is None and not request.user.is_superuser:
        raise PermissionDenied("Officials of this tournament only.")
    tables = referee_tables(tournament, request.user)
    engines = {}
    next_found = False
    for table in tables:
        event = table.match.round.stage.event
        engine = engines.get(event.pk) or engines.setdefault(event.pk, event.scorer())
        table.list_state = table_state(table, engine)
        table.state_label = TABLE_STATE_LABELS[table.list_state]
        table.heading = table_heading(table)
        table.names = side_names(table)
        table.is_next = False
        if not next_found and table.list_state not in DONE and not table.match.is_decided:
            table.is_next = next_found = True
    calls = open_calls(tournament, refereed_by(request.user))
    called = {c.table_id for c in calls}
    for table in tables:
        table.called = table.pk in called
    for call in calls:
        call.table.names = side_names(call.table)
    return render(
        request,
        "scoring/my_tables.html",
        {
            "calls": calls,
            "tournament": tournament,
            "official": official,
            "tables": tables,
            "duties": (
                HallDuty.objects.filter(official=official).select_related("venue")
                if official
                else []
            ),
            "chief": is_chief(request.user, tournament),
        },
    )
