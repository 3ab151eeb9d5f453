"""The organiser's pages (组织者): set up the tournament, its events and units, registration."""

from collections import defaultdict

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from guandan_cup import passwords
from guandan_cup.inputs import BIG_INT, whole_number
from tournaments.access import get_event, organiser_required
from tournaments.draw import status as day_status
from tournaments.manage import selectors as setup_selectors
from tournaments.manage import services
from tournaments.manage.forms import (
    EventForm,
    LeaderAccountForm,
    OfficialForm,
    TournamentForm,
    UnitForm,
)
from tournaments.models import Entry, Event, Official, Tournament, Unit
from tournaments.registration.selectors import name_clashes
from tournaments.registration.services import deadline_passed
from tournaments.registration.spreadsheets.upload import import_flow, xlsx_response


@organiser_required
@require_safe
def dashboard(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    from scoring.models import TableMatch

    current = TableMatch.objects.filter(
        match__round__stage__event__tournament=tournament,
        match__round__stage__draw__undone_at__isnull=True,
    )
    waiting = current.filter(status=TableMatch.Status.SUBMITTED).count()
    # A team tie whose every table has its own referee needs none for the tie.
    without = set(current.filter(referee__isnull=True).values_list("match_id", flat=True))
    by_tables = set(current.values_list("match_id", flat=True)) - without
    rows, matches = setup_selectors.event_rows(tournament, refereed_by_tables=by_tables)
    return render(
        request,
        "tournaments/manage/dashboard.html",
        {
            "tournament": tournament,
            "events": rows,
            "steps": setup_selectors.day_steps(
                tournament, rows, matches, waiting_confirmation=waiting
            ),
            "units": tournament.units.count(),
            "deadline_passed": deadline_passed(tournament),
            "name_clashes": name_clashes(tournament),
            "may_go_back_to_draft": not day_status.anything_drawn(tournament),
        },
    )


@organiser_required
@require_POST
def change_status(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    try:
        status = day_status.move_by_hand(
            tournament, request.POST.get("action", ""), confirmed=request.POST.get("confirm") == "1"
        )
    except day_status.StatusError as err:
        messages.error(request, err.message)
    else:
        messages.success(
            request, _("比赛状态已改为“%(status)s”。") % {"status": Tournament.Status(status).label}
        )
    return redirect("manage:dashboard", slug=tournament.slug)


@organiser_required
@require_http_methods(["GET", "POST"])
def edit_tournament(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = TournamentForm(request.POST or None, instance=tournament)
    if request.method == "POST" and form.is_valid():
        form.save()
        tournament.bump_event_versions()
        messages.success(request, _("比赛信息已保存。"))
        return redirect("manage:dashboard", slug=tournament.slug)
    return render(
        request,
        "tournaments/manage/form.html",
        {"tournament": tournament, "form": form, "title": _("比赛信息与通知")},
        status=422 if form.errors else 200,
    )


@organiser_required
@require_http_methods(["GET", "POST"])
def edit_event(
    request: HttpRequest, tournament: Tournament, event_slug: str | None = None
) -> HttpResponse:
    event = get_event(tournament, event_slug) if event_slug else None
    form = EventForm(request.POST or None, instance=event, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        saved = form.save()
        saved.bump_version()
        day_status.follow_status(tournament)  # a new event is not drawn yet
        messages.success(request, _("项目“%(name)s”已保存。") % {"name": saved.name})
        return redirect("manage:dashboard", slug=tournament.slug)
    title = _("修改项目：%(name)s") % {"name": event.name} if event else _("新增项目")
    return render(
        request,
        "tournaments/manage/form.html",
        {"tournament": tournament, "form": form, "title": title},
        status=422 if form.errors else 200,
    )


@organiser_required
@require_http_methods(["GET", "POST"])
def units(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = UnitForm(request.POST or None, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        unit = form.save()
        tournament.bump_event_versions()
        messages.success(request, _("已添加单位“%(name)s”。") % {"name": unit.name})
        return redirect("manage:units", slug=tournament.slug)
    unit_list = tournament.units.prefetch_related("members", "leaders").annotate(
        active=Count("entries", filter=Q(entries__status=Entry.Status.REGISTERED)),
        held=Count("entries"),  # any entry, withdrawn too: such a unit stays
    )
    return render(
        request,
        "tournaments/manage/units.html",
        {
            "tournament": tournament,
            "form": form,
            "units": unit_list,
            "leader_form": LeaderAccountForm(),
        },
        status=422 if form.errors else 200,
    )


def _unit(tournament: Tournament, unit_id: int) -> Unit:
    if whole_number(str(unit_id), maximum=BIG_INT) is None:
        raise Http404("No such unit")
    return get_object_or_404(Unit, tournament=tournament, pk=unit_id)


@organiser_required
@require_http_methods(["GET", "POST"])
def unit_edit(request: HttpRequest, tournament: Tournament, unit_id: int) -> HttpResponse:
    """修改单位: its name (the entries named after it follow) and its kind, or a joint
    team's name and member units (the rules of joint teams, as when it was added)."""
    unit = _unit(tournament, unit_id)
    name = unit.name
    form = UnitForm(request.POST or None, instance=unit, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        try:
            saved = services.save_unit(form=form)
        except services.SetupError as err:
            form.add_error("name", err.message)
        else:
            tournament.bump_event_versions()  # entries, brackets and standings name units
            messages.success(request, _("单位“%(name)s”已保存。") % {"name": saved.name})
            return redirect("manage:units", slug=tournament.slug)
    title = (
        _("修改联队：%(name)s") if unit.kind == Unit.Kind.JOINT else _("修改单位：%(name)s")
    ) % {"name": name}
    return render(
        request,
        "tournaments/manage/form.html",
        {"tournament": tournament, "form": form, "title": title},
        status=422 if form.errors else 200,
    )


@organiser_required
@require_POST
def unit_delete(request: HttpRequest, tournament: Tournament, unit_id: int) -> HttpResponse:
    unit = _unit(tournament, unit_id)
    if request.POST.get("confirm") != "1":
        messages.error(request, _("删除单位须先勾选“确认删除”。"))
        return redirect("manage:units", slug=tournament.slug)
    try:
        services.delete_unit(unit=unit)
    except services.SetupError as err:
        messages.error(request, err.message)
    else:
        tournament.bump_event_versions()
        messages.success(request, _("已删除“%(name)s”。") % {"name": unit.name})
    return redirect("manage:units", slug=tournament.slug)


@organiser_required
@require_POST
def add_leader(request: HttpRequest, tournament: Tournament, unit_id: int) -> HttpResponse:
    unit = get_object_or_404(Unit, tournament=tournament, pk=unit_id)
    form = LeaderAccountForm(request.POST)
    if form.is_valid():
        with transaction.atomic():
            user = get_user_model().objects.create_user(
                username=form.cleaned_data["username"], password=form.cleaned_data["password"]
            )
            unit.leaders.add(user)
        messages.success(
            request,
            _("已为%(unit)s创建领队账号“%(user)s”。") % {"unit": unit.name, "user": user.username},
        )
    else:
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, f"{unit.name}：{error}")
    return redirect("manage:units", slug=tournament.slug)


def _people_of(tournament: Tournament):
    """The accounts of this tournament's team leaders and officials (never staff)."""
    return (
        get_user_model()
        .objects.filter(
            Q(led_units__tournament=tournament) | Q(official_roles__tournament=tournament)
        )
        .filter(is_staff=False, is_superuser=False)
        .distinct()
    )


@organiser_required
@require_POST
def reset_password(request: HttpRequest, tournament: Tournament, user_id: int) -> HttpResponse:
    """A leader or an official lost their password: a new one, shown once, to hand over in
    person (an offline hall has no e-mail). Their other sessions end."""
    user = get_object_or_404(_people_of(tournament), pk=user_id)
    back = "manage:officials" if request.POST.get("back") == "officials" else "manage:units"
    if request.POST.get("confirm") != "1":
        messages.error(request, _("重置密码须先勾选“确认重置”。"))
        return redirect(back, slug=tournament.slug)
    password = passwords.reset_password(user=user, by=request.user).password
    official = Official.objects.filter(tournament=tournament, user=user).first()
    name = official.name if official else user.get_username()
    response = render(
        request,
        "tournaments/manage/new_password.html",
        {
            "tournament": tournament,
            "account": user,
            "name": name,
            "password": password,
            "back": back,
        },
    )
    add_never_cache_headers(response)  # the password is shown once, never kept by a cache
    return response


@organiser_required
@require_safe
def entries(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """All entries by event and by unit: counts, flags, and who is missing what."""
    events = list(tournament.events.all())
    unit_list = list(tournament.units.all())
    all_entries = list(
        Entry.objects.with_people()
        .filter(event__tournament=tournament)
        .select_related("unit")
        .order_by("event_id", "pk")
    )
    by_event = defaultdict(list)
    counts = defaultdict(int)  # (unit, event) -> active entries
    for entry in all_entries:
        by_event[entry.event_id].append(entry)
        if entry.status == Entry.Status.REGISTERED:
            counts[(entry.unit_id, entry.event_id)] += 1
    matrix = [
        {
            "unit": unit,
            "cells": [counts[(unit.pk, event.pk)] for event in events],
            "total": sum(counts[(unit.pk, event.pk)] for event in events),
        }
        for unit in unit_list
    ]
    team_events = [e for e in events if e.entry_kind == Event.EntryKind.TEAM]
    # Team events expect one team per unit (each 工会小组 fields a team); joint teams count
    # for their member units.
    covered = {(e.pk, u.pk) for e in team_events for u in unit_list if counts[(u.pk, e.pk)]}
    for unit in unit_list:
        for member in unit.members.all() if unit.kind == Unit.Kind.JOINT else []:
            covered |= {(e.pk, member.pk) for e in team_events if counts[(unit.pk, e.pk)]}
    missing = [
        {
            "event": e,
            "units": [
                u for u in unit_list if u.kind != Unit.Kind.JOINT and (e.pk, u.pk) not in covered
            ],
        }
        for e in team_events
    ]
    sections = [
        {
            "event": e,
            "entries": by_event[e.pk],
            "active": sum(1 for x in by_event[e.pk] if x.status == Entry.Status.REGISTERED),
        }
        for e in events
    ]
    return render(
        request,
        "tournaments/manage/entries.html",
        {
            "tournament": tournament,
            "events": events,
            "matrix": matrix,
            "sections": sections,
            "missing": [m for m in missing if m["units"]],
        },
    )


@organiser_required
@require_safe
def entries_template(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    from tournaments.registration.spreadsheets.template import template_workbook

    event = get_event(tournament, event_slug)
    return xlsx_response(template_workbook(event), f"{tournament.slug}-{event.slug}-报名表.xlsx")


@organiser_required
@require_safe
def entries_export(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    from tournaments.registration.spreadsheets.export import export_workbook

    event = get_event(tournament, event_slug)
    return xlsx_response(export_workbook(event), f"{tournament.slug}-{event.slug}-报名.xlsx")


@organiser_required
@require_http_methods(["GET", "POST"])
def entries_import(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    """The organiser's import of a filled-in form, for any unit (see ``import_flow``)."""
    from tournaments.registration.spreadsheets.imports import import_workbook

    event = get_event(tournament, event_slug)
    return import_flow(
        request,
        session_key=f"import:{event.pk}",
        run=lambda data, dry_run: import_workbook(
            event=event, data=data, user=request.user, dry_run=dry_run
        ),
        context={"tournament": tournament, "event": event},
        done=reverse("manage:entries", args=[tournament.slug]),
    )


@organiser_required
@require_http_methods(["GET", "POST"])
def officials(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = OfficialForm(request.POST or None, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        with transaction.atomic():
            user = None
            if data["username"]:
                # Named as the official, so the header and lists read 顾明, not guming.
                user = get_user_model().objects.create_user(
                    username=data["username"].strip(),
                    password=data["password"],
                    first_name=data["name"].strip()[:150],
                )
            Official.objects.create(
                tournament=tournament, name=data["name"].strip(), role=data["role"], user=user
            )
        messages.success(request, _("已添加%(name)s。") % {"name": data["name"]})
        return redirect("manage:officials", slug=tournament.slug)
    return render(
        request,
        "tournaments/manage/officials.html",
        {
            "tournament": tournament,
            "form": form,
            "officials": tournament.officials.select_related("user"),
        },
        status=422 if form.errors else 200,
    )
