"""A draft (草稿) is hidden from the public, but its organisers — staff or not — read its
notice page while they set it up, marked 草稿（未公开）."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments.models import Official, Unit

User = get_user_model()
MARKER = "草稿（未公开）"


@pytest.fixture
def draft(make_tournament):
    t = make_tournament(slug="draft-cup", status="draft")
    t.organiser = User.objects.create_user("wenti")
    Official.objects.create(tournament=t, name="文体委员", role="organiser", user=t.organiser)
    return t


def notice(client, t):
    return client.get(reverse("tournaments:detail", args=[t.slug]))


def test_a_non_staff_organiser_sees_their_draft_marked_as_such(client, draft):
    client.force_login(draft.organiser)
    response = notice(client, draft)
    assert response.status_code == 200
    text = response.content.decode()
    assert MARKER in text and "只有组织者能看到这个页面" in text
    assert draft.notice_title in text
    assert reverse("manage:dashboard", args=[draft.slug]) in text
    # The notice's PDF too.
    assert client.get(reverse("tournaments:notice-pdf", args=[draft.slug])).status_code == 200


def test_staff_see_the_draft_marked_too(client, draft):
    client.force_login(User.objects.create_user("staff", is_staff=True))
    response = notice(client, draft)
    assert response.status_code == 200 and MARKER in response.content.decode()


def test_the_public_and_other_people_still_get_404(client, draft, make_tournament):
    assert notice(client, draft).status_code == 404
    assert client.get(reverse("tournaments:notice-pdf", args=[draft.slug])).status_code == 404
    elsewhere = User.objects.create_user("elsewhere")
    other = make_tournament(slug="other-cup")
    Official.objects.create(tournament=other, name="别人", role="organiser", user=elsewhere)
    referee = User.objects.create_user("referee")
    Official.objects.create(tournament=draft, name="裁判甲", role="referee", user=referee)
    leader = User.objects.create_user("leader")
    Unit.objects.create(tournament=draft, name="体育", kind="union_group").leaders.add(leader)
    for person in (elsewhere, referee, leader):
        client.force_login(person)
        assert notice(client, draft).status_code == 404, person.username


def test_a_public_tournament_has_no_draft_marker(client, draft):
    draft.status = "registration_open"
    draft.save()
    client.force_login(draft.organiser)
    assert MARKER not in notice(client, draft).content.decode()
    client.logout()
    assert MARKER not in notice(client, draft).content.decode()


@pytest.mark.django_db
def test_a_tables_pages_follow_the_same_draft_rule(client, demo):
    """One rule (tournaments.access.check_not_hidden) for every page, the referee pages
    included: organisers and staff read a draft's table page, nobody else finds it."""
    from scoring.models import TableMatch

    t = demo["nantong-2014"]
    table = TableMatch.objects.filter(match__round__stage__event__tournament=t).first()
    event = table.match.round.stage.event
    url = reverse("scoring:table", args=[t.slug, event.slug, table.pk])
    type(t).objects.filter(pk=t.pk).update(status="draft")
    assert client.get(url).status_code == 404
    client.force_login(User.objects.create_user("passer-by"))
    assert client.get(url).status_code == 404
    organiser = User.objects.create_user("organiser-of-the-draft")
    Official.objects.create(tournament=t, name="组织者乙", role="organiser", user=organiser)
    client.force_login(organiser)
    assert client.get(url).status_code == 200
