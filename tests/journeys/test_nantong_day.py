"""Nantong 2014 (seeds/000): the 掼蛋 team event of the union groups, played from an empty
database to results.pdf in a browser — the organiser at a desktop, leaders, referees and a
spectator on phones.

The notice: three pairs a team, two of three tables win a tie, knockout of the eight with a
third-place match; the meeting's lots give 体育—行政, 教务物理联队—生物数学联队, 历史—实验技术,
后勤—政治. One game to past A, promotion 3/2/1: five 双上 deals (2→5→8→J→A, then A passed) win
a table, and a tie stops 2–0 (the third table 不再进行).
"""

import datetime as dt
import io

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.journeys import people
from tests.journeys.people import SHANGHAI

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "nantong-2015"
EVENT = "guandan"
UNION_GROUPS = ["体育", "行政", "教务", "物理", "生物", "数学", "历史", "实验技术", "后勤", "政治"]
JOINT = {"教务物理联队": ["教务", "物理"], "生物数学联队": ["生物", "数学"]}
# 附：分组结果及赛程安排 — lot k is slot k: 1–2, 3–4, 5–6, 7–8 are the quarter-finals.
LOTS = ["体育", "行政", "教务物理联队", "生物数学联队", "历史", "实验技术", "后勤", "政治"]
REFEREES = ["钱立", "孙倩", "李敏", "周涛"]
CHIEF = ("顾明", "guming")
# Who wins each tie, in the order they are played.
QUARTERS = [("体育", "行政", "体育"), ("教务物理联队", "生物数学联队", "生物数学联队")]
QUARTERS += [("历史", "实验技术", "历史"), ("后勤", "政治", "政治")]
SEMIS = [("体育", "生物数学联队", "体育"), ("历史", "政治", "政治")]
FINALS = [("体育", "政治", "政治"), ("生物数学联队", "历史", "历史")]
PLACINGS = ["政治", "体育", "历史", "生物数学联队"]


def pairs_of(team: str):
    """Three made-up pairs of a team; a joint team's players come from its member units."""
    members = JOINT.get(team)
    pairs = []
    for n in range(1, 4):
        first = (f"{team[:2]}甲{n}", members[0] if members else "")
        second = (f"{team[:2]}乙{n}", members[-1] if members else "")
        pairs.append((first, second))
    return pairs


