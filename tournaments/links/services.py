"""One-time login links for referees and team leaders: making, redeeming and revoking them.

A link carries a random token (256 bits); the database keeps only its sha256, so a leaked
backup logs nobody in. A link logs its referee in once, until 23:59 Asia/Shanghai of its
day, and only an account that can do no more than referee: a chief referee handing out
links must not be able to log in as an organiser, a team leader or an administrator.

A team leader's invitation (the organiser's, from the units page) works the same way: the
unit gets a leader account with no password, named as the organiser typed, and the link
logs it in once; it serves until the end of the registration deadline's day (or the
tournament's day), and opens only an account that leads units and holds no official role.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from guandan_cup.errors import UserError
from tournaments.models import LoginLink, Official, Unit

SHANGHAI = ZoneInfo("Asia/Shanghai")


class LoginLinkError(UserError):
    """A link cannot be made or used; ``message`` says why (in the user's language)."""


# A link serves the tournament's days: at most this many days after the tournament's day
# (or today, once that has passed); a date years ahead is a slip, not a plan.
LAST_DAY_AFTER = 7


def end_of_day(day: dt.date) -> dt.datetime:
    """23:59 in Shanghai on ``day``: the tournament day's end, whatever the server's zone."""
    return dt.datetime.combine(day, dt.time(23, 59), tzinfo=SHANGHAI)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def default_day(tournament, now: dt.datetime | None = None) -> dt.date:
    """The tournament's day, or today (Shanghai) once that day has passed."""
    today = (now or timezone.now()).astimezone(SHANGHAI).date()
    return max(tournament.starts_on, today)


def may_log_in_by_link(user) -> bool:
    """Only accounts that can do no more than referee: not staff, no other official role in
    any tournament, leading no unit."""
    if not user.is_active or user.is_staff or user.is_superuser:
        return False
    if user.official_roles.exclude(role=Official.Role.REFEREE).exists():
        return False
    return not user.led_units.exists()


def may_lead_by_link(user) -> bool:
    """A team leader's invitation opens only a leader's account: active, not staff, no
    official role in any tournament."""
    if not user.is_active or user.is_staff or user.is_superuser:
        return False
    return not user.official_roles.exists()


def _new_username(official: Official) -> str:
    return _free_username(f"referee-{official.tournament_id}-{official.pk}")


def _free_username(base: str) -> str:
    User = get_user_model()
    username, n = base, 1
    while User.objects.filter(username=username).exists():
        n += 1
        username = f"{base}-{n}"
    return username


def login_link_create(
    *, official: Official, created_by, day: dt.date | None = None, now: dt.datetime | None = None
) -> tuple[LoginLink, str]:
    """A new link for ``official`` (a referee) valid until the end of ``day`` (by default
    the tournament's day). Returns the link and its token, which is never shown again.
    A referee without a login gets one, with no password: the links are their way in."""
    now = now or timezone.now()
    if official.role != Official.Role.REFEREE:
        raise LoginLinkError(
            "not_a_referee",
            _("一次性登录链接只发给裁判；%(name)s请用自己的密码登录。") % {"name": official.name},
        )
    day = day or default_day(official.tournament, now)
    last = default_day(official.tournament, now) + dt.timedelta(days=LAST_DAY_AFTER)
    if day > last:
        raise LoginLinkError(
            "day_too_late",
            _("一次性登录链接最晚用到%(last)s（比赛日后%(n)s天）；%(day)s太远了。")
            % {"last": last.isoformat(), "n": LAST_DAY_AFTER, "day": day.isoformat()},
        )
    expires_at = end_of_day(day)
    if expires_at <= now:
        raise LoginLinkError(
            "day_passed",
            _("%(day)s已经过去，请选择今天或以后的日期。") % {"day": day.isoformat()},
        )
    with transaction.atomic():
        official = Official.objects.select_for_update().get(pk=official.pk)
        user = official.user
        if user is None:
            # Named as the official, so the header and lists read 钱立, not referee-1-1.
            user = get_user_model().objects.create_user(
                username=_new_username(official), first_name=official.name[:150]
            )
            official.user = user
            official.save(update_fields=["user"])
        elif not may_log_in_by_link(user):
            raise LoginLinkError(
                "privileged_account",
                _("账号“%(user)s”还有裁判以外的权限，不能用一次性链接登录；请本人用密码登录。")
                % {"user": user.get_username()},
            )
        token = secrets.token_urlsafe(32)
        link = LoginLink.objects.create(
            tournament_id=official.tournament_id,
            official=official,
            token_hash=hash_token(token),
            created_by=created_by,
            created_at=now,
            expires_at=expires_at,
        )
    return link, token


# A leader's name as the organiser types it (Official.name has the same length).
LEADER_NAME_MAX = 50


def leader_invite_day(tournament, now: dt.datetime | None = None) -> dt.date:
    """The last day a leader's invitation serves: the registration deadline's day, or the
    tournament's day when there is no deadline; today at the earliest."""
    today = (now or timezone.now()).astimezone(SHANGHAI).date()
    if tournament.registration_deadline:
        return max(tournament.registration_deadline.astimezone(SHANGHAI).date(), today)
    return default_day(tournament, now)


def leader_invite_create(
    *, unit: Unit, created_by, name: str = "", leader=None, now: dt.datetime | None = None
) -> tuple[LoginLink, str]:
    """A one-time link that logs a team leader of ``unit`` in. Without ``leader`` a new
    leader account is made for the unit (no password; ``name`` as its full name); with it
    (one of the unit's leaders) a new link for that account. Returns the link and its
    token, which is never shown again."""
    now = now or timezone.now()
    name = " ".join((name or "").split())
    if len(name) > LEADER_NAME_MAX:
        raise LoginLinkError("name_too_long", _("领队姓名最多%(n)s个字。") % {"n": LEADER_NAME_MAX})
    with transaction.atomic():
        if leader is None:
            leader = get_user_model().objects.create_user(
                username=_free_username(f"leader-{unit.tournament_id}-{unit.pk}"),
                first_name=name,
            )
            unit.leaders.add(leader)
        elif not unit.leaders.filter(pk=leader.pk).exists():
            raise LoginLinkError("not_a_leader", _("这个账号不是本单位的领队。"))
        elif not may_lead_by_link(leader):
            raise LoginLinkError(
                "privileged_account",
                _("账号“%(user)s”还有领队以外的权限，不能用一次性链接登录；请本人用密码登录。")
                % {"user": leader.get_username()},
            )
        token = secrets.token_urlsafe(32)
        link = LoginLink.objects.create(
            tournament_id=unit.tournament_id,
            unit=unit,
            leader=leader,
            token_hash=hash_token(token),
            created_by=created_by,
            created_at=now,
            expires_at=end_of_day(leader_invite_day(unit.tournament, now)),
        )
    return link, token


def login_link_find(token: str) -> LoginLink | None:
    if not token or len(token) > 100:
        return None
    return (
        LoginLink.objects.select_related(
            "tournament", "official__user", "official__tournament", "unit", "leader"
        )
        .filter(token_hash=hash_token(token))
        .first()
    )


STATE_MESSAGES = {
    "unknown": gettext_lazy("这个登录链接无效：请检查是否完整，或请裁判长重新生成。"),
    "used": gettext_lazy("这个登录链接已经用过了（每个链接只能登录一次）；请裁判长重新生成。"),
    "expired": gettext_lazy("这个登录链接已过期（到当天23:59为止）；请裁判长重新生成。"),
    "revoked": gettext_lazy("这个登录链接已作废；请裁判长重新生成。"),
    "not_allowed": gettext_lazy("这个账号不能用一次性链接登录；请用密码登录。"),
}


# A team leader's invitation comes from the organisers, not the chief referee.
LEADER_STATE_MESSAGES = {
    "used": gettext_lazy("这个邀请链接已经用过了（每个链接只能登录一次）；请组织者重新生成。"),
    "expired": gettext_lazy("这个邀请链接已过期；请组织者重新生成。"),
    "revoked": gettext_lazy("这个邀请链接已作废；请组织者重新生成。"),
}


def state_message(state: str, link: LoginLink | None = None) -> str:
    """What the person holding ``link`` reads when it does not log them in."""
    if link is not None and link.is_leader_invite and state in LEADER_STATE_MESSAGES:
        return str(LEADER_STATE_MESSAGES[state])
    return str(STATE_MESSAGES[state])


def login_link_check(link: LoginLink | None) -> str:
    """``valid`` or why not: ``unknown``, ``used``, ``expired``, ``revoked``, ``not_allowed``."""
    if link is None:
        return "unknown"
    if link.state != "valid":
        return link.state
    user = link.account
    allowed = may_lead_by_link if link.is_leader_invite else may_log_in_by_link
    if user is None or not allowed(user):
        return "not_allowed"
    return "valid"


def login_link_redeem(*, token: str, now: dt.datetime | None = None) -> LoginLink:
    """Use up the link: returns it (its official's user is the one to log in) or raises
    LoginLinkError. Two phones opening it at once: one UPDATE matches, the other is told
    the link is used."""
    now = now or timezone.now()
    link = login_link_find(token)
    state = login_link_check(link)
    if state != "valid":
        raise LoginLinkError(state, state_message(state, link))
    used = LoginLink.objects.filter(
        pk=link.pk, used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
    ).update(used_at=now)
    if not used:
        raise LoginLinkError("used", state_message("used", link))
    link.used_at = now
    return link


def login_link_revoke(*, link: LoginLink, now: dt.datetime | None = None) -> bool:
    """Void an unused link (a QR code printed for the wrong person, a lost sheet)."""
    return bool(
        LoginLink.objects.filter(pk=link.pk, used_at__isnull=True, revoked_at__isnull=True).update(
            revoked_at=now or timezone.now()
        )
    )
