"""Team leaders (领队) register their unit's entries; organisers may do the same for any unit."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournaments.access import (
    check_not_hidden,
    get_entry_for_registrant,
    get_event,
    get_unit_for_registrant,
    is_organiser,
    leader_unit_ids,
)
from tournaments.draw.status import event_finished
from tournaments.models import Entry, Event, Tournament, Unit
from tournaments.registration.forms import EntryWebForm, WithdrawForm
from tournaments.registration.services import (
    RegistrationError,
    deadline_passed,
    register_entries,
    update_entry,
    withdraw_entry,
)
from tournaments.standings.day import unit_day
from tournaments.standings.selectors import standings


def _closed_reason(tournament: Tournament, event: Event, organiser: bool) -> str:
    """Why this user cannot add an entry now, or '' if they can."""
    if event.entries_locked:
        return _("已抽签：配对选手不得重组，只能退赛。")
    if organiser:
        return ""
    if tournament.status != Tournament.Status.REGISTRATION_OPEN:
        return _("现在不接受报名（%(status)s）。") % {"status": tournament.get_status_display()}
    if deadline_passed(tournament):
        return _("报名已截止；如需现场报名请联系组织者。")
    return ""


def _section(tournament, event, unit, organiser, entries, form=None) -> dict:
    closed = _closed_reason(tournament, event, organiser)
    if form is None and not closed:
        initial = {"on_site": deadline_passed(tournament)} if organiser else None
        form = EntryWebForm(
            event=event, unit=unit, organiser=organiser, initial=initial, prefix=event.slug
        )
    return {"event": event, "entries": entries, "form": form, "closed": closed}


@login_required
@require_safe
def register_home(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    organiser = is_organiser(request.user, tournament)
    units = (
        tournament.units.all()
        if organiser
        else tournament.units.filter(pk__in=leader_unit_ids(request.user, tournament))
    )
    units = list(units)
    if not units:
        raise PermissionDenied("Not a team leader of this tournament.")
    if len(units) == 1 and not organiser:
        return redirect("registration:unit", slug=slug, unit_id=units[0].pk)
    return render(
        request, "tournaments/register/home.html", {"tournament": tournament, "units": units}
    )


def _unit_page(
    request, tournament, unit, organiser, leader=True, *, failed=None, status=200
) -> HttpResponse:
    """The unit's day, public: each entry with its next match, results and place, and the
    unit's standing; with the registration controls for its leader and the organisers.
    ``failed`` = (event, form, problems) to show again."""
    can_register = organiser or leader
    st = standings(tournament)
    day = unit_day(st, unit)
    events = sorted((d.event for d in st.days.values()), key=lambda e: (e.order, e.pk))
    entries = list(
        Entry.objects.with_people().filter(pk__in=list(day.entries)).order_by("event_id", "pk")
    )
    for entry in entries:
        entry.day = day.entries[entry.pk]
    sections = []
    for event in events:
        mine = [e for e in entries if e.event_id == event.pk]
        if not can_register:
            if mine:
                sections.append({"event": event, "entries": mine, "form": None, "closed": ""})
            continue
        if failed and failed[0].pk == event.pk:
            section = _section(tournament, event, unit, organiser, mine, failed[1])
            section["problems"] = failed[2]
        else:
            section = _section(tournament, event, unit, organiser, mine)
        sections.append(section)
    for section in sections:
        # 退赛 is no longer offered once the event has its placings (the server refuses it).
        section["finished"] = st.days[section["event"].pk].finished
    return render(
        request,
        "tournaments/register/unit.html",
        {
            "tournament": tournament,
            "unit": unit,
            "sections": sections,
            "organiser": organiser,
            "can_register": can_register,
            "day": day,
            "deadline_passed": deadline_passed(tournament),
        },
        status=status,
    )


@require_safe
def unit_entries(request: HttpRequest, slug: str, unit_id: int) -> HttpResponse:
    """Public read-only; its leader and the organisers also get the registration controls."""
    tournament = get_object_or_404(Tournament, slug=slug)
    unit = get_object_or_404(Unit, tournament=tournament, pk=unit_id)
    organiser = is_organiser(request.user, tournament)
    leader = unit.pk in leader_unit_ids(request.user, tournament)
    check_not_hidden(request.user, tournament, leader=leader)
    return _unit_page(request, tournament, unit, organiser, leader)


@login_required
@require_POST
def add_entry(request: HttpRequest, slug: str, unit_id: int, event_slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    unit, organiser = get_unit_for_registrant(request, tournament, unit_id)
    event = get_event(tournament, event_slug)
    form = EntryWebForm(
        request.POST, event=event, unit=unit, organiser=organiser, prefix=event.slug
    )
    problems, saved = [], ""
    if form.is_valid():
        try:
            register_entries(
                event=event,
                forms=[form.entry_form()],
                user=request.user,
                organiser=organiser,
                leader_units=leader_unit_ids(request.user, tournament),
            )
        except RegistrationError as err:
            problems = form.show_problems(err.problems)
        else:
            saved = _("已为%(unit)s报名%(event)s。") % {"unit": unit.name, "event": event.name}
            if not request.htmx:
                messages.success(request, saved)
                return redirect("registration:unit", slug=slug, unit_id=unit.pk)
            form = None
    status = 422 if form is not None else 200
    if not request.htmx:
        return _unit_page(
            request, tournament, unit, organiser, failed=(event, form, problems), status=status
        )
    entries = list(Entry.objects.with_people().filter(unit=unit, event=event).order_by("pk"))
    section = _section(tournament, event, unit, organiser, entries, form)
    section["problems"] = problems
    section["saved"] = saved
    # htmx swaps only this event's section; a 422 is swapped too (htmx-config in base.html).
    return render(
        request,
        "tournaments/register/unit.html#event_section",
        {
            "tournament": tournament,
            "unit": unit,
            "section": section,
            "organiser": organiser,
            "can_register": True,
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def edit_entry(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    entry, organiser = get_entry_for_registrant(request, tournament, entry_id)
    entry = Entry.objects.with_people().get(pk=entry.pk)
    event = entry.event
    problems = []
    if request.method == "POST":
        form = EntryWebForm(request.POST, event=event, unit=entry.unit, organiser=False)
        if form.is_valid():
            try:
                update_entry(
                    entry=entry,
                    form=form.entry_form(),
                    user=request.user,
                    organiser=organiser,
                    leader_units=leader_unit_ids(request.user, tournament),
                )
            except RegistrationError as err:
                problems = form.show_problems(err.problems)
            else:
                messages.success(request, _("已修改%(entry)s的报名。") % {"entry": entry.name})
                return redirect("registration:unit", slug=slug, unit_id=entry.unit_id)
    else:
        form = EntryWebForm(
            initial=EntryWebForm.initial_for(entry), event=event, unit=entry.unit, organiser=False
        )
    return render(
        request,
        "tournaments/register/entry_edit.html",
        {
            "tournament": tournament,
            "entry": entry,
            "form": form,
            "problems": problems,
            "locked": event.entries_locked,
            "finished": event_finished(event),
            "withdraw_form": WithdrawForm(),
        },
        status=422 if problems or (request.method == "POST" and not form.is_valid()) else 200,
    )


@login_required
@require_POST
def withdraw(request: HttpRequest, slug: str, entry_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    entry, organiser = get_entry_for_registrant(request, tournament, entry_id)
    form = WithdrawForm(request.POST)
    try:
        if not form.is_valid():
            raise RegistrationError([])
        withdraw_entry(entry=entry, reason=form.cleaned_data["reason"], user=request.user)
    except RegistrationError as err:
        for problem in err.problems or [_("请填写退赛原因。")]:
            messages.error(request, str(problem))
    else:
        messages.success(request, _("%(entry)s已退赛，记录保留。") % {"entry": entry.name})
    if organiser and request.POST.get("next") == "manage":
        return redirect("manage:entries", slug=slug)
    return redirect("registration:unit", slug=slug, unit_id=entry.unit_id)


@login_required
@require_safe
def unit_form(request: HttpRequest, slug: str, unit_id: int, event_slug: str) -> HttpResponse:
    """下载本单位报名表: the event's form with the unit's name in its example row, for the
    leader to fill in (the 工会文体委员's form of the notices) and import from the unit page."""
    from tournaments.registration.spreadsheets.template import template_workbook
    from tournaments.registration.spreadsheets.upload import xlsx_response

    tournament = get_object_or_404(Tournament, slug=slug)
    unit, _organiser = get_unit_for_registrant(request, tournament, unit_id)
    event = get_event(tournament, event_slug)
    return xlsx_response(
        template_workbook(event, unit=unit),
        f"{tournament.slug}-{event.slug}-{unit.name}-报名表.xlsx",
    )


@login_required
@require_http_methods(["GET", "POST"])
def unit_import(request: HttpRequest, slug: str, unit_id: int, event_slug: str) -> HttpResponse:
    """用报名表导入: the unit's own filled-in form, checked row by row, then imported once
    confirmed — a leader held to the leader's rules, every row the unit's."""
    from tournaments.registration.spreadsheets.imports import import_workbook
    from tournaments.registration.spreadsheets.upload import import_flow

    tournament = get_object_or_404(Tournament, slug=slug)
    unit, organiser = get_unit_for_registrant(request, tournament, unit_id)
    event = get_event(tournament, event_slug)
    return import_flow(
        request,
        session_key=f"import:{event.pk}:unit:{unit.pk}",
        run=lambda data, dry_run: import_workbook(
            event=event, data=data, user=request.user, dry_run=dry_run, unit=unit
        ),
        context={
            "tournament": tournament,
            "event": event,
            "unit": unit,
            "closed": _closed_reason(tournament, event, organiser),
        },
        done=reverse("registration:unit", args=[slug, unit.pk]),
    )
