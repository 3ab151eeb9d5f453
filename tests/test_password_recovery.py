"""Password recovery without e-mail: ``manage.py reset_organiser_password`` for the first
organiser, and the services behind it (a new random password; a one-time link to choose
one, which Django's PasswordResetConfirmView redeems)."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth import views as auth_views
from django.contrib.auth.tokens import default_token_generator
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import include, path, reverse

from guandan_cup import passwords

User = get_user_model()
PASSWORD = "Guandan-Cup-2014"
LOGIN = "/accounts/login/"

# How the organiser pages can route the one-time link (used by the last tests only).
urlpatterns = [
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("", include("guandan_cup.urls")),
]


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def organiser(db):
    return User.objects.create_superuser("organiser", email="", password=PASSWORD)


def log_in(username, password, ip="192.0.2.10"):
    return Client().post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def reset(*args) -> str:
    out = io.StringIO()
    call_command("reset_organiser_password", *args, stdout=out)
    return out.getvalue()


def new_password(output: str) -> str:
    first = output.splitlines()[0]
    assert first.startswith("New password for ")
    return first.rsplit(": ", 1)[1]


def test_the_organiser_gets_a_new_password_that_logs_in_at_once(organiser):
    # Locked out by a forgotten password, logged in on a lost phone …
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in("organiser", "forgotten-one")
    assert log_in("organiser", PASSWORD).status_code == 429
    phone = Client()
    phone.force_login(organiser)
    output = reset()  # "organiser" by default
    password = new_password(output)
    assert "organiser (superuser) organiser" in output
    # … the new password works from that same device, the old one nowhere, the phone is out.
    assert log_in("organiser", password).status_code == 302
    assert log_in("organiser", PASSWORD, ip="192.0.2.11").status_code == 200
    assert phone.get(reverse("accounts-home")).status_code == 302


def test_another_account_can_be_named(db):
    leader = User.objects.create_user("tiyu-leader", password=PASSWORD)
    password = new_password(reset("tiyu-leader"))
    leader.refresh_from_db()
    assert leader.check_password(password) and not leader.check_password(PASSWORD)
    assert not leader.is_superuser  # a reset gives no new rights


def test_an_unknown_or_deactivated_account_is_refused_with_the_organisers_named(organiser):
    with pytest.raises(CommandError, match="No account 'nobody'.*organiser"):
        reset("nobody")
    User.objects.create_user("gone", password=PASSWORD, is_active=False)
    with pytest.raises(CommandError, match="deactivated"):
        reset("gone")


def test_the_password_file_of_make_run_stays_true(organiser, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    password_file = tmp_path / "organiser-password.txt"
    password_file.write_text(PASSWORD + "\n", encoding="utf-8")
    password = new_password(reset())
    assert password_file.read_text(encoding="utf-8").strip() == password
    # A file that held some other password is left alone.
    password_file.write_text("someone-elses\n", encoding="utf-8")
    reset()
    assert password_file.read_text(encoding="utf-8").strip() == "someone-elses"


def test_a_random_password_passes_the_rules_and_reads_easily(db):
    user = User(username="zhouling")
    seen = {passwords.random_password(user) for _ in range(50)}
    assert len(seen) == 50
    for password in seen:
        password_validation.validate_password(password, user)
        assert len(password) == 14 and password.count("-") == 2
        assert not set(password) & set("0O1lI")


# --------------------------------------------------------------------------- one-time link


def test_a_link_names_its_user_until_the_password_changes(organiser):
    uid, token = passwords.password_link(organiser)
    assert passwords.redeem_password_link(uid, token) == organiser
    assert passwords.redeem_password_link(uid, token + "x") is None
    assert passwords.redeem_password_link("bm9ib2R5", token) is None
    assert passwords.redeem_password_link("%%%", token) is None
    passwords.reset_password(user=organiser)
    assert passwords.redeem_password_link(uid, token) is None


def test_a_link_ends_with_a_login_and_after_twelve_hours(organiser, monkeypatch):
    assert settings.PASSWORD_RESET_TIMEOUT == 12 * 3600
    uid, token = passwords.password_link(organiser)
    later = default_token_generator._now()
    monkeypatch.setattr(default_token_generator, "_now", lambda: later + dt.timedelta(hours=13))
    assert passwords.redeem_password_link(uid, token) is None
    monkeypatch.undo()
    assert log_in("organiser", PASSWORD).status_code == 302  # a login (last_login changes)
    organiser.refresh_from_db()
    assert passwords.redeem_password_link(uid, token) is None


@pytest.mark.urls(__name__)
def test_djangos_reset_view_redeems_the_link_once(organiser):
    uid, token = passwords.password_link(organiser)
    client = Client()
    url = reverse("password_reset_confirm", args=[uid, token])
    response = client.get(url, follow=True)
    assert response.status_code == 200 and "new_password1" in response.content.decode()
    form_url = response.redirect_chain[-1][0]
    response = client.post(
        form_url, {"new_password1": "Another-Strong-2026", "new_password2": "Another-Strong-2026"}
    )
    assert response.status_code == 302 and response["Location"] == reverse(
        "password_reset_complete"
    )
    organiser.refresh_from_db()
    assert organiser.check_password("Another-Strong-2026")
    again = Client().get(url, follow=True)
    assert "new_password1" not in again.content.decode()  # used: the link no longer works


# --------------------------------------------------------------------------- sessions ended


def logged_in_phone(password=PASSWORD) -> Client:
    """A phone that logged in through the login page, as a person does (no force_login)."""
    phone = Client(REMOTE_ADDR="192.0.2.20")
    response = phone.post(LOGIN, {"username": "organiser", "password": password})
    assert response.status_code == 302
    assert phone.get(reverse("accounts-home")).status_code == 200
    return phone


@pytest.mark.parametrize(
    "engine",
    ["django.contrib.sessions.backends.db", "django.contrib.sessions.backends.cached_db"],
)
def test_the_reset_counts_the_sessions_it_ends_and_each_is_over(organiser, settings, engine):
    settings.SESSION_ENGINE = engine
    phones = [logged_in_phone(), logged_in_phone()]
    output = reset()
    assert "2 sessions of the account ended" in output
    for phone in phones:
        assert phone.get(reverse("accounts-home")).status_code == 302  # to the login page
    assert "0 sessions of the account ended" in reset()  # none left


@pytest.mark.parametrize(
    "engine",
    ["django.contrib.sessions.backends.db", "django.contrib.sessions.backends.cached_db"],
)
def test_log_out_everywhere_ends_cached_sessions_too(organiser, settings, engine):
    """退出所有设备 changes no password: a session kept in the cache (cached_db) would
    outlive its database row unless it is ended through the session engine."""
    settings.SESSION_ENGINE = engine
    lost, here = logged_in_phone(), logged_in_phone()
    assert passwords.end_sessions(organiser) == 2
    assert lost.get(reverse("accounts-home")).status_code == 302
    assert here.get(reverse("accounts-home")).status_code == 302


# --------------------------------------------------------------------------- make run


def ensure(settings, tmp_path) -> str:
    settings.VAR_DIR = tmp_path
    out = io.StringIO()
    call_command("ensure_organiser", stdout=out)
    return out.getvalue()


def test_make_run_shows_the_first_password_only_while_it_is_the_organisers(db, settings, tmp_path):
    first = ensure(settings, tmp_path)
    assert first.startswith("Created organiser account — username: organiser  password: ")
    password = first.strip().rsplit(" ", 1)[1]
    assert ensure(settings, tmp_path).strip().endswith(f"password: {password}")  # still it

    # The organiser chooses another password on 我的账号 → 修改密码.
    phone = Client()
    phone.post(LOGIN, {"username": "organiser", "password": password})
    response = phone.post(
        reverse("password_change"),
        {
            "old_password": password,
            "new_password1": "Organiser-Chose-2026",
            "new_password2": "Organiser-Chose-2026",
        },
    )
    assert response.status_code == 302
    said = ensure(settings, tmp_path)
    assert password not in said  # never the stale one
    assert "exists" in said and "python manage.py reset_organiser_password organiser" in said

    # Reset: the file holds a stale password, so it is left as it is, and not shown.
    new = new_password(reset())
    assert new not in ensure(settings, tmp_path)
    assert User.objects.get(username="organiser").check_password(new)
