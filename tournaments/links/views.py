"""One-time login links: the page that makes referees' links (organisers and the chief
referee), a team leader's invitation (organisers, from the units page), and the page a
phone opens (anyone holding the link)."""

from __future__ import annotations

import datetime as dt

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from guandan_cup.inputs import BIG_INT, whole_number
from tournaments.access import can_issue_login_links, is_organiser, organiser_required
from tournaments.homes import home_for
from tournaments.links.services import (
    LoginLinkError,
    default_day,
    leader_invite_create,
    login_link_check,
    login_link_create,
    login_link_find,
    login_link_redeem,
    login_link_revoke,
    state_message,
)
from tournaments.models import LoginLink, Official, Tournament, Unit

# The links of the last days are listed; older ones are history.
LISTED_LINKS = 10


def _issuer_tournament(request: HttpRequest, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not can_issue_login_links(request.user, tournament):
        raise PermissionDenied("Organisers and the chief referee only.")
    return tournament


def link_qr_svg(url: str) -> str:
    """The QR code of a login link, as inline SVG (no style attribute: strict CSP)."""
    return segno.make(url, error="m").svg_inline(scale=5, border=2, svgclass="qr-code")


def _parse_day(raw: str) -> dt.date | None:
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise LoginLinkError(
            "invalid_day", _("日期“%(value)s”无法识别（例如2026-05-01）。") % {"value": raw}
        ) from None


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def login_links(request: HttpRequest, slug: str) -> HttpResponse:
    """裁判登录二维码: one line per referee; making a link shows its QR code once."""
    tournament = _issuer_tournament(request, slug)
    issued, problem, status = None, "", 200
    if request.method == "POST":
        official = get_object_or_404(
            Official,
            tournament=tournament,
            pk=whole_number(request.POST.get("official"), maximum=BIG_INT) or 0,
        )
        try:
            link, token = login_link_create(
                official=official,
                created_by=request.user,
                day=_parse_day(request.POST.get("day", "")),
            )
        except LoginLinkError as err:
            problem, status = err.message, 422
        else:
            url = request.build_absolute_uri(reverse("accounts-login-link", args=[token]))
            issued = {"link": link, "url": url, "qr": link_qr_svg(url)}
    referees = (
        tournament.officials.filter(role=Official.Role.REFEREE)
        .select_related("user")
        .prefetch_related(
            Prefetch("login_links", queryset=LoginLink.objects.order_by("-created_at"))
        )
    )
    rows = [{"official": o, "links": list(o.login_links.all())[:LISTED_LINKS]} for o in referees]
    # Team leaders' invitations are the organisers' (the chief referee hands out referees'
    # links only): listed for them, newest first, each with its unit and its state.
    invites = None
    if is_organiser(request.user, tournament):
        invites = LoginLink.objects.filter(
            tournament=tournament, unit__isnull=False
        ).select_related("unit", "leader", "created_by")
    return render(
        request,
        "tournaments/login_links.html",
        {
            "tournament": tournament,
            "rows": rows,
            "invites": invites,
            "issued": issued,
            "problem": problem,
            "default_day": default_day(tournament).isoformat(),
        },
        status=status,
    )


@login_required
@require_POST
def revoke_login_link(request: HttpRequest, slug: str, link_id: int) -> HttpResponse:
    """作废: an unused link (a referee's, or a team leader's invitation — the organisers'
    only) no longer logs anyone in. Asked first: a ticked 确认作废."""
    tournament = _issuer_tournament(request, slug)
    link = get_object_or_404(
        LoginLink.objects.select_related("official", "unit", "leader"),
        pk=whole_number(str(link_id), maximum=BIG_INT) or 0,
        tournament=tournament,
    )
    if link.is_leader_invite and not is_organiser(request.user, tournament):
        raise PermissionDenied("Team leaders' invitations are the organisers'.")
    if request.POST.get("confirm") != "1":
        messages.error(request, _("作废链接须先勾选“确认作废”。"))
    elif not login_link_revoke(link=link):
        messages.error(request, _("这个链接已经用过或已作废。"))
    elif link.is_leader_invite:
        messages.success(
            request,
            _("已作废%(unit)s的领队邀请链接（%(name)s）。")
            % {"unit": link.unit.name, "name": link.leader.get_full_name() or link.leader.username},
        )
    else:
        messages.success(request, _("已作废%(name)s的登录链接。") % {"name": link.official.name})
    return redirect("links:list", slug=tournament.slug)


@organiser_required
@never_cache
@require_POST
def leader_invite(request: HttpRequest, tournament: Tournament, unit_id: int) -> HttpResponse:
    """邀请领队: a one-time link (and its QR code, shown once) that logs the unit's team
    leader in, instead of a password passed on. A new leader account, or a new link for
    one of the unit's leaders (``account``)."""
    unit = get_object_or_404(Unit, tournament=tournament, pk=unit_id)
    leader = None
    if request.POST.get("account"):
        leader = get_object_or_404(
            unit.leaders.all(), pk=whole_number(request.POST["account"], maximum=BIG_INT) or 0
        )
    try:
        link, token = leader_invite_create(
            unit=unit, leader=leader, name=request.POST.get("name", ""), created_by=request.user
        )
    except LoginLinkError as err:
        context = {"tournament": tournament, "unit": unit, "problem": err.message}
        return render(request, "tournaments/leader_invite.html", context, status=422)
    url = request.build_absolute_uri(reverse("accounts-login-link", args=[token]))
    return render(
        request,
        "tournaments/leader_invite.html",
        {
            "tournament": tournament,
            "unit": unit,
            "link": link,
            "url": url,
            "qr": link_qr_svg(url),
        },
    )


@never_cache
@require_http_methods(["GET", "POST"])
def redeem(request: HttpRequest, token: str) -> HttpResponse:
    """The link a referee's phone opens. GET only asks (chat apps open links to preview
    them, which must not use the link up); the button logs in, once."""
    if request.method == "POST":
        try:
            link = login_link_redeem(token=token)
        except LoginLinkError as err:
            return _refused(request, err.code, err.message, login_link_find(token))
        user = link.account
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        # The login ends with the day the link was made for, and never lasts longer than
        # any session may (SESSION_COOKIE_AGE, 12 hours).
        request.session.set_expiry(
            min(link.expires_at, timezone.now() + dt.timedelta(seconds=settings.SESSION_COOKIE_AGE))
        )
        if link.is_leader_invite:
            welcome = _("欢迎，%(name)s：已登录为%(tournament)s%(unit)s的领队。") % {
                "name": link.person_name,
                "tournament": link.tournament.name,
                "unit": link.unit.name,
            }
        else:
            welcome = _("欢迎，%(name)s：已登录为%(tournament)s的裁判。") % {
                "name": link.official.name,
                "tournament": link.tournament.name,
            }
        messages.success(request, welcome)
        return redirect(_landing(request, user))
    link = login_link_find(token)
    state = login_link_check(link)
    if state != "valid":
        return _refused(request, state, state_message(state, link), link)
    return render(request, "tournaments/login_link.html", {"link": link})


def _landing(request: HttpRequest, user) -> str:
    """A safe ``next`` given with the link, else where the person's work is."""
    wanted = request.POST.get("next") or request.GET.get("next", "")
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return home_for(user)


def _refused(request: HttpRequest, state: str, problem: str, link=None) -> HttpResponse:
    """The page of a link that logs nobody in, titled for whom it was made (a leader's
    invitation is 领队登录, not 裁判登录; an unknown link is 一次性登录链接)."""
    return render(
        request,
        "tournaments/login_link.html",
        {"problem": problem, "link": link},
        status=404 if state == "unknown" else 410,
    )
