"""Anhui 2021 (seeds/004): the 棋牌球 day of the departments, from an empty database to
results.pdf in a browser: all four events entered and drawn, the whole day planned at once
on 全天赛程 (the ball hall shared by 羽毛球 and 乒乓球, the lunch break kept free), the public
timeline on a phone (in Chinese and in English), and the 掼蛋 pairs event played by the
referee on duty in its hall.

The notice: 裁判长 肖慧, 裁判 周铃、梁勇; one event per person; 掼蛋 pairs drawn by lot into a
knockout (抽签分组进行淘汰赛), best of three games, promotion 1/3/5: four 双上 deals (2→7→Q→A,
then A passed) win a game, eight win a match 2–0. Four pairs keep it short: two semi-finals,
the final and the third-place match (on by default).
"""

import io
import re

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.journeys import people

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
# One player per department in each single event: one event per person, so all different.
SINGLES = {
    "xiangqi": {"农学系": "孙农", "园艺系": "周园", "植物保护系": "郑植", "动物科技系": "钱动"},
    "badminton": {"农学系": "何农", "园艺系": "马园", "植物保护系": "罗植", "动物科技系": "高动"},
    "table-tennis": {
        "农学系": "林农",
        "园艺系": "黄园",
        "植物保护系": "徐植",
        "动物科技系": "朱动",
    },
}
EVENT_NAMES = {EVENT: "掼蛋", "xiangqi": "象棋", "badminton": "羽毛球", "table-tennis": "乒乓球"}
GUANDAN_HALL, BALL_HALL = "轻纺楼四楼会议室", "轻纺楼一楼"


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

    # 2. Two leaders register a pair and their three single players on their phones;
    # 植物保护系 sends the Excel form for its pair; the organiser enters the rest (代单位报名).
    for unit in leaders:
        leader = people.phone(browser)
        people.log_in(leader, base, leaders[unit])
        people.leader_registers(leader, base, SLUG, unit, EVENT, [PAIRS[unit]])
        for event, players in SINGLES.items():
            people.registers_singles(leader, base, SLUG, unit, event, [players[unit]])
        people.no_overflow(leader)
        people.shot(leader, f"anhui-leader-{unit}")
        leader.context.close()
    people.import_by_excel(
        organiser, base, SLUG, EVENT, "植物保护系", [PAIRS["植物保护系"]], tmp_path
    )
    people.leader_registers(organiser, base, SLUG, "动物科技系", EVENT, [PAIRS["动物科技系"]])
    for unit in ("植物保护系", "动物科技系"):
        for event, players in SINGLES.items():
            people.registers_singles(organiser, base, SLUG, unit, event, [players[unit]])

    # 3. Registration closes; the system's draw of each event (its seed on record).
    people.set_status(organiser, base, SLUG, "截止报名", "报名截止")
    for seed, (event, name) in enumerate(EVENT_NAMES.items(), start=2022):
        people.make_draw(organiser, base, SLUG, event, name, seed=seed)
    semis = people.ties_to_play(organiser, base, SLUG, EVENT)
    assert len(semis) == 2

    # 3b. The whole day at once. The ball hall has six courts and tables, not two: 羽毛球 on
    # courts 1–2, 乒乓球 on tables 3–6. The day starts at 09:00 as the notice says, lunch is
    # kept free; the preview lists every match of the four events, then one tap saves it.
    people.set_tables(organiser, base, SLUG, BALL_HALL, 6)
    preview = people.plan_the_day(
        organiser,
        base,
        SLUG,
        day={"当天开始": "09:00", "休息时段": "12:00-13:30"},
        halls={"羽毛球": {BALL_HALL: "1-2"}, "乒乓球": {BALL_HALL: "3-6"}},
    )
    rows = preview.locator("tbody tr")
    expect(rows).to_have_count(16)  # four knockouts of four: 2 semi-finals, final, 3rd place
    for name in EVENT_NAMES.values():
        expect(rows.filter(has_text=f"{name} · ")).to_have_count(4)
    expect(
        rows.filter(has_text="羽毛球 · ").filter(has_text=re.compile(f"{BALL_HALL} [12]号"))
    ).to_have_count(4)
    expect(
        rows.filter(has_text="乒乓球 · ").filter(has_text=re.compile(f"{BALL_HALL} [3-6]号"))
    ).to_have_count(4)
    for row in rows.all():  # nothing in the lunch break
        time = row.locator("td").nth(1).inner_text()
        starts, ends = time[:5], time[6:11]
        assert ends <= "12:00" or starts >= "13:30", row.inner_text()
    expect(preview.locator(".problems")).to_have_count(0)  # no warning: all placed, refereed
    people.shot(organiser, "anhui-day-plan-preview")
    people.save_the_day(organiser)
    expect(organiser.locator("section.day-check .ok")).to_have_text(
        "没有冲突；每场都有时间、场地和裁判。"
    )
    people.shot(organiser, "anhui-day-plan-saved")

    # 3c. A spectator's phone on the public timeline: each hall, one above the other, with
    # its matches; then the same page in English.
    timeline = people.phone(browser)
    timeline.goto(f"{base}/t/{SLUG}/schedule/")
    halls = timeline.locator("section.timeline-hall")
    expect(halls).to_have_count(3)
    for hall, count in ((GUANDAN_HALL, 4), ("轻纺楼3A09", 4), (BALL_HALL, 8)):
        section = halls.filter(has=timeline.get_by_role("heading", name=hall, exact=True))
        expect(section.locator(".timeline-slot")).to_have_count(count)
        expect(section.locator(".slot-time").first).to_have_text(
            re.compile(r"^\d\d:\d\d–\d\d:\d\d$")
        )
    expect(timeline.locator(".timeline-slot").filter(has_text="裁判 ")).to_have_count(16)
    boxes = halls.evaluate_all("els => els.map(e => e.getBoundingClientRect().left)")
    assert len(set(boxes)) == 1, boxes  # stacked on a phone, the full width of the page
    heading = timeline.locator("h1").evaluate("e => e.getBoundingClientRect().left")
    assert boxes[0] == heading, (boxes, heading)
    people.no_overflow(timeline)
    people.shot(timeline, "anhui-timeline-phone")
    timeline.get_by_role("button", name="English").click()
    expect(timeline.get_by_role("heading", name="Day plan", exact=True)).to_be_visible()
    expect(timeline.locator(".timeline-slot").filter(has_text="Referee ")).to_have_count(16)
    people.no_overflow(timeline)
    people.shot(timeline, "anhui-timeline-phone-en")
    (people.SHOTS / "anhui-timeline-en.txt").write_text(
        timeline.locator("main").inner_text(), encoding="utf-8"
    )
    timeline.context.close()
    wide = people.desktop(browser)
    wide.goto(f"{base}/t/{SLUG}/schedule/")
    tops = wide.locator("section.timeline-hall").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().top)"
    )
    assert len(set(tops)) == 1, tops  # side by side on a desktop
    people.shot(wide, "anhui-timeline-desktop")
    wide.context.close()

    # 4. 周铃 and 梁勇 log in by their links on their phones; 肖慧 with her password. Each
    # one's 我的台 says which hall they are on duty in, and when.
    referees = {}
    for name in REFEREES:
        url = people.issue_link(organiser, base, SLUG, name)
        referees[name] = people.phone(browser)
        people.redeem_link(referees[name], url)
        expect(referees[name].locator("body")).to_contain_text("棋、牌、球")
    chief = people.desktop(browser)
    people.log_in(chief, base, CHIEF[1])
    duties = {
        name: people.duties_of(page, base, SLUG)
        for name, page in [*referees.items(), (CHIEF[0], chief)]
    }
    (people.SHOTS / "anhui-duties.txt").write_text(repr(duties), encoding="utf-8")
    in_guandan_hall = [n for n, ds in duties.items() if any(h == GUANDAN_HALL for h, _, _ in ds)]
    assert in_guandan_hall, duties
    for name in in_guandan_hall:
        people.shot(referees.get(name, chief), f"anhui-duty-mine-{name}")

    # 5. A spectator's phone on the bracket, never reloaded.
    spectator = phone_page  # anonymous, 390 px
    spectator.goto(f"{base}/t/{SLUG}/{EVENT}/bracket/")

    def on_duty(home, away):
        """The referee on duty in the 掼蛋 hall whose 我的台 lists the tie."""
        for name in in_guandan_hall:
            page = referees.get(name, chief)
            page.goto(f"{base}/t/{SLUG}/referee/mine/")
            if page.locator("li.my-table").filter(has_text=f"{home}—{away}").count():
                return page
        raise AssertionError(f"no one on duty lists {home}—{away}: {duties}")

    def play(home, away, winner):
        referee = on_duty(home, away)
        # A second official confirms at the desk: 肖慧, or the organiser for the ties she
        # entered herself, on duty in the hall.
        desk = organiser if referee is chief else chief
        people.play_tie(referee, desk, base, SLUG, EVENT, home, away, winner, deals=8)
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
    # turns its record round on the correction page, a second official confirms the corrected
    # result, and she voids and replays the final and the 季军争夺战 from the desk.
    home, away = semis[0]
    people.correct_the_wrong_way_round(chief, base, SLUG, EVENT, home, away, "记分表上两对写反了")
    checker = on_duty(home, away)
    if checker is chief:  # she corrected it: the organiser confirms at the desk
        people.confirm_at_desk(organiser, base, SLUG)
    else:
        people.open_my_table(checker, base, SLUG, home, away, 1)
        people.confirm(checker)
    # The final and the 季军争夺战 were played by the wrong pairs: under review, on the
    # spectator's phone too, and no one holds the four places meanwhile.
    expect(spectator.locator(".placing-list li:nth-child(-n+4)")).to_have_text(
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
