"""``manage.py reset_organiser_password USERNAME``: the first organiser's way back in when
the password is lost (no e-mail on an offline LAN). Run it on the server."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from guandan_cup.passwords import reset_password


class Command(BaseCommand):
    help = (
        "Give an account (the organiser's, by default 'organiser') a new random password and "
        "print it; every session of the account ends and its login lockouts are lifted."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", nargs="?", default="organiser")

    def handle(self, *args, username: str, **options):
        User = get_user_model()
        user = User._default_manager.filter(username=username).first()
        if user is None:
            organisers = sorted(
                User._default_manager.filter(is_superuser=True, is_active=True).values_list(
                    "username", flat=True
                )
            )
            known = ", ".join(organisers) if organisers else "none (create one: createsuperuser)"
            raise CommandError(f"No account {username!r}. Organiser accounts: {known}.")
        if not user.is_active:
            raise CommandError(f"The account {username!r} is deactivated; activate it first.")
        # `make run` prints the organiser's password from this file (ensure_organiser): keep
        # it true when it held this account's old password.
        password_file = settings.VAR_DIR / "organiser-password.txt"
        kept_there = password_file.exists() and user.check_password(
            password_file.read_text(encoding="utf-8").strip()
        )
        reset = reset_password(user=user)
        if kept_there:
            password_file.write_text(reset.password + "\n", encoding="utf-8")
        role = "organiser (superuser)" if user.is_superuser else "account"
        self.stdout.write(f"New password for {role} {username}: {reset.password}")
        sessions = "1 session" if reset.sessions_ended == 1 else f"{reset.sessions_ended} sessions"
        lockouts = (
            "1 login lockout"
            if reset.lockouts_lifted == 1
            else f"{reset.lockouts_lifted} login lockouts"
        )
        self.stdout.write(
            f"{sessions} of the account ended (every device is logged out), "
            f"{lockouts} lifted. Change the password after logging in (我的账号 → 修改密码)."
        )