def test_the_nantong_day_from_an_empty_database_to_results_pdf(
    live_server, browser, phone_page, settings, tmp_path
):
    base = live_server.url
    day = people.tomorrow()
    username, password = people.first_organiser(settings, tmp_path)

    # 1. The organiser sets the day up at a desktop.
    organiser = people.desktop(browser)
    people.log_in(organiser, base, username, password)
    people.new_tournament(
        organiser,
        base,
        name="第三届“轻松假日”教工扑克牌（掼蛋）比赛",
        slug=SLUG,
        organiser_name="江苏省南通中学工会",
        starts_on=day.isoformat(),
        start_time="14:00",
        registration_deadline=f"{day.isoformat()}T12:00",
        leaders_meeting_at=f"{day.isoformat()}T10:00",
        leaders_meeting_place="科学楼底楼会议室",
        notice_title="江苏省南通中学工会关于举行第三届“轻松假日”教工扑克牌比赛的通知",
        notice_addressee="各工会小组：",
        notice_text="以工会小组为单位，每个工会小组报三组选手,两人配对为一组，男女不限。",
    )
    expect(organiser.locator("h1")).to_contain_text("场地")
    people.add_venue(organiser, "本校教工活动中心", 12)
    people.add_event(
        organiser,
        base,
        SLUG,
        name="掼蛋团体赛",
        slug=EVENT,
        discipline="guandan_team",
        entry_kind="team",
        pairs_per_team=3,
        ruleset="nantong2014",
        venue="本校教工活动中心",
    )
    people.add_units(organiser, base, SLUG, UNION_GROUPS)
    for name, members in JOINT.items():
        people.add_joint_team(organiser, base, SLUG, name, members)
    leaders = {"体育": "tiyu", "教务物理联队": "jiaowu-wuli", "行政": "xingzheng"}
    for unit, login in leaders.items():
        people.add_leader(organiser, base, SLUG, unit, login)
    for name in REFEREES:
        people.add_official(organiser, base, SLUG, name, "referee")
    people.add_official(organiser, base, SLUG, CHIEF[0], "chief_referee", username=CHIEF[1])
    people.set_status(organiser, base, SLUG, "开放报名", "报名中")

    # 2. Leaders register on their phones; 行政's leader fills in the unit's Excel form.
    for unit in ("体育", "教务物理联队"):
        leader = people.phone(browser)
        people.log_in(leader, base, leaders[unit])
        people.leader_registers(leader, base, SLUG, unit, EVENT, pairs_of(unit))
        people.no_overflow(leader)
        people.shot(leader, f"nantong-leader-{unit}")
        leader.context.close()
    leader = people.phone(browser)
    people.log_in(leader, base, leaders["行政"])
    people.import_by_excel(
        leader, base, SLUG, EVENT, "行政", pairs_of("行政"), tmp_path, leader=True
    )
    expect(leader.locator("main")).to_contain_text("行政")
    people.no_overflow(leader)
    leader.context.close()
    for unit in [t for t in LOTS if t not in ("体育", "教务物理联队", "行政")]:
        people.leader_registers(organiser, base, SLUG, unit, EVENT, pairs_of(unit))
    organiser.goto(f"{base}/t/{SLUG}/manage/entries/")
    for team in LOTS:
        expect(organiser.locator("main")).to_contain_text(team)

    # 3. Registration closes; the meeting's lots; the schedule with a referee per tie.
    people.set_status(organiser, base, SLUG, "截止报名", "报名截止")
    lots = {team: n for n, team in enumerate(LOTS, 1)}
    people.make_draw(organiser, base, SLUG, EVENT, "掼蛋团体赛", lots=lots)
    start = dt.datetime.combine(day, dt.time(14, 0), tzinfo=SHANGHAI)
    assignments = people.schedule_with_referees(organiser, base, SLUG, EVENT, start)
    assert all("—" not in who for _, who in assignments[:4]), assignments
    organiser.goto(f"{base}/t/{SLUG}/{EVENT}/bracket/")
    quarter_cards = organiser.locator("li.match")
    for home, away, _ in QUARTERS:
        expect(quarter_cards.filter(has_text=home).filter(has_text=away)).to_have_count(1)

    # 4. Each referee logs in by their one-time link on a phone; the chief at the desk.
    referees = {}
    for name in REFEREES:
        url = people.issue_link(organiser, base, SLUG, name)
        referees[name] = people.phone(browser)
        people.redeem_link(referees[name], url)
        # Each lands where their work is: 我的台, under their own name.
        expect(referees[name].get_by_role("heading", name=f"我的台：{name}")).to_be_visible()
    chief = people.desktop(browser)
    people.log_in(chief, base, CHIEF[1])
    # The chief referee lands on the desk.
    expect(chief.locator("main h1")).to_contain_text("裁判长")

    # 5. A spectator's phone on the bracket, never reloaded.
    spectator = phone_page  # anonymous, 390 px
    spectator.goto(f"{base}/t/{SLUG}/{EVENT}/bracket/")
    # The draw as the notice's 附：分组结果及赛程安排 publishes it.
    sheet = spectator.locator(".draw-sheet")
    for group, (home, away, _) in zip("ABCD", QUARTERS, strict=True):
        expect(sheet).to_contain_text(f"{group}组：{home}——{away}")
    expect(sheet).to_contain_text("季军争夺战：A1、B1负队——C1、D1负队")

    def play_tie(home, away, winner):
        name = people.referee_of(organiser, base, SLUG, EVENT, home, away, REFEREES)
        referee = referees[name]
        people.play_tie(referee, chief, base, SLUG, EVENT, home, away, winner, deals=5, tables=3)
        return referee

    # A referee enters only their own ties: on another's table there is nothing to tap.
    first, second = QUARTERS[0][:2], QUARTERS[1][:2]
    mine = referees[people.referee_of(organiser, base, SLUG, EVENT, *first, REFEREES)]
    people.open_table(mine, base, SLUG, EVENT, *second, 1)
    expect(mine.locator(".scoreboard")).to_be_visible()
    expect(mine.locator(".deal-col")).to_have_count(0)
    people.open_table(mine, base, SLUG, EVENT, *first, 1)
    expect(mine.locator(".deal-col")).to_have_count(2)

    # 6. The quarter-finals are entered by the players (扫码录分): the organiser chooses it
    # on the settings page and prints the round's score sheets; each table's code opens its
    # entry on a player's phone without a login, the other side confirms — on the same
    # phone, or on their own from the same code; one result is disputed (有异议) and the
    # tie's referee, called to 我的台, resolves it; one phone loses the hall's Wi-Fi.
    people.set_result_entry(organiser, base, SLUG, "选手扫码录入，对方选手确认")
    sheets = people.score_sheet_codes(organiser, base, SLUG, EVENT, tmp_path)
    assert len(sheets) == 12 and all("/play/" in s["url"] for s in sheets), sheets
    for i, (home, away, winner) in enumerate(QUARTERS):
        codes = [s["url"] for s in sheets if home in s["text"] and away in s["text"]]
        assert len(codes) == 3, (home, away)
        column = 0 if winner == home else 1
        side = "AB"[column]
        for number, url in enumerate(codes[:2], start=1):
            offline = i == 2 and number == 1
            # the winners' phone at the table
            players = people.phone(browser, service_workers="allow" if offline else "block")
            if offline:
                people.players_tap_offline_and_reload(players, url, column)
            people.players_enter(players, url, column)
            people.players_submit(players, side)
            people.no_overflow(players)
            if i == 0 and number == 1:
                people.shot(players, "nantong-players-submitted")
            if i == 3 and number == 1:
                # 有异议: the other side calls the referee instead of confirming.
                players.get_by_label("异议（选填）").fill("最后一副不是双上")
                players.get_by_role("button", name="有异议，呼叫裁判").click()
                expect(players.locator("body")).to_contain_text("已呼叫裁判，请在本台等候")
                name = people.referee_of(organiser, base, SLUG, EVENT, home, away, REFEREES)
                referee = referees[name]
                referee.goto(f"{base}/t/{SLUG}/referee/mine/")
                calls = referee.locator(".calls")
                expect(calls).to_contain_text("对结果有异议")
                expect(calls).to_contain_text("最后一副不是双上")
                chief.goto(f"{base}/t/{SLUG}/referee/")
                expect(chief.locator(".calls")).to_contain_text("最后一副不是双上")
                people.shot(referee, "nantong-referee-called")
                calls.locator("a").first.click()
                # The record is right: the referee confirms it, which ends the call.
                people.confirm(referee)
                expect(referee.locator("main")).to_contain_text(f"{side}方选手扫码录入，裁判确认")
            elif number == 1:
                people.players_confirm(players)  # handed over: the same phone
            else:
                theirs = people.phone(browser)
                theirs.goto(url)
                people.players_confirm(theirs)
                theirs.context.close()
            players.context.close()
        # The tie is decided 2–0: its third table says so on the players' phone too.
        third = people.phone(browser)
        third.goto(codes[2])
        expect(third.locator("main")).to_contain_text("这一台不再进行")
        expect(third.locator(".deal-col")).to_have_count(0)
        third.context.close()
        # The spectator's bracket shows the winner in the semi-final, without a reload.
        expect(spectator.locator("li.match").filter(has_text=winner)).to_have_count(
            2, timeout=10_000
        )
    chief.goto(f"{base}/t/{SLUG}/referee/")
    expect(chief.locator(".calls")).to_have_count(0)
    people.shot(spectator, "nantong-spectator-after-quarters")
    # Two more phones, never reloaded: one on the second semi-final's tie, one on its first
    # table. The first semi-final's deals leave them as they were; their own tie's deals
    # and results reach them by their polls.
    home, away, _winner = SEMIS[1]
    tie_watcher = people.phone(browser)
    tie_watcher.goto(f"{base}/t/{SLUG}/{EVENT}/bracket/")
    card = tie_watcher.locator("li.match").filter(has_text=home).filter(has_text=away)
    card.locator(".match-link").click()
    table_watcher = people.phone(browser)
    table_watcher.goto(tie_watcher.url)
    table_watcher.locator("a.table-card").first.click()
    table_watcher.wait_for_load_state()
    play_tie(*SEMIS[0])
    tie_watcher.wait_for_timeout(6_000)  # a poll or more
    expect(tie_watcher.locator("a.table-card.status-open")).to_have_count(3)
    expect(table_watcher.locator(".history-list li")).to_have_count(0)
    play_tie(*SEMIS[1])
    expect(tie_watcher.locator("a.table-card.status-confirmed")).to_have_count(2, timeout=15_000)
    expect(tie_watcher.locator("a.table-card.status-not_played")).to_have_count(1)
    expect(table_watcher.locator(".history-list li")).to_have_count(5, timeout=15_000)
    expect(table_watcher.locator("#table-panel h1 .status")).to_have_text("已确认", timeout=15_000)
    for watcher, name in ((tie_watcher, "tie"), (table_watcher, "table")):
        people.no_overflow(watcher)
        people.shot(watcher, f"nantong-spectator-semi-{name}")
        watcher.context.close()
    for home, away, winner in FINALS:
        play_tie(home, away, winner)
    people.placings_shown(spectator, PLACINGS)
    people.no_overflow(spectator)
    people.shot(spectator, "nantong-spectator-final")

    # 6. results.pdf from the tournament page's link: the placings the bracket gives.
    spectator.goto(f"{base}/t/{SLUG}/")
    href = spectator.get_by_role("link", name="成绩公告与奖状（PDF）").get_attribute("href")
    response = spectator.request.get(f"{base}{href}")
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(response.body())).pages)
    # 比赛设一、二、三等奖和纪念奖; a certificate for each prize winner.
    people.check_placings(text, PLACINGS, prizes=("一等奖", "二等奖", "三等奖", "纪念奖"))
    assert "政治在第三届" in text and "荣获一等奖" in text
