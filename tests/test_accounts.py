"""Accounts: password rules, login throttling (django-axes), session length, "log out
everywhere", password change, the CSRF failure page and the request size limit."""

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tournaments.manage.forms import LeaderAccountForm

User = get_user_model()
PASSWORD = "Guandan-Cup-2014"
LOGIN = "/accounts/login/"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    # Real logins hash passwords; the default hasher's cost would only slow these tests.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def referee(db):
    return User.objects.create_user("zhouling", password=PASSWORD)


def log_in(client, username, password, ip="192.0.2.10"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def logged_in_as(client) -> str | None:
    response = client.get(reverse("accounts-home"))
    return response.context["user"].username if response.status_code == 200 else None


# --------------------------------------------------------------------------- passwords


@pytest.mark.parametrize(
    ("password", "problem"),
    [
        ("Guan-2014", "10"),  # nine characters
        ("3141592653589", "数字"),  # all digits
        ("password123", "常见"),  # a common password
        ("zhouling-cup", "相似"),  # like the username
    ],
)
def test_weak_passwords_are_refused_with_the_rule_in_chinese(db, password, problem):
    with pytest.raises(ValidationError) as caught:
        password_validation.validate_password(password, User(username="zhouling"))
    assert any(problem in message for message in caught.value.messages)


def test_the_minimum_length_is_at_least_ten():
    lengths = [
        v.get("OPTIONS", {}).get("min_length")
        for v in settings.AUTH_PASSWORD_VALIDATORS
        if v["NAME"].endswith("MinimumLengthValidator")
    ]
    assert lengths and lengths[0] >= 10


def test_a_team_leader_account_needs_a_strong_password(db):
    form = LeaderAccountForm({"username": "tiyu", "password": "Tiyu-2014"})
    assert not form.is_valid()
    assert "10" in str(form.errors["password"])
    assert LeaderAccountForm({"username": "tiyu", "password": "Tiyu-2014-pass"}).is_valid()


# --------------------------------------------------------------------------- throttling


def test_a_good_password_logs_in(client, referee):
    response = log_in(client, "zhouling", PASSWORD)
    assert response.status_code == 302
    assert logged_in_as(client) == "zhouling"


def test_five_failures_lock_the_username_on_that_address_with_a_chinese_message(client, referee):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = log_in(client, "zhouling", "wrong-password")
        assert response.status_code == 200  # the form again, with its error
    response = log_in(client, "zhouling", "wrong-password")
    assert response.status_code == 429
    page = response.content.decode()
    assert "登录失败次数过多" in page
    assert "15分钟" in page
    assert 'name="csrfmiddlewaretoken"' in page  # still the login page, with its form

    # Locked: even the right password is refused from here …
    response = log_in(client, "zhouling", PASSWORD)
    assert response.status_code == 429
    assert logged_in_as(client) is None


def test_a_lockout_touches_neither_other_addresses_nor_other_usernames(client, referee):
    User.objects.create_user("xiaohui", password=PASSWORD)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "zhouling", "wrong-password")
    assert log_in(Client(), "zhouling", PASSWORD, ip="192.0.2.99").status_code == 302
    assert log_in(Client(), "xiaohui", PASSWORD).status_code == 302


def test_the_lockout_ends_after_the_cool_off(client, referee):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "zhouling", "wrong-password")
    assert log_in(client, "zhouling", PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - dt.timedelta(minutes=1)
    )
    assert log_in(client, "zhouling", PASSWORD).status_code == 302
    assert logged_in_as(client) == "zhouling"


