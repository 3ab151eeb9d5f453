"""One-time login links for referees (一次性登录链接): made by organisers and the chief
referee, used once, stored hashed, ending at 23:59 Shanghai time of their day."""

import datetime as dt
import hashlib
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tournaments.links.services import (
    SHANGHAI,
    LoginLinkError,
    end_of_day,
    login_link_create,
    login_link_redeem,
)
from tournaments.models import LoginLink, Official, Unit

User = get_user_model()


@pytest.fixture
def cup(make_tournament):
    # Two days ahead: the links made in these tests are valid whatever the time of day.
    day = timezone.now().astimezone(SHANGHAI).date() + dt.timedelta(days=2)
    return make_tournament(starts_on=day)


@pytest.fixture
def people(cup):
    def official(name, role, username=None):
        user = User.objects.create_user(username) if username else None
        return Official.objects.create(tournament=cup, name=name, role=role, user=user)

    return {
        "organiser": official("文体委员", Official.Role.ORGANISER, "wenti"),
        "chief": official("裁判长甲", Official.Role.CHIEF_REFEREE, "chief"),
        "arbiter": official("仲裁甲", Official.Role.ARBITRATION, "arbiter"),
        "referee": official("周铃", Official.Role.REFEREE),  # no login yet
        "other_referee": official("梁勇", Official.Role.REFEREE, "liangyong"),
    }


def links_url(cup):
    return reverse("links:list", args=[cup.slug])


def make_link(client, cup, official, **data):
    return client.post(links_url(cup), {"official": official.pk, **data})


def token_from(page: str) -> str:
    return re.search(r"/accounts/link/([A-Za-z0-9_\-]+)/", page).group(1)


def test_a_link_ends_at_2359_in_shanghai_whatever_the_servers_zone():
    end = end_of_day(dt.date(2026, 5, 1))
    assert end.astimezone(dt.UTC) == dt.datetime(2026, 5, 1, 15, 59, tzinfo=dt.UTC)


def test_the_organiser_makes_a_link_and_sees_its_qr_code_once(client, cup, people):
    client.force_login(people["organiser"].user)
    response = make_link(client, cup, people["referee"])
    assert response.status_code == 200
    page = response.content.decode()
    token = token_from(page)
    assert '<svg width="' in page and 'class="qr-code"' in page
    assert "style=" not in page  # strict CSP: no inline style, in the QR code either
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert response["Cache-Control"].startswith("max-age=0")

    link = LoginLink.objects.get()
    assert link.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(list(LoginLink.objects.values()))  # only the hash is stored
    assert link.expires_at == end_of_day(cup.starts_on)
    assert link.created_by == people["organiser"].user
    # A referee without a login gets one, with no password: the links are their way in.
    referee = Official.objects.get(pk=people["referee"].pk).user
    assert referee is not None and not referee.has_usable_password()

    # Listed afterwards, without the token.
    page = client.get(links_url(cup)).content.decode()
    assert "未使用" in page and token not in page


def test_the_chief_referee_makes_links_for_another_day(client, cup, people):
    client.force_login(people["chief"].user)
    day = cup.starts_on + dt.timedelta(days=1)
    assert make_link(client, cup, people["other_referee"], day=day.isoformat()).status_code == 200
    assert LoginLink.objects.get().expires_at == end_of_day(day)


@pytest.mark.parametrize("who", ["arbiter", "other_referee"])
def test_only_organisers_and_the_chief_referee_make_links(client, cup, people, who):
    client.force_login(people[who].user)
    assert client.get(links_url(cup)).status_code == 403
    assert make_link(client, cup, people["referee"]).status_code == 403
    assert not LoginLink.objects.exists()


@pytest.mark.parametrize("official", ["abc", " ", "²", "-1", "9" * 40])
def test_a_referee_id_that_is_not_one_is_not_found(client, cup, people, official):
    # Found by the fuzz test: these reached the database lookup and failed the server.
    client.force_login(people["organiser"].user)
    response = client.post(links_url(cup), {"official": official})
    assert response.status_code == 404
    assert not LoginLink.objects.exists()


