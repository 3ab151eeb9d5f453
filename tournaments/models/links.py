"""One-time login links (一次性登录链接) for referees and team leaders.

The organiser or the chief referee hands a referee a link (or its QR code) instead of a
password; the organiser invites a unit's team leader the same way (the link names the unit
and the leader's account instead of an official). Opening it logs the referee in once; the link is then used up. Only a hash of the
token is stored, so a copy of the database logs nobody in, and every link expires at 23:59
(Asia/Shanghai) of the day it was made for, with the session it opened.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.models.core import Official, Tournament
from tournaments.models.entries import Unit


class LoginLink(models.Model):
    # The tournament the link serves (its referee's or its unit's): every row of a
    # tournament reaches it by a required key (the backups find them so).
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="login_links", verbose_name=_("比赛")
    )
    # A referee's link names the official; a team leader's invitation names the unit and
    # the leader's account. Exactly one of the two.
    official = models.ForeignKey(
        Official,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="login_links",
        verbose_name=_("裁判"),
    )
    unit = models.ForeignKey(
        Unit,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="leader_links",
        verbose_name=_("单位"),
    )
    leader = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="leader_links",
        verbose_name=_("领队账号"),
    )
    # sha256 of the token in the link, hex: the token itself is shown once and never stored.
    token_hash = models.CharField(_("令牌摘要"), max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("生成人"),
    )
    created_at = models.DateTimeField(_("生成时间"), default=timezone.now)
    expires_at = models.DateTimeField(_("失效时间"))
    used_at = models.DateTimeField(_("使用时间"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("作废时间"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("一次性登录链接")
        verbose_name_plural = _("一次性登录链接")
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(official__isnull=False, unit__isnull=True, leader__isnull=True)
                    | models.Q(official__isnull=True, unit__isnull=False, leader__isnull=False)
                ),
                name="login_link_official_or_leader",
            )
        ]

    def __str__(self) -> str:
        who = self.official if self.official_id else f"{self.unit} {_('领队')}"
        return f"{who} · {self.expires_at:%Y-%m-%d}"

    @property
    def is_leader_invite(self) -> bool:
        return self.unit_id is not None

    @property
    def account(self):
        """The login this link opens: the referee's, or the invited team leader's."""
        return self.leader if self.is_leader_invite else self.official.user

    @property
    def person_name(self) -> str:
        if self.is_leader_invite:
            return self.leader.get_full_name() or str(_("领队"))
        return self.official.name

    @property
    def state(self) -> str:
        """``used``, ``revoked``, ``expired`` or ``valid``."""
        if self.used_at:
            return "used"
        if self.revoked_at:
            return "revoked"
        if self.expires_at <= timezone.now():
            return "expired"
        return "valid"