def test_a_success_clears_the_count_of_failures(client, referee):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        log_in(client, "zhouling", "wrong-password")
    assert log_in(client, "zhouling", PASSWORD).status_code == 302
    client.post(reverse("logout"))
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "zhouling", "wrong-password").status_code == 200
    assert log_in(client, "zhouling", PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_too(client, referee):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = client.post(
            "/admin/login/", {"username": "zhouling", "password": "nope"}, REMOTE_ADDR="192.0.2.7"
        )
    assert response.status_code == 429


def test_behind_a_proxy_the_address_is_the_one_the_proxy_saw(rf, settings):
    from guandan_cup.accounts import client_ip

    settings.TRUSTED_PROXIES = ["127.0.0.1"]  # a proxy on this host, named
    request = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.4")
    settings.PROXY_COUNT = 0
    assert client_ip(request) == "127.0.0.1"
    settings.PROXY_COUNT = 1  # the client forged the first entry; the proxy added the last
    assert client_ip(request) == "198.51.100.4"


def test_the_test_clients_login_still_works(client, referee):
    # Logins without a web request are not throttled (there is no address to count).
    assert client.login(username="zhouling", password=PASSWORD)
    assert not Client().login(username="zhouling", password="wrong")


# --------------------------------------------------------------------------- sessions


def test_a_login_lasts_one_tournament_day(client, referee):
    assert settings.SESSION_COOKIE_AGE == 12 * 60 * 60
    response = log_in(client, "zhouling", PASSWORD)
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert int(cookie["max-age"]) == settings.SESSION_COOKIE_AGE
    assert cookie["httponly"]
    session = Session.objects.get(session_key=cookie.value)
    assert (session.expire_date - timezone.now()) <= dt.timedelta(hours=12)


def test_log_out_everywhere_ends_every_session_of_that_user_only(referee):
    phone, desktop, someone_else = Client(), Client(), Client()
    phone.force_login(referee)
    desktop.force_login(referee)
    someone_else.force_login(User.objects.create_user("xiaohui"))

    page = desktop.get(reverse("accounts-home")).content.decode()
    assert reverse("accounts-logout-everywhere") in page
    assert "退出所有设备" in page

    response = phone.post(reverse("accounts-logout-everywhere"))
    assert response.status_code == 302
    assert response["Location"] == reverse("login")
    assert logged_in_as(phone) is None
    assert logged_in_as(desktop) is None
    assert logged_in_as(someone_else) == "xiaohui"
    assert "已在所有设备上退出（2个登录）" in phone.get(reverse("login")).content.decode()


def test_log_out_everywhere_is_a_post_for_logged_in_users(client, referee):
    url = reverse("accounts-logout-everywhere")
    assert client.post(url)["Location"].startswith(reverse("login"))
    client.force_login(referee)
    assert client.get(url).status_code == 405


def test_changing_the_password_applies_the_rules_and_ends_other_sessions(client, referee):
    other = Client()
    other.force_login(referee)
    client.force_login(referee)
    url = reverse("password_change")
    weak = {"old_password": PASSWORD, "new_password1": "short", "new_password2": "short"}
    assert client.post(url, weak).status_code == 200
    strong = "Referee-Nantong-2026"
    good = {"old_password": PASSWORD, "new_password1": strong, "new_password2": strong}
    assert client.post(url, good)["Location"] == reverse("password_change_done")
    assert logged_in_as(client) == "zhouling"  # this device stays logged in
    assert logged_in_as(other) is None


# --------------------------------------------------------------------------- CSRF, size


def test_a_post_without_a_csrf_token_gets_a_clear_page_and_changes_nothing(referee):
    client = Client(enforce_csrf_checks=True)
    client.force_login(referee)
    response = client.post(reverse("accounts-logout-everywhere"))
    assert response.status_code == 403
    assert "页面已过期" in response.content.decode()
    assert logged_in_as(client) == "zhouling"


def test_an_oversized_request_is_refused_before_it_is_read(client, referee, settings):
    settings.MAX_REQUEST_BYTES = 1000
    client.force_login(referee)
    response = client.post(reverse("accounts-logout-everywhere"), {"padding": "x" * 2000})
    assert response.status_code == 413
    assert "文件太大" in response.content.decode()
    assert logged_in_as(client) == "zhouling"
    assert "Content-Security-Policy" in response.headers