def test_anonymous_visitors_are_sent_to_log_in(client, cup, people):
    response = make_link(client, cup, people["referee"])
    assert response["Location"].startswith(reverse("login"))


def test_a_day_that_has_passed_or_cannot_be_read_is_refused(client, cup, people):
    client.force_login(people["organiser"].user)
    response = make_link(client, cup, people["referee"], day="2020-01-01")
    assert response.status_code == 422
    assert "已经过去" in response.content.decode()
    response = make_link(client, cup, people["referee"], day="下周一")
    assert response.status_code == 422
    assert "无法识别" in response.content.decode()
    assert not LoginLink.objects.exists()


@pytest.mark.parametrize("days_after", [8, 3000])
def test_a_day_far_after_the_tournament_is_refused(client, cup, people, days_after):
    client.force_login(people["organiser"].user)
    first = max(cup.starts_on, timezone.localdate())
    day = first + dt.timedelta(days=days_after)
    response = make_link(client, cup, people["referee"], day=day.isoformat())
    assert response.status_code == 422
    assert "最晚用到" in response.content.decode()
    assert make_link(client, cup, people["referee"], day="9999-12-31").status_code == 422
    assert not LoginLink.objects.exists()
    last = first + dt.timedelta(days=7)
    assert make_link(client, cup, people["referee"], day=last.isoformat()).status_code == 200


def test_links_are_for_referees_only(client, cup, people):
    client.force_login(people["organiser"].user)
    response = make_link(client, cup, people["arbiter"])
    assert response.status_code == 422
    assert "只发给裁判" in response.content.decode()


@pytest.mark.parametrize("power", ["superuser", "staff", "chief elsewhere", "team leader"])
def test_no_link_for_an_account_that_can_do_more_than_referee(
    client, cup, people, make_tournament, power
):
    """A chief referee must not be able to log in as an organiser, leader or admin."""
    user = people["other_referee"].user
    if power == "superuser":
        User.objects.filter(pk=user.pk).update(is_superuser=True)
    elif power == "staff":
        User.objects.filter(pk=user.pk).update(is_staff=True)
    elif power == "chief elsewhere":
        other = make_tournament(slug="other-cup")
        Official.objects.create(
            tournament=other, name="梁勇", role=Official.Role.ORGANISER, user=user
        )
    else:
        Unit.objects.create(tournament=cup, name="体育", kind=Unit.Kind.UNION_GROUP).leaders.add(
            user
        )
    client.force_login(people["chief"].user)
    response = make_link(client, cup, people["other_referee"])
    assert response.status_code == 422
    assert "裁判以外的权限" in response.content.decode()
    assert not LoginLink.objects.exists()


# --------------------------------------------------------------------------- using a link


@pytest.fixture
def token(cup, people):
    _link, token = login_link_create(
        official=people["other_referee"], created_by=people["chief"].user
    )
    return token


def redeem_url(token):
    return reverse("accounts-login-link", args=[token])


def who(client):
    response = client.get(reverse("accounts-home"))
    return response.context["user"].username if response.status_code == 200 else None


def test_opening_a_link_asks_first_and_does_not_use_it_up(client, token):
    # Chat apps open links to preview them: a GET must not log in or use the link.
    response = client.get(redeem_url(token))
    assert response.status_code == 200
    assert "以<strong>梁勇</strong>" in response.content.decode()
    assert LoginLink.objects.get().used_at is None
    assert who(client) is None


def test_the_link_says_until_when_in_the_readers_language(client, cup, token):
    """Regression: in English the line ended in a Chinese full stop, its time in the
    Chinese pages' figures: "… the login lasts until 2026-12-06 23:59。"."""
    day = cup.starts_on
    html = client.get(redeem_url(token)).content.decode()
    assert f"此链接只能使用一次，登录到{day.year}年{day.month}月{day.day}日 23:59。" in html
    client.cookies["django_language"] = "en"
    html = client.get(redeem_url(token)).content.decode()
    until = f"{day.day} {day:%B} {day.year}, 23:59"
    assert f"This link works once; the login lasts until {until}." in html


