"""The organiser's units page beyond adding: a unit renamed (its entries follow), a joint
team's member units changed under the joint-team rules, a unit or joint team removed only
when it holds nothing, and what becomes of its leaders."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments.links.services import leader_invite_create
from tournaments.models import Entry, Event, LoginLink, Unit, Venue
from tournaments.registration.services import EntryForm, PersonForm, register_entries

User = get_user_model()


@pytest.fixture
def boss(db):
    return User.objects.create_superuser("organiser", password="x")


@pytest.fixture
def cup(make_tournament):
    t = make_tournament()
    units = {
        name: Unit.objects.create(tournament=t, name=name, kind="union_group")
        for name in ("教务", "物理", "生物", "数学", "历史")
    }
    team = Unit.objects.create(tournament=t, name="教务物理联队", kind="joint")
    team.members.set([units["教务"], units["物理"]])
    units["教务物理联队"] = team
    t.team = Event.objects.create(
        tournament=t, slug="team", name="掼蛋团体", discipline="guandan_team", pairs_per_team=3
    )
    t.pairs = Event.objects.create(
        tournament=t, slug="pairs", name="掼蛋双人", discipline="guandan_pairs"
    )
    t.u = units
    return t


def _team_entry(t, unit, players_unit=None):
    who = players_unit or unit
    register_entries(
        event=t.team,
        organiser=True,
        forms=[
            EntryForm(
                unit=unit,
                pairs=[
                    (PersonForm(f"{who}{i}甲", "男", who), PersonForm(f"{who}{i}乙", "女", who))
                    for i in range(3)
                ],
            )
        ],
    )


def _edit(t, unit):
    return reverse("manage:unit-edit", args=[t.slug, unit.pk])


def _delete(t, unit):
    return reverse("manage:unit-delete", args=[t.slug, unit.pk])


def test_the_units_page_offers_to_change_and_remove_each_unit(client, boss, cup):
    _team_entry(cup, "历史")
    client.force_login(boss)
    text = client.get(reverse("manage:units", args=[cup.slug])).content.decode()
    for unit in cup.u.values():
        assert f'href="{_edit(cup, unit)}"' in text
        assert (f'action="{_delete(cup, unit)}"' in text) == (unit.name != "历史")
    assert "修改名称与组成单位" in text and "删除联队" in text and "确认删除" in text
    # A unit with entries says why it stays instead of offering a removal.
    assert text.count("已有报名，不能删除；不再参赛请在报名页办理退赛。") == 1


def test_a_unit_renamed_carries_its_entries_names_and_keeps_the_form_on_a_clash(client, boss, cup):
    _team_entry(cup, "历史")
    # Two 张伟 in the pairs: the second reads 张伟/李娜（历史）.
    for unit in ("生物", "历史"):
        register_entries(
            event=cup.pairs,
            organiser=True,
            forms=[
                EntryForm(unit=unit, pairs=[(PersonForm("张伟", "男"), PersonForm("李娜", "女"))])
            ],
        )
    client.force_login(boss)
    history = cup.u["历史"]
    page = client.get(_edit(cup, history)).content.decode()
    assert "修改单位：历史" in page and 'value="历史"' in page
    assert "联队" not in page.split("<form", 2)[-1].split("</form>")[0]  # no joint kind
    response = client.post(_edit(cup, history), {"name": "物\u200b理", "kind": "department"})
    assert response.status_code == 422
    text = response.content.decode()
    assert "已有名为“物理”的单位。" in text and "请改正下面标出的问题。" in text
    assert Unit.objects.get(pk=history.pk).name == "历史"
    response = client.post(_edit(cup, history), {"name": "历史系", "kind": "department"})
    assert response.status_code == 302
    history.refresh_from_db()
    assert (history.name, history.kind) == ("历史系", "department")
    names = set(Entry.objects.filter(unit=history).values_list("name", flat=True))
    assert names == {"历史系", "张伟/李娜（历史系）"}
    text = client.get(reverse("manage:units", args=[cup.slug])).content.decode()
    assert "单位“历史系”已保存。" in text


def test_a_unit_may_not_become_a_joint_team_by_a_change(client, boss, cup):
    client.force_login(boss)
    response = client.post(_edit(cup, cup.u["历史"]), {"name": "历史", "kind": "joint"})
    assert response.status_code == 422
    assert Unit.objects.get(pk=cup.u["历史"].pk).kind == "union_group"


def test_a_joint_teams_members_change_under_the_rules_of_joint_teams(client, boss, cup):
    team, u = cup.u["教务物理联队"], cup.u
    other = Unit.objects.create(tournament=cup, name="生物数学联队", kind="joint")
    other.members.set([u["生物"], u["数学"]])
    client.force_login(boss)
    page = client.get(_edit(cup, team)).content.decode()
    assert "修改联队：教务物理联队" in page and 'name="members"' in page
    assert 'name="kind"' not in page

    def post(*members, name="教务物理联队"):
        return client.post(_edit(cup, team), {"name": name, "members": [m.pk for m in members]})

    def members():
        return set(Unit.objects.get(pk=team.pk).members.values_list("name", flat=True))

    response = post(u["教务"])
    assert response.status_code == 422
    assert "联队至少由两个单位组成。" in response.content.decode()
    response = post(u["教务"], u["生物"])  # 生物 plays in 生物数学联队
    assert response.status_code == 422
    text = response.content.decode()
    assert "生物已是联队生物数学联队的组成单位，一个单位只能属于一个联队。" in text
    assert 'value="教务物理联队"' in text  # the form is kept
    assert members() == {"教务", "物理"}
    # A member unit that entered the joint team's event on its own: one side only.
    _team_entry(cup, "教务物理联队", players_unit="教务")
    _team_entry(cup, "历史")
    response = post(u["教务"], u["物理"], u["历史"])
    assert response.status_code == 422
    assert (
        "历史已在掼蛋团体单独报名，联队教务物理联队也报名了掼蛋团体，"
        "同一项目联队和它的组成单位只能有一方参赛。"
    ) in response.content.decode()
    # 教务's players play in the joint team's entry: 教务 stays.
    free = Unit.objects.create(tournament=cup, name="化学", kind="union_group")
    response = post(u["物理"], free)
    assert response.status_code == 422
    assert "联队教务物理联队的报名中有教务的选手，教务不能移出联队（请先修改报名）。" in (
        response.content.decode()
    )
    assert members() == {"教务", "物理"}
    # 物理 has no player in the team: it leaves, 化学 joins, and the team is renamed.
    response = post(u["教务"], free, name="教务化学联队")
    assert response.status_code == 302
    assert members() == {"教务", "化学"}
    assert Unit.objects.get(pk=team.pk).name == "教务化学联队"
    assert Entry.objects.get(unit=team).name == "教务化学联队"  # the entry follows the name


def test_a_new_joint_team_may_not_take_a_unit_of_another_joint_team(client, boss, cup):
    client.force_login(boss)
    response = client.post(
        reverse("manage:units", args=[cup.slug]),
        {"name": "教务历史联队", "kind": "joint", "members": [cup.u["教务"].pk, cup.u["历史"].pk]},
    )
    assert response.status_code == 422
    assert "教务已是联队教务物理联队的组成单位，一个单位只能属于一个联队。" in (
        response.content.decode()
    )
    assert not Unit.objects.filter(name="教务历史联队").exists()


def test_removing_asks_first_and_refuses_a_unit_that_holds_anything(client, boss, cup):
    client.force_login(boss)
    units_url = reverse("manage:units", args=[cup.slug])
    history, team = cup.u["历史"], cup.u["教务物理联队"]
    response = client.post(_delete(cup, cup.u["数学"]), follow=True)
    assert "删除单位须先勾选“确认删除”。" in response.content.decode()
    assert Unit.objects.filter(pk=cup.u["数学"].pk).exists()

    _team_entry(cup, "历史")
    Entry.objects.filter(unit=history).update(status=Entry.Status.WITHDRAWN)
    response = client.post(_delete(cup, history), {"confirm": "1"}, follow=True)
    text = response.content.decode()
    assert "“历史”已有1个报名（含已退赛的），不能删除，以免丢失报名、抽签和成绩" in text
    assert Unit.objects.filter(pk=history.pk).exists()
    response = client.post(_delete(cup, cup.u["教务"]), {"confirm": "1"}, follow=True)
    assert "“教务”是联队教务物理联队的组成单位，请先在联队中去掉它，再删除。" in (
        response.content.decode()
    )
    assert Unit.objects.filter(pk=cup.u["教务"].pk).exists()

    # An empty joint team goes, and its members are free again; then an empty unit goes.
    response = client.post(_delete(cup, team), {"confirm": "1"}, follow=True)
    assert "已删除“教务物理联队”。" in response.content.decode()
    assert not Unit.objects.filter(pk=team.pk).exists()
    response = client.post(_delete(cup, cup.u["教务"]), {"confirm": "1"}, follow=True)
    assert "已删除“教务”。" in response.content.decode()
    assert response.redirect_chain[-1][0] == units_url
    assert not Unit.objects.filter(pk=cup.u["教务"].pk).exists()


def test_a_removed_units_leader_loses_it_and_its_invitation_logs_nobody_in(client, boss, cup):
    maths = cup.u["数学"]
    link, token = leader_invite_create(unit=maths, created_by=boss, name="王领队")
    leader = link.leader
    both = User.objects.create_user("both-leader", password="x")
    maths.leaders.add(both)
    cup.u["生物"].leaders.add(both)
    client.force_login(both)
    assert client.get(reverse("registration:home", args=[cup.slug])).status_code == 200
    client.force_login(boss)
    client.post(_delete(cup, maths), {"confirm": "1"})
    assert not Unit.objects.filter(pk=maths.pk).exists()
    assert not LoginLink.objects.filter(pk=link.pk).exists()
    assert not leader.led_units.exists()
    assert list(both.led_units.values_list("name", flat=True)) == ["生物"]
    client.logout()
    # The invitation is gone with the unit.
    response = client.post(reverse("accounts-login-link", args=[token]))
    assert response.status_code == 404
    assert "_auth_user_id" not in client.session
    # The other leader keeps the unit they still lead, and only it.
    client.force_login(both)
    response = client.get(reverse("registration:home", args=[cup.slug]))
    assert response["Location"] == reverse("registration:unit", args=[cup.slug, cup.u["生物"].pk])
    client.force_login(leader)
    assert client.get(reverse("registration:home", args=[cup.slug])).status_code == 403


def test_units_of_another_tournament_are_not_found(client, boss, cup, make_tournament):
    other = make_tournament(slug="other-cup")
    stranger = Unit.objects.create(tournament=other, name="外单位", kind="union_group")
    client.force_login(boss)
    assert client.get(_edit(cup, stranger)).status_code == 404
    assert client.post(_delete(cup, stranger), {"confirm": "1"}).status_code == 404
    assert Unit.objects.filter(pk=stranger.pk).exists()


def test_venues_and_units_share_one_unique_name_check(client, boss, cup):
    Venue.objects.create(tournament=cup, name="活动中心", tables=10)
    client.force_login(boss)
    response = client.post(
        reverse("setup:venues", args=[cup.slug]), {"name": "活动\u200b中心", "tables": "5"}
    )
    assert response.status_code == 422
    assert "已有名为“活动中心”的场地。" in response.content.decode()
    response = client.post(
        reverse("manage:units", args=[cup.slug]), {"name": "历\u200b史", "kind": "office"}
    )
    assert response.status_code == 422
    assert "已有名为“历史”的单位。" in response.content.decode()
