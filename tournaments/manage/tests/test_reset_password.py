"""An organiser gives a team leader or an official a new password from the app (no e-mail)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tournaments.models import Official, Unit

User = get_user_model()


@pytest.fixture
def people(demo):
    nantong = demo["nantong-2014"]
    organiser = User.objects.create_superuser("root", password="x")
    leader = User.objects.create_user("tiyu", password="Old-Leader-2014")
    Unit.objects.get(tournament=nantong, name="体育").leaders.add(leader)
    referee = User.objects.create_user("zhou", password="Old-Referee-2014")
    Official.objects.create(tournament=nantong, name="周铃", role="referee", user=referee)
    stranger = User.objects.create_user("stranger", password="Old-Stranger-2014")
    return {"organiser": organiser, "leader": leader, "referee": referee, "stranger": stranger}


def reset_url(user):
    return reverse("manage:reset-password", args=["nantong-2014", user.pk])


def test_the_organiser_resets_a_leaders_password_and_sees_it_once(client, people):
    client.force_login(people["organiser"])
    units = client.get(reverse("manage:units", args=["nantong-2014"])).content.decode()
    assert reset_url(people["leader"]) in units and "重置 tiyu 的密码" in units
    phone = Client()
    phone.force_login(people["leader"])
    response = client.post(reset_url(people["leader"]), {"confirm": "1", "back": "units"})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    password = response.context["password"]
    assert password in response.content.decode()
    leader = User.objects.get(pk=people["leader"].pk)
    assert leader.check_password(password) and not leader.check_password("Old-Leader-2014")
    # The leader's other sessions ended; the new password logs in.
    assert phone.get(reverse("registration:home", args=["nantong-2014"])).status_code == 302
    assert Client().login(username="tiyu", password=password)


def test_an_officials_password_is_reset_from_the_officials_page(client, people):
    client.force_login(people["organiser"])
    page = client.get(reverse("manage:officials", args=["nantong-2014"])).content.decode()
    assert reset_url(people["referee"]) in page
    response = client.post(reset_url(people["referee"]), {"confirm": "1", "back": "officials"})
    assert "周铃" in response.content.decode()
    assert not User.objects.get(pk=people["referee"].pk).check_password("Old-Referee-2014")


def test_a_reset_asks_first_and_changes_nothing_without_it(client, people):
    client.force_login(people["organiser"])
    response = client.post(reset_url(people["leader"]), follow=True)
    assert "重置密码须先勾选" in response.content.decode()
    assert User.objects.get(pk=people["leader"].pk).check_password("Old-Leader-2014")


@pytest.mark.parametrize("who", ["stranger", "organiser"])
def test_only_this_tournaments_leaders_and_officials_can_be_reset(client, people, who):
    client.force_login(people["organiser"])
    response = client.post(reset_url(people[who]), {"confirm": "1"})
    assert response.status_code == 404
    assert User.objects.get(pk=people["stranger"].pk).check_password("Old-Stranger-2014")
