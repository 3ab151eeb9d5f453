"""Anhui 2021 (seeds/004): the 棋牌球 day of the departments, its 掼蛋 pairs event played from
an empty database to results.pdf in a browser.

The notice: 裁判长 肖慧, 裁判 周铃、梁勇; one event per person; 掼蛋 pairs drawn by lot into a
knockout (抽签分组进行淘汰赛), best of three games, promotion 1/3/5: four 双上 deals (2→7→Q→A,
then A passed) win a game, eight win a match 2–0. Four pairs keep it short: two semi-finals,
the final and the third-place match (on by default).
"""

import datetime as dt
import io

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.journeys import people
from tests.journeys.people import SHANGHAI

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "anhui-2022"
EVENT = "guandan"
DEPARTMENTS = ["农学系", "园艺系", "植物保护系", "动物科技系"]
VENUES = [("轻纺楼四楼会议室", 4), ("轻纺楼3A09", 4), ("轻纺楼一楼", 2)]
REFEREES = ["周铃", "梁勇"]
CHIEF = ("肖慧", "xiaohui")
# One pair per department, the first named player first.
PAIRS = {
    "农学系": (("王农", ""), ("李农", "")),
    "园艺系": (("张园", ""), ("刘园", "")),
    "植物保护系": (("陈植", ""), ("杨植", "")),
    "动物科技系": (("赵动", ""), ("吴动", "")),
}


