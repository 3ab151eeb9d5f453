"""The organiser's set-up pages (no /admin/): 新建比赛, 复制往届比赛, venues and their tables."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from guandan_cup.inputs import BIG_INT, whole_number
from tournaments.access import organiser_required
from tournaments.manage import services
from tournaments.models import Official, Tournament, Venue
from tournaments.setup.forms import CopyTournamentForm, NewTournamentForm, VenueForm


def creator_required(view):
    """Login, then 403 for anyone who may not start a tournament."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not services.may_create_tournaments(request.user):
            raise PermissionDenied("Only organisers start tournaments.")
        return view(request, *args, **kwargs)

    return wrapper


@creator_required
@require_http_methods(["GET", "POST"])
def new_tournament(request: HttpRequest) -> HttpResponse:
    form = NewTournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        tournament = services.create_tournament(form=form, user=request.user)
        messages.success(
            request,
            _("已新建比赛“%(name)s”（草稿）。下一步：添加场地与桌数。") % {"name": tournament.name},
        )
        return redirect("setup:venues", slug=tournament.slug)
    return render(
        request,
        "tournaments/manage/new.html",
        {"form": form, "sources": _sources(request.user)},
        status=422 if form.errors else 200,
    )


def _sources(user):
    """The earlier tournaments this user may copy: those they organise."""
    tournaments = Tournament.objects.all()
    if not user.is_superuser:
        tournaments = tournaments.filter(
            officials__user=user, officials__role=Official.Role.ORGANISER
        )
    return tournaments.distinct()


@organiser_required
@require_http_methods(["GET", "POST"])
def copy_tournament(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    if not services.may_create_tournaments(request.user):
        raise PermissionDenied("Only organisers start tournaments.")
    form = CopyTournamentForm(
        request.POST or None,
        initial={
            "name": tournament.name,
            "notice_title": tournament.notice_title,
            "start_time": tournament.start_time,
        },
    )
    if request.method == "POST" and form.is_valid():
        copy = services.copy_tournament(source=tournament, user=request.user, **form.cleaned_data)
        messages.success(
            request,
            _(
                "已由“%(old)s”复制出“%(new)s”（草稿）：项目、规则、单位、联队、场地和裁判已带入，报名与成绩没有带入。"
            )
            % {"old": tournament.name, "new": copy.name},
        )
        return redirect("manage:dashboard", slug=copy.slug)
    return render(
        request,
        "tournaments/manage/copy.html",
        {
            "tournament": tournament,
            "form": form,
            "carried": {
                "events": tournament.events.all(),
                "units": tournament.units.prefetch_related("members"),
                "venues": tournament.venues.all(),
                "officials": tournament.officials.all(),
            },
        },
        status=422 if form.errors else 200,
    )


@organiser_required
@require_http_methods(["GET", "POST"])
def venues(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = VenueForm(request.POST or None, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        venue = form.save()
        tournament.bump_event_versions()  # the notice lists the venues
        messages.success(
            request,
            _("已添加场地“%(name)s”（%(tables)s张桌）。")
            % {"name": venue.name, "tables": venue.tables},
        )
        return redirect("setup:venues", slug=tournament.slug)
    return render(
        request,
        "tournaments/manage/venues.html",
        {"tournament": tournament, "form": form, "venues": tournament.venues.all()},
        status=422 if form.errors else 200,
    )


def _venue(tournament: Tournament, venue_id: int) -> Venue:
    if whole_number(str(venue_id), maximum=BIG_INT) is None:
        raise Http404("No such venue")
    return get_object_or_404(Venue, tournament=tournament, pk=venue_id)


@organiser_required
@require_http_methods(["GET", "POST"])
def venue_edit(request: HttpRequest, tournament: Tournament, venue_id: int) -> HttpResponse:
    venue = _venue(tournament, venue_id)
    form = VenueForm(request.POST or None, instance=venue, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        form.save()
        tournament.bump_event_versions()
        messages.success(request, _("场地“%(name)s”已保存。") % {"name": venue.name})
        return redirect("setup:venues", slug=tournament.slug)
    return render(
        request,
        "tournaments/manage/form.html",
        {
            "tournament": tournament,
            "form": form,
            "title": _("修改场地：%(name)s") % {"name": venue.name},
        },
        status=422 if form.errors else 200,
    )


@organiser_required
@require_POST
def venue_delete(request: HttpRequest, tournament: Tournament, venue_id: int) -> HttpResponse:
    venue = _venue(tournament, venue_id)
    if request.POST.get("confirm") != "1":
        messages.error(request, _("删除场地须先勾选“确认删除”。"))
        return redirect("setup:venues", slug=tournament.slug)
    try:
        services.delete_venue(venue=venue)
    except services.SetupError as err:
        messages.error(request, err.message)
    else:
        tournament.bump_event_versions()
        messages.success(request, _("已删除场地“%(name)s”。") % {"name": venue.name})
    return redirect("setup:venues", slug=tournament.slug)
