"""Password recovery without e-mail (an offline LAN has none): services the organiser pages
and ``manage.py reset_organiser_password`` call.

- :func:`end_sessions` ends every session of an account (also "log out everywhere"),
  through the session engine, so a session kept in a cache (``cached_db``) ends too.
- :func:`reset_password` gives an account a new random password, shown once to whoever
  reset it, who hands it over in person; every session of the account ends and its login
  lockouts are lifted (:class:`NewPassword` says how many).
- :func:`password_link` / :func:`redeem_password_link` make and check a one-time link to
  choose a new password, with Django's password-reset tokens (``default_token_generator``):
  a link stops working once the password changes or the account logs in, and after
  ``PASSWORD_RESET_TIMEOUT`` (12 hours). The pages route it to Django's
  ``PasswordResetConfirmView`` at ``accounts/reset/<uidb64>/<token>/``, which checks the
  same token.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from importlib import import_module

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.tokens import default_token_generator
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from guandan_cup.throttle import cosigning_name

logger = logging.getLogger(__name__)

# Read aloud or typed on a phone: no 0/O, 1/l/I; three groups of four (about 59 bits).
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def random_password(user=None) -> str:
    """A new password that passes AUTH_PASSWORD_VALIDATORS for ``user``."""
    while True:
        password = "-".join("".join(secrets.choice(ALPHABET) for _ in range(4)) for _ in range(3))
        try:
            password_validation.validate_password(password, user)
        except ValidationError:
            continue
        return password


def end_sessions(user) -> int:
    """End every unexpired session of ``user``; returns how many. The sessions are found in
    the database (the ``db`` and ``cached_db`` engines keep them there) and each is deleted
    through the configured engine, which also drops a cached copy."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get("_auth_user_id") == str(user.pk):
            store(session_key=session.session_key).delete()
            ended += 1
    return ended


@dataclass(frozen=True)
class NewPassword:
    """A reset's outcome: the new password (shown once), and how many of the account's
    sessions ended and login lockouts were lifted."""

    password: str
    sessions_ended: int
    lockouts_lifted: int


def reset_password(*, user, by=None) -> NewPassword:
    """Give ``user`` a new random password (it is stored only as a hash) and return it.
    Every session of the account ends, and django-axes' lockouts of its username (and of
    its co-signing, ``guandan_cup.throttle``) are lifted, so the new password works at once
    on any device. ``by``: who reset it (for the log)."""
    from axes.utils import reset as reset_lockouts

    password = random_password(user)
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        ended = end_sessions(user)
    lifted = reset_lockouts(username=user.get_username())
    lifted += reset_lockouts(username=cosigning_name(user))  # the panel's co-signing too
    logger.warning(
        "Password of %r reset by %s: %d session(s) ended, %d lockout record(s) lifted.",
        user.get_username(),
        repr(by.get_username()) if by is not None else "a command",
        ended,
        lifted,
    )
    return NewPassword(password, ended, lifted)


def password_link(user) -> tuple[str, str]:
    """``(uidb64, token)`` of a one-time link for ``user`` to choose a new password."""
    return urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)


def redeem_password_link(uidb64: str, token: str):
    """The user the link was made for, while it is still valid; else None."""
    try:
        pk = urlsafe_base64_decode(uidb64).decode()
        user = get_user_model()._default_manager.get(pk=pk)
    except (TypeError, ValueError, OverflowError, get_user_model().DoesNotExist):
        return None
    if not user.is_active or not default_token_generator.check_token(user, token):
        return None
    return user
