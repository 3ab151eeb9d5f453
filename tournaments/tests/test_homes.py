"""Where each person lands after logging in (tournaments.homes): a team leader on their unit,
a referee on 我的台, a chief referee on the desk, an organiser on the dashboard; a safe
``next`` wins; several running tournaments give the chooser (我的账号)."""

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.urls import reverse

from tournaments.homes import home_for, homes_of
from tournaments.models import Official, Tournament, Unit

User = get_user_model()
PASSWORD = "Homes-Password-2026"
FAST = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])


@pytest.fixture
def cup(make_tournament):
    return make_tournament(starts_on=dt.date.today() + dt.timedelta(days=3))


def person(username: str) -> User:
    return User.objects.create_user(username, password=PASSWORD)


def official(cup, username: str, role: str, name: str) -> User:
    user = person(username)
    Official.objects.create(tournament=cup, name=name, role=role, user=user)
    return user


def log_in(client, username: str, **extra):
    data = {"username": username, "password": PASSWORD, **extra}
    return client.post(reverse("login"), data)


@FAST
@pytest.mark.parametrize(
    "role, page",
    [
        (Official.Role.ORGANISER, "manage:dashboard"),
        (Official.Role.CHIEF_REFEREE, "scoring:desk"),
        (Official.Role.ARBITRATION, "scoring:desk"),
        (Official.Role.REFEREE, "scoring:my-tables"),
    ],
)
def test_an_official_lands_where_their_work_is(client, cup, role, page):
    official(cup, "someone", role, "钱立")
    response = log_in(client, "someone")
    assert response.status_code == 302
    assert response["Location"] == reverse(page, args=[cup.slug])


@FAST
def test_a_team_leader_lands_on_their_units_page(client, cup):
    unit = Unit.objects.create(tournament=cup, name="体育", kind=Unit.Kind.UNION_GROUP)
    unit.leaders.add(person("leader"))
    response = log_in(client, "leader")
    assert response["Location"] == reverse("registration:unit", args=[cup.slug, unit.pk])
    page = client.get(response["Location"])
    assert page.status_code == 200 and "体育" in page.content.decode()


@FAST
def test_the_role_that_does_the_most_wins_within_a_tournament(client, cup):
    user = official(cup, "both", Official.Role.REFEREE, "梁勇")
    Official.objects.create(
        tournament=cup, name="梁勇", role=Official.Role.CHIEF_REFEREE, user=user
    )
    Unit.objects.create(tournament=cup, name="体育", kind=Unit.Kind.UNION_GROUP).leaders.add(user)
    assert log_in(client, "both")["Location"] == reverse("scoring:desk", args=[cup.slug])


@FAST
def test_a_safe_next_wins_and_an_unsafe_one_is_ignored(client, cup):
    official(cup, "ref", Official.Role.REFEREE, "周铃")
    wanted = reverse("tournaments:detail", args=[cup.slug])
    assert log_in(client, "ref", next=wanted)["Location"] == wanted
    client.logout()
    response = log_in(client, "ref", next="https://evil.example/")
    assert response["Location"] == reverse("scoring:my-tables", args=[cup.slug])


@FAST
def test_someone_of_no_tournament_lands_on_the_list(client, db):
    person("spectator")
    assert log_in(client, "spectator")["Location"] == reverse("tournaments:list")


def test_the_running_tournament_wins_over_a_finished_one(cup, make_tournament):
    old = make_tournament(
        slug="old-cup", starts_on=dt.date(2020, 5, 1), status=Tournament.Status.FINISHED
    )
    user = User.objects.create_user("ref")
    for t in (old, cup):
        Official.objects.create(tournament=t, name="周铃", role=Official.Role.REFEREE, user=user)
    assert home_for(user) == reverse("scoring:my-tables", args=[cup.slug])
    Tournament.objects.filter(pk=cup.pk).update(status=Tournament.Status.FINISHED)
    # Both finished: the most recent one.
    assert home_for(user) == reverse("scoring:my-tables", args=[cup.slug])


def test_two_running_tournaments_give_the_chooser_listing_each_home(
    client, cup, make_tournament, django_assert_max_num_queries
):
    other = make_tournament(slug="other-cup", name="另一杯")
    user = User.objects.create_user("busy")
    Official.objects.create(tournament=cup, name="肖慧", role=Official.Role.ORGANISER, user=user)
    unit = Unit.objects.create(tournament=other, name="行政", kind=Unit.Kind.OFFICE)
    unit.leaders.add(user)
    assert home_for(user) == reverse("accounts-home")
    with django_assert_max_num_queries(2):
        homes = homes_of(user)
    assert {h.url for h in homes} == {
        reverse("manage:dashboard", args=[cup.slug]),
        reverse("registration:unit", args=[other.slug, unit.pk]),
    }
    client.force_login(user)
    html = client.get(reverse("accounts-home")).content.decode()
    assert "我的工作" in html
    assert reverse("manage:dashboard", args=[cup.slug]) in html
    assert reverse("registration:unit", args=[other.slug, unit.pk]) in html
    assert "组织者工作台" in html and "本单位报名" in html


def test_the_tournament_page_links_an_officials_own_pages(client, cup):
    chief = User.objects.create_user("chief")
    Official.objects.create(tournament=cup, name="肖慧", role="chief_referee", user=chief)
    client.force_login(chief)
    html = client.get(reverse("tournaments:detail", args=[cup.slug])).content.decode()
    assert reverse("scoring:desk", args=[cup.slug]) in html
    assert reverse("scoring:my-tables", args=[cup.slug]) in html
    client.force_login(User.objects.create_user("spectator"))
    html = client.get(reverse("tournaments:detail", args=[cup.slug])).content.decode()
    assert reverse("scoring:desk", args=[cup.slug]) not in html
    assert reverse("scoring:my-tables", args=[cup.slug]) not in html