def test_the_anhui_guandan_pairs_day_from_an_empty_database_to_results_pdf(
    live_server, browser, phone_page, settings, tmp_path
):
    base = live_server.url
    day = people.tomorrow()
    username, password = people.first_organiser(settings, tmp_path)

    # 1. The organiser: the tournament, its three halls, the four events, the departments,
    # the officials the notice names.
    organiser = people.desktop(browser)
    people.log_in(organiser, base, username, password)
    people.new_tournament(
        organiser,
        base,
        name="安徽农业大学教职工棋、牌、球比赛（2022）",
        slug=SLUG,
        organiser_name="安徽农业大学工会",
        starts_on=day.isoformat(),
        start_time="09:00",
        registration_deadline=f"{day.isoformat()}T08:00",
        one_event_per_person=True,
        notice_title="关于举办教职工棋、牌、球比赛的通知",
        notice_addressee="各系、实验中心：",
        notice_text="全体教职工凡身体健康者,均可报名参加。以系或实验中心为单位报名。",
    )
    for name, tables in VENUES:
        people.add_venue(organiser, name, tables)
    people.add_event(
        organiser,
        base,
        SLUG,
        name="掼蛋",
        slug=EVENT,
        discipline="guandan_pairs",
        entry_kind="pair",
        ruleset="anhui2021",
        advance_registration_required=True,
        venue="轻纺楼四楼会议室",
    )
    for name, slug, discipline, entry_kind, venue in [
        ("象棋", "xiangqi", "xiangqi", "single", "轻纺楼3A09"),
        ("羽毛球", "badminton", "badminton", "single", "轻纺楼一楼"),
        ("乒乓球", "table-tennis", "table_tennis", "single", "轻纺楼一楼"),
    ]:
        people.add_event(
            organiser,
            base,
            SLUG,
            name=name,
            slug=slug,
            discipline=discipline,
            entry_kind=entry_kind,
            venue=venue,
        )
    people.add_units(organiser, base, SLUG, DEPARTMENTS, kind="department")
    people.add_units(organiser, base, SLUG, ["实验中心"], kind="lab_centre")
    leaders = {"农学系": "nongxue", "园艺系": "yuanyi"}
    for unit, login in leaders.items():
        people.add_leader(organiser, base, SLUG, unit, login)
    people.add_official(organiser, base, SLUG, CHIEF[0], "chief_referee", username=CHIEF[1])
    for name in REFEREES:
        people.add_official(organiser, base, SLUG, name, "referee")
    people.set_status(organiser, base, SLUG, "开放报名", "报名中")

    # 2. Two leaders register a pair on their phones; 植物保护系 sends the Excel form.
    for unit in leaders:
        leader = people.phone(browser)
        people.log_in(leader, base, leaders[unit])
        people.leader_registers(leader, base, SLUG, unit, EVENT, [PAIRS[unit]])
        people.no_overflow(leader)
        people.shot(leader, f"anhui-leader-{unit}")
        leader.context.close()
    people.import_by_excel(
        organiser, base, SLUG, EVENT, "植物保护系", [PAIRS["植物保护系"]], tmp_path
    )
    people.leader_registers(organiser, base, SLUG, "动物科技系", EVENT, [PAIRS["动物科技系"]])

    # 3. Registration closes; the system's draw (its seed on record); referees in order.
    people.set_status(organiser, base, SLUG, "截止报名", "报名截止")
    people.make_draw(organiser, base, SLUG, EVENT, "掼蛋", seed=2022)
    start = dt.datetime.combine(day, dt.time(9, 0), tzinfo=SHANGHAI)
    assignments = people.schedule_with_referees(organiser, base, SLUG, EVENT, start)
    assert [who.split("（")[0] for _, who in assignments[:2]] == REFEREES
    semis = people.ties_to_play(organiser, base, SLUG, EVENT)
    assert len(semis) == 2

    # 4. 周铃 and 梁勇 log in by their links on their phones; 肖慧 with her password.
    referees = {}
    for name in REFEREES:
        url = people.issue_link(organiser, base, SLUG, name)
        referees[name] = people.phone(browser)
        people.redeem_link(referees[name], url)
        expect(referees[name].locator("body")).to_contain_text("棋、牌、球")
    chief = people.desktop(browser)
    people.log_in(chief, base, CHIEF[1])

    # 5. A spectator's phone on the bracket, never reloaded.
    spectator = phone_page  # anonymous, 390 px
    spectator.goto(f"{base}/t/{SLUG}/{EVENT}/bracket/")

    def play(home, away, winner):
        name = people.referee_of(organiser, base, SLUG, EVENT, home, away, REFEREES)
        referee = referees[name]
        people.play_tie(referee, chief, base, SLUG, EVENT, home, away, winner, deals=8)
        expect(referee.locator(".history-list li").first).to_contain_text("赢得第2局")
        return referee

    winners, losers = [], []
    for i, (home, away) in enumerate(semis):
        winner, loser = (home, away) if i == 0 else (away, home)
        referee = play(home, away, winner)
        if i == 0:
            people.shot(referee, "anhui-referee-match-over")
        winners.append(winner)
        losers.append(loser)
        # The winner moves on to the final on the spectator's phone, without a reload.
        expect(spectator.locator("li.match").filter(has_text=winner)).to_have_count(
            2, timeout=10_000
        )
    final, third = people.ties_to_play(organiser, base, SLUG, EVENT)
    if set(final) != set(winners):
        final, third = third, final
    assert set(final) == set(winners) and set(third) == set(losers)
    play(*final, final[1])
    play(*third, third[0])
    placings = [final[1], final[0], third[0], third[1]]
    people.placings_shown(spectator, placings)
    people.no_overflow(spectator)
    people.shot(spectator, "anhui-spectator-final")

    # 5b. After the final, 肖慧 finds the first semi-final entered for the wrong pair: she
    # turns its record round on the correction page, a referee confirms the corrected
    # result, and she voids and replays the final and the 季军争夺战 from the desk.
    home, away = semis[0]
    people.correct_the_wrong_way_round(chief, base, SLUG, EVENT, home, away, "记分表上两对写反了")
    checker = referees[people.referee_of(organiser, base, SLUG, EVENT, home, away, REFEREES)]
    people.open_my_table(checker, base, SLUG, home, away, 1)
    people.confirm(checker)
    # The final and the 季军争夺战 were played by the wrong pairs: under review, on the
    # spectator's phone too, and no one holds the four places meanwhile.
    expect(spectator.locator(".placing-list li")).to_have_text(
        ["冠军 待复核", "亚军 待复核", "季军 待复核", "第4名 待复核"], timeout=10_000
    )
    people.void_and_replay_flagged(chief, base, SLUG, "半决赛记录写反，按更正后的对阵重赛")
    winners[0], losers[0] = losers[0], winners[0]
    final, third = people.ties_to_play(organiser, base, SLUG, EVENT)
    if set(final) != set(winners):
        final, third = third, final
    assert set(final) == set(winners) and set(third) == set(losers)
    play(*final, final[0])
    play(*third, third[1])
    placings = [final[0], final[1], third[1], third[0]]
    people.placings_shown(spectator, placings)
    people.no_overflow(spectator)

    # 6. results.pdf from the tournament page's link.
    spectator.goto(f"{base}/t/{SLUG}/")
    href = spectator.get_by_role("link", name="成绩公告与奖状（PDF）").get_attribute("href")
    response = spectator.request.get(f"{base}{href}")
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(response.body())).pages)
    people.check_placings(text, placings)
    assert "作废重赛" in text and "半决赛记录写反" in text  # 仲裁组说明
