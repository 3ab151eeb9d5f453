"""One-time login links (一次性登录链接) for referees.

The organiser or the chief referee hands a referee a link (or its QR code) instead of a
password. Opening it logs the referee in once; the link is then used up. Only a hash of the
token is stored, so a copy of the database logs nobody in, and every link expires at 23:59
(Asia/Shanghai) of the day it was made for, with the session it opened.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.models.core import Official


class LoginLink(models.Model):
    official = models.ForeignKey(
        Official, on_delete=models.CASCADE, related_name="login_links", verbose_name=_("裁判")
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

    def __str__(self) -> str:
        return f"{self.official} · {self.expires_at:%Y-%m-%d}"

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