def test_a_link_logs_its_referee_in_once_until_the_end_of_the_day(client, cup, token):
    response = client.post(redeem_url(token))
    assert response.status_code == 302
    assert response["Location"] == reverse("scoring:my-tables", args=[cup.slug])  # 我的台
    assert who(client) == "liangyong"
    # Until the end of the day, and never beyond the 12 hours any session may last.
    ends = min(end_of_day(cup.starts_on), timezone.now() + dt.timedelta(hours=12))
    assert abs(client.session.get_expiry_date() - ends) < dt.timedelta(seconds=5)
    assert LoginLink.objects.get().used_at is not None

    again = Client()
    response = again.post(redeem_url(token))
    assert response.status_code == 410
    assert "已经用过" in response.content.decode()
    assert who(again) is None
    assert again.get(redeem_url(token)).status_code == 410


def test_an_unknown_link_gets_a_clear_page(client, db):
    response = client.get(redeem_url("not-a-real-token"))
    assert response.status_code == 404
    assert "链接无效" in response.content.decode()
    assert client.post(redeem_url("x" * 500)).status_code == 404


def test_an_expired_link_is_refused(client, token):
    LoginLink.objects.update(expires_at=timezone.now() - dt.timedelta(minutes=1))
    response = client.post(redeem_url(token))
    assert response.status_code == 410
    assert "已过期" in response.content.decode()
    assert who(client) is None


def test_a_link_whose_account_gained_powers_since_is_refused(client, token, people):
    User.objects.filter(pk=people["other_referee"].user_id).update(is_staff=True)
    assert client.post(redeem_url(token)).status_code == 410
    assert who(client) is None


def test_two_phones_at_once_log_in_once(token, cup):
    link = login_link_redeem(token=token)
    assert link.used_at is not None
    with pytest.raises(LoginLinkError) as caught:
        login_link_redeem(token=token)
    assert caught.value.code == "used"


def test_an_unused_link_can_be_revoked(client, cup, people, token):
    client.force_login(people["chief"].user)
    link = LoginLink.objects.get()
    url = reverse("links:revoke", args=[cup.slug, link.pk])
    page = client.get(links_url(cup)).content.decode()
    assert f'action="{url}"' in page and "确认作废" in page
    response = client.post(url, follow=True)  # not ticked: asked first, nothing voided
    assert "作废链接须先勾选“确认作废”。" in response.content.decode()
    assert LoginLink.objects.get().revoked_at is None
    assert client.post(url, {"confirm": "1"})["Location"] == links_url(cup)
    assert "已作废" in client.get(links_url(cup)).content.decode()
    response = Client().post(redeem_url(token))
    assert response.status_code == 410
    assert "已作废" in response.content.decode()


def test_links_of_another_tournament_cannot_be_revoked_here(client, people, token, make_tournament):
    other = make_tournament(slug="other-cup")
    Official.objects.create(
        tournament=other,
        name="别人",
        role=Official.Role.CHIEF_REFEREE,
        user=User.objects.create_user("x"),
    )
    client.force_login(User.objects.get(username="x"))
    url = reverse("links:revoke", args=[other.slug, LoginLink.objects.get().pk])
    assert client.post(url, {"confirm": "1"}).status_code == 404
    assert LoginLink.objects.get().revoked_at is None


def test_the_desk_and_the_officials_page_link_to_the_qr_codes(client, cup, people):
    client.force_login(people["organiser"].user)
    assert (
        links_url(cup) in client.get(reverse("manage:officials", args=[cup.slug])).content.decode()
    )
    assert links_url(cup) in client.get(reverse("scoring:desk", args=[cup.slug])).content.decode()
    client.force_login(people["arbiter"].user)
    assert (
        links_url(cup) not in client.get(reverse("scoring:desk", args=[cup.slug])).content.decode()
    )


def test_the_admin_lists_links_without_their_hash_and_cannot_make_them(client, token):
    client.force_login(User.objects.create_superuser("root"))
    link = LoginLink.objects.get()
    page = client.get(reverse("admin:tournaments_loginlink_changelist")).content.decode()
    assert "梁勇" in page
    page = client.get(reverse("admin:tournaments_loginlink_change", args=[link.pk])).content
    assert link.token_hash not in page.decode()
    assert client.get(reverse("admin:tournaments_loginlink_add")).status_code == 403
