import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create the local organiser account (superuser) if it does not exist and print its login. "
        "The generated password is kept in var/organiser-password.txt (not in git) and printed "
        "while it is still the account's; once changed, it is never printed again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="organiser")

    def handle(self, *args, username: str, **options):
        User = get_user_model()
        password_file = settings.VAR_DIR / "organiser-password.txt"
        user = User.objects.filter(username=username).first()
        if user is None:
            password = secrets.token_urlsafe(12)
            User.objects.create_superuser(username=username, email="", password=password)
            password_file.parent.mkdir(parents=True, exist_ok=True)
            password_file.write_text(password + "\n", encoding="utf-8")
            password_file.chmod(0o600)
            self.stdout.write(
                f"Created organiser account — username: {username}  password: {password}"
            )
            return
        kept = password_file.read_text(encoding="utf-8").strip() if password_file.exists() else ""
        if kept and user.check_password(kept):
            self.stdout.write(f"Organiser account — username: {username}  password: {kept}")
            return
        self.stdout.write(
            f"Organiser account {username!r} exists; its password has been changed since it "
            f"was created (or was set elsewhere), so it is not shown. Forgotten? Run: "
            f"python manage.py reset_organiser_password {username}"
        )
