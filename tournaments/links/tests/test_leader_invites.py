"""Team leaders' invitations on the links page: the organiser sees each (its unit, when it
was made, used or not, expired) and voids an unused one after a ticked confirm; a voided
or used invitation logs nobody in through its link. The chief referee, who hands out
referees' links on the same page, neither sees nor voids them."""

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from tournaments.links.services import SHANGHAI
from tournaments.models import LoginLink, Official, Unit

User = get_user_model()


@pytest.fixture
def cup(make_tournament):
    day = timezone.now().astimezone(SHANGHAI).date() + dt.timedelta(days=2)
    t = make_tournament(starts_on=day)
    t.unit = Unit.objects.create(tournament=t, name="教务", kind=Unit.Kind.UNION_GROUP)
    t.organiser = User.objects.create_user("wenti")
    Official.objects.create(tournament=t, name="文体委员", role="organiser", user=t.organiser)
    t.chief = User.objects.create_user("chief")
    Official.objects.create(tournament=t, name="裁判长甲", role="chief_referee", user=t.chief)
    return t


def invite(client, cup, name="王领队"):
    """The organiser invites a leader from the units page; the link's token, shown once."""
    client.force_login(cup.organiser)
    page = client.post(
        reverse("links:leader-invite", args=[cup.slug, cup.unit.pk]), {"name": name}
    ).content.decode()
    return re.search(r"/accounts/link/([A-Za-z0-9_\-]+)/", page).group(1)


def links_page(client, cup) -> str:
    return client.get(reverse("links:list", args=[cup.slug])).content.decode()


def invites_section(page: str) -> str:
    return page.split('id="invites-title"', 1)[1].split("</section>", 1)[0]


def revoke_url(cup, link):
    return reverse("links:revoke", args=[cup.slug, link.pk])


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_the_organiser_sees_each_invitation_with_its_unit_and_state(client, cup):
    invite(client, cup, "王领队")
    invite(client, cup, "李领队")
    used, unused = LoginLink.objects.order_by("pk")
    LoginLink.objects.filter(pk=used.pk).update(used_at=timezone.now())
    expired = LoginLink.objects.create(
        tournament=cup,
        unit=cup.unit,
        leader=unused.leader,
        token_hash="e" * 64,
        created_at=timezone.now() - dt.timedelta(days=9),
        expires_at=timezone.now() - dt.timedelta(days=1),
    )
    section = invites_section(links_page(client, cup))
    assert "领队邀请链接" in links_page(client, cup)
    assert "<h1>登录链接：裁判与领队</h1>" in links_page(client, cup)
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(r'<tr data-invite="(\d+)">(.*?)</tr>', section, re.S)
    }
    assert set(rows) == {str(used.pk), str(unused.pk), str(expired.pk)}
    assert "教务" in rows[str(used.pk)] and "王领队" in rows[str(used.pk)]
    assert "已使用" in rows[str(used.pk)] and revoke_url(cup, used) not in rows[str(used.pk)]
    assert "李领队" in rows[str(unused.pk)] and "未使用" in rows[str(unused.pk)]
    assert f'action="{revoke_url(cup, unused)}"' in rows[str(unused.pk)]
    assert "确认作废" in rows[str(unused.pk)]
    created = date_format(timezone.localtime(unused.created_at), "SHORT_DATETIME_FORMAT")
    assert created in rows[str(unused.pk)]
    assert "已过期" in rows[str(expired.pk)]
    # The units page leads to the list.
    units = client.get(reverse("manage:units", args=[cup.slug])).content.decode()
    assert reverse("links:list", args=[cup.slug]) in units


def test_a_voided_invitation_logs_nobody_in(client, cup):
    token = invite(client, cup)
    link = LoginLink.objects.get()
    response = client.post(revoke_url(cup, link), follow=True)  # not ticked
    assert "作废链接须先勾选“确认作废”。" in response.content.decode()
    assert LoginLink.objects.get().revoked_at is None
    response = client.post(revoke_url(cup, link), {"confirm": "1"}, follow=True)
    text = response.content.decode()
    assert "已作废教务的领队邀请链接（王领队）。" in text
    assert "已作废" in invites_section(text)
    phone = Client()
    assert phone.get(reverse("accounts-login-link", args=[token])).status_code == 410
    response = phone.post(reverse("accounts-login-link", args=[token]))
    assert response.status_code == 410
    assert "这个邀请链接已作废；请组织者重新生成。" in response.content.decode()
    assert not logged_in(phone)
    # Voided twice: said so, nothing changes.
    response = client.post(revoke_url(cup, link), {"confirm": "1"}, follow=True)
    assert "这个链接已经用过或已作废。" in response.content.decode()


def test_a_used_invitation_cannot_be_voided_nor_used_again(client, cup):
    token = invite(client, cup)
    phone = Client()
    assert phone.post(reverse("accounts-login-link", args=[token])).status_code == 302
    assert logged_in(phone)
    link = LoginLink.objects.get()
    response = client.post(revoke_url(cup, link), {"confirm": "1"}, follow=True)
    assert "这个链接已经用过或已作废。" in response.content.decode()
    assert LoginLink.objects.get().revoked_at is None
    again = Client()
    response = again.post(reverse("accounts-login-link", args=[token]))
    assert response.status_code == 410
    assert "这个邀请链接已经用过了（每个链接只能登录一次）；请组织者重新生成。" in (
        response.content.decode()
    )
    opened = again.get(reverse("accounts-login-link", args=[token]))
    assert opened.status_code == 410
    assert not logged_in(again)
    # Its page is titled for a leader, not a referee; a link of nobody for nobody.
    html = opened.content.decode()
    assert "<h1>领队登录</h1>" in html and "裁判登录" not in html
    unknown = again.get(reverse("accounts-login-link", args=["no-such-link"])).content.decode()
    assert "<h1>一次性登录链接</h1>" in unknown and "裁判登录" not in unknown


def test_the_chief_referee_neither_sees_nor_voids_a_leaders_invitation(client, cup):
    token = invite(client, cup)
    link = LoginLink.objects.get()
    client.force_login(cup.chief)
    page = links_page(client, cup)
    assert "领队邀请链接" not in page and "王领队" not in page
    assert "<h1>裁判登录二维码</h1>" in page  # the chief's page is the referees' only
    assert client.post(revoke_url(cup, link), {"confirm": "1"}).status_code == 403
    assert LoginLink.objects.get().revoked_at is None
    phone = Client()
    assert phone.post(reverse("accounts-login-link", args=[token])).status_code == 302


def test_a_link_id_that_no_column_holds_is_not_found(client, cup):
    client.force_login(cup.organiser)
    url = f"/t/{cup.slug}/referee/login-links/{'9' * 30}/revoke/"
    assert client.post(url, {"confirm": "1"}).status_code == 404
