"""What each person of a seed day does in the browser, one function a step: the organiser at
a desktop, team leaders, referees and a spectator on 390-px phones.

Everything goes through the app's pages (or the HTTP POST of a page's own form); the only
set-up outside them is the README's ``manage.py ensure_organiser``. Screenshots land in
``JOURNEY_SHOTS`` (default: a temporary folder) so a person can look at what each one saw.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import subprocess
import tempfile
from pathlib import Path
from zoneinfo import ZoneInfo

from django.core.management import call_command
from openpyxl import load_workbook
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.journeys.words import CHINESE, SWITCH, say

SHANGHAI = ZoneInfo("Asia/Shanghai")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
PASSWORD = "Journey-2026-pass"
SHOTS = Path(os.environ.get("JOURNEY_SHOTS") or Path(tempfile.gettempdir()) / "journey-shots")


def tomorrow() -> dt.date:
    """The day of play: tomorrow in Shanghai, so registration is still open today."""
    return dt.datetime.now(SHANGHAI).date() + dt.timedelta(days=1)


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def no_overflow(page) -> None:
    """Nothing is wider than the phone."""
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0


def phone(browser, *, service_workers: str = "block"):
    """A 390-px phone. Service workers are blocked but on the phone that tests opening a
    page offline: a page a worker keeps goes on polling after its context closes."""
    return browser.new_context(viewport=PHONE, service_workers=service_workers).new_page()


def desktop(browser):
    return browser.new_context(viewport=DESKTOP, service_workers="block").new_page()


def switch_language(page, lang: str) -> None:
    """The header's language switch: the button named in ``lang``, on the page one is on;
    the page comes back in that language (the cookie it sets keeps it so)."""
    page.locator(".lang-switch").get_by_role("button", name=SWITCH[lang], exact=True).click()
    page.wait_for_load_state()
    html = "zh-CN" if lang == CHINESE else lang
    expect(page.locator("html")).to_have_attribute("lang", html)


# --------------------------------------------------------------------------- logging in
def first_organiser(settings, tmp_path) -> tuple[str, str]:
    """The README's one command outside the pages: ``manage.py ensure_organiser``, which
    prints the login (its password file goes to a temporary var/)."""
    settings.VAR_DIR = tmp_path
    out = io.StringIO()
    call_command("ensure_organiser", stdout=out)
    found = re.search(r"username: (\S+)\s+password: (\S+)", out.getvalue())
    assert found, out.getvalue()
    return found.group(1), found.group(2)


def log_in(page, base: str, username: str, password: str = PASSWORD, lang: str = CHINESE) -> None:
    """The login page, switched to ``lang`` first if it is not Chinese."""
    page.goto(f"{base}/accounts/login/")
    if lang != CHINESE:
        switch_language(page, lang)
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    expect(page.locator("#id_password")).to_have_count(0)


def redeem_link(page, url: str, lang: str = CHINESE) -> None:
    """A referee opens the one-time link on their phone (switching the page to ``lang``
    first, if it is not Chinese) and taps 登录."""
    page.goto(url)
    if lang != CHINESE:
        switch_language(page, lang)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()


# --------------------------------------------------------------------------- set-up
def new_tournament(page, base: str, lang: str = CHINESE, **fields) -> str:
    """新建比赛 from the tournaments list; answers the tournament's slug."""
    page.goto(f"{base}/")
    page.get_by_role("link", name=say("新建比赛", lang)).click()
    for name, value in fields.items():
        locator = page.locator(f"#id_{name}")
        if locator.evaluate("e => e.tagName") == "SELECT":
            locator.select_option(value)
        elif locator.get_attribute("type") == "checkbox":
            locator.set_checked(bool(value))
        else:
            locator.fill(value)
    page.get_by_role("button", name=say("创建比赛", lang)).click()
    created = say("已新建比赛“{name}”（草稿）", lang, name=fields["name"])
    expect(page.locator("body")).to_contain_text(created)
    return fields["slug"]


def add_venue(page, name: str, tables: int, lang: str = CHINESE) -> None:
    """On 场地与桌数 (where 新建比赛 leads)."""
    page.fill("#id_name", name)
    page.fill("#id_tables", str(tables))
    page.get_by_role("button", name=say("添加", lang)).click()
    expect(page.locator("main")).to_contain_text(name)


def add_event(page, base: str, tournament: str, lang: str = CHINESE, **fields) -> None:
    page.goto(f"{base}/t/{tournament}/manage/events/new/")
    for name, value in fields.items():
        locator = page.locator(f"#id_{name}")
        if locator.evaluate("e => e.tagName") == "SELECT":
            locator.select_option(value)
        elif locator.get_attribute("type") == "checkbox":
            locator.set_checked(bool(value))
        else:
            locator.fill(str(value))
    page.get_by_role("button", name=say("保存", lang)).click()
    expect(page.locator("main")).to_contain_text(fields["name"])


def add_units(
    page, base: str, slug: str, names, kind: str = "union_group", lang: str = CHINESE
) -> None:
    page.goto(f"{base}/t/{slug}/manage/units/")
    for name in names:
        page.fill("#id_name", name)
        page.locator("#id_kind").select_option(kind)
        page.get_by_role("button", name=say("添加", lang), exact=True).click()
        expect(page.locator(".unit-list")).to_contain_text(name)


def add_joint_team(page, base: str, slug: str, name: str, members) -> None:
    page.goto(f"{base}/t/{slug}/manage/units/")
    page.fill("#id_name", name)
    page.locator("#id_kind").select_option("joint")
    for member in members:
        page.locator("#id_members").get_by_label(member, exact=True).check()
    page.get_by_role("button", name="添加", exact=True).click()
    expect(page.locator(".unit-list")).to_contain_text(f"{name} 联队：{'、'.join(members)}")


def add_leader(page, base: str, slug: str, unit: str, username: str, lang: str = CHINESE) -> None:
    """新建领队账号 on the units page, for one unit."""
    page.goto(f"{base}/t/{slug}/manage/units/")
    card = page.locator(".unit-list > li").filter(
        has=page.locator("strong", has_text=re.compile(f"^{re.escape(unit)}$"))
    )
    card.locator("summary", has_text=say("新建带密码的领队账号", lang)).click()
    card.locator("input[name=username]").fill(username)
    card.locator("input[name=password]").fill(PASSWORD)
    card.get_by_role("button", name=say("创建", lang)).click()
    card = page.locator(".unit-list > li").filter(
        has=page.locator("strong", has_text=re.compile(f"^{re.escape(unit)}$"))
    )
    expect(card).to_contain_text(say("领队账号：{username}", lang, username=username))


def add_official(
    page, base: str, slug: str, name: str, role: str, username: str = "", lang: str = CHINESE
) -> None:
    page.goto(f"{base}/t/{slug}/manage/officials/")
    page.fill("#id_name", name)
    page.locator("#id_role").select_option(role)
    if username:
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name=say("添加", lang), exact=True).click()
    expect(page.locator("main")).to_contain_text(name)


def set_status(page, base: str, slug: str, button: str, shows: str, lang: str = CHINESE) -> None:
    """开放报名 / 截止报名 on the dashboard."""
    page.goto(f"{base}/t/{slug}/manage/")
    page.get_by_role("button", name=say(button, lang)).click()
    expect(page.locator("main")).to_contain_text(say(shows, lang))


# --------------------------------------------------------------------------- registration
def leader_registers(
    page, base: str, slug: str, unit: str, event: str, pairs, lang: str = CHINESE
) -> None:
    """A leader, logged in on a phone, opens their unit's page and fills in its pairs:
    ``pairs`` is a list of ((name, unit or ""), (name, unit or "")) per pair."""
    page.goto(f"{base}/t/{slug}/register/")
    if "/units/" not in page.url:  # a leader of one unit goes straight to it
        page.get_by_role("link", name=unit, exact=True).click()
    expect(page.locator("h1")).to_contain_text(say("{unit} · 报名", lang, unit=unit))
    section = page.locator(f"#event-{event}")
    for number, pair in enumerate(pairs, start=1):
        for seat, (name, member) in enumerate(pair, start=1):
            prefix = f"{event}-p{number}_{seat}"  # the form's prefix is the event's slug
            section.locator(f"[name={prefix}_name]").fill(name)
            if member:
                section.locator(f"[name={prefix}_unit]").select_option(member)
    section.get_by_role("button", name=say("提交报名", lang)).click()
    section = page.locator(f"#event-{event}")
    expect(section.locator(".notice-ok")).to_contain_text(say("已为{unit}报名", lang, unit=unit))
    for pair in pairs:
        for name, member in pair:
            # A joint team's player is shown with the member unit they come from.
            shown = f"{name}·{member}" if member else name
            expect(section.locator(".entry-list")).to_contain_text(shown)


def registers_singles(
    page, base: str, slug: str, unit: str, event: str, names, lang: str = CHINESE
) -> None:
    """A leader on their phone, or the organiser by 代单位报名, enters single players one
    at a time on the unit's page: 新增报名, the player's name, 提交报名."""
    page.goto(f"{base}/t/{slug}/register/")
    if "/units/" not in page.url:  # the organiser (or a leader of several units) picks it
        page.get_by_role("link", name=unit, exact=True).click()
    expect(page.locator("h1")).to_contain_text(say("{unit} · 报名", lang, unit=unit))
    for name in names:
        section = page.locator(f"#event-{event}")
        add = section.locator("details.add-entry")
        if add.get_attribute("open") is None:
            add.locator("summary").click()
        section.locator(f"[name={event}-s_name]").fill(name)
        section.get_by_role("button", name=say("提交报名", lang)).click()
        section = page.locator(f"#event-{event}")
        registered = say("已为{unit}报名", lang, unit=unit)
        expect(section.locator(".notice-ok")).to_contain_text(registered)
        expect(section.locator(".entry-list")).to_contain_text(name)


def set_tables(page, base: str, slug: str, venue: str, tables: int, lang: str = CHINESE) -> None:
    """场地 → the hall's 修改 → its number of tables or courts → 保存."""
    page.goto(f"{base}/t/{slug}/manage/")
    page.locator(".manage-nav").get_by_role("link", name=say("场地", lang), exact=True).click()
    page.locator(f"tr[data-venue='{venue}']").get_by_role("link", name=say("修改", lang)).click()
    page.fill("#id_tables", str(tables))
    page.get_by_role("button", name=say("保存", lang)).click()
    expect(page.locator("body")).to_contain_text(say("场地“{venue}”已保存。", lang, venue=venue))
    expect(page.locator(f"tr[data-venue='{venue}']")).to_contain_text(str(tables))


def import_by_excel(
    page, base: str, slug: str, event: str, unit: str, pairs, folder, *, leader: bool = False
) -> None:
    """A unit's form downloaded, filled in (openpyxl here), uploaded, its preview checked and
    the import confirmed: by the organiser on the event's import page, or (``leader``) by
    the unit's leader on their phone from the unit's page (下载本单位报名表, 上传填好的报名表)."""
    from tournaments.registration.spreadsheets import layout

    if leader:
        page.goto(f"{base}/t/{slug}/register/")  # a leader of one unit lands on its page
        section = page.locator(f"#event-{event}")
        download = section.get_by_role("link", name="下载本单位报名表")
    else:
        page.goto(f"{base}/t/{slug}/{event}/entries/import/")
        download = page.get_by_role("link", name="下载报名表模板")
    with page.expect_download() as info:
        download.click()
    path = Path(folder) / "form.xlsx"
    info.value.save_as(path)
    book = load_workbook(path)
    sheet = book["报名表"]
    headers = [c.value for c in sheet[layout.HEADER_ROW]]
    row = sheet.max_row + 1
    for number, pair in enumerate(pairs, start=1):
        values = {layout.UNIT: unit, layout.NUMBER: number}
        if len(pairs) == 1:
            values.pop(layout.NUMBER)
        for seat, (name, member) in zip((layout.FIRST, layout.SECOND), pair, strict=True):
            values[seat + layout.NAME] = name
            if member:
                values[seat + layout.PLAYER_UNIT] = member
        for column, header in enumerate(headers, start=1):
            if header in values:
                sheet.cell(row=row, column=column, value=values[header])
        row += 1
    book.save(path)
    if leader:
        section.get_by_role("link", name="上传填好的报名表").click()
        expect(page.locator("main")).to_contain_text("只导入本单位的报名")
    page.set_input_files("#id_file", str(path))
    page.get_by_role("button", name="上传并检查").click()
    expect(page.locator("main")).to_contain_text(unit)
    if leader:
        no_overflow(page)
        shot(page, f"leader-excel-preview-{unit}")
    page.get_by_role("button", name="确认导入").click()
    expect(page.locator("body")).to_contain_text("已导入1个报名")


# --------------------------------------------------------------------------- the draw
def make_draw(
    page, base: str, slug: str, event: str, event_name: str, lots=None, seed=None, lang=CHINESE
):
    """The lots drawn at the leaders' meeting typed in on the draw page (``lots``: entry
    name → lot), or the system's random draw with a recorded ``seed``."""
    page.goto(f"{base}/t/{slug}/{event}/draw/")
    if lots:
        page.locator("input[name=method][value=physical]").check()
        for name, lot in lots.items():
            page.get_by_label(say("{name}的签号", lang, name=name), exact=True).fill(str(lot))
    else:
        page.locator("input[name=method][value=random]").check()
        page.fill("#seed", str(seed))
    page.get_by_role("button", name=say("抽签", lang), exact=True).click()
    expect(page.locator("main")).to_contain_text(say("{event}已抽签。", lang, event=event_name))


def schedule_with_referees(page, base: str, slug: str, event: str, start: dt.datetime):
    """自动排定 from the first round's start, then 按顺序指派裁判; answers, per tie as the
    schedule page lists it, (both sides' text, the referee's name)."""
    page.goto(f"{base}/t/{slug}/{event}/schedule/")
    page.locator("input[name=start]").fill(start.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="自动排定").click()
    page.wait_for_load_state()
    page.get_by_role("button", name="按顺序指派裁判").click()
    page.wait_for_load_state()
    assignments = []
    for row in page.locator("select[name^=referee-]").all():
        tie = row.locator("xpath=ancestor::tr").inner_text()
        chosen = row.locator("option:checked").inner_text()
        assignments.append((tie, chosen))
    return assignments


def plan_the_day(
    page, base: str, slug: str, *, day=None, halls=None, minutes=None, off_duty=(), lang=CHINESE
):
    """全天赛程 from the dashboard's 赛程与裁判 step: the day's hours and breaks (``day``:
    field → value, e.g. ``{"当天开始": "09:00"}``), each event's halls (``halls``: event name →
    {hall: "全部" / "1-2" / ""}), match lengths (``minutes``: event name → minutes) and the
    officials not there to referee (``off_duty``: their 当天执裁 unticked), then
    排出全天赛程（先预览）. Answers the preview's section, not yet saved."""
    page.goto(f"{base}/t/{slug}/manage/")
    step = page.locator("li.step[data-step=schedule]")
    step.get_by_role("link", name=say("全天赛程", lang), exact=True).click()
    expect(page.get_by_role("heading", name=say("全天赛程", lang), exact=True)).to_be_visible()
    form = page.locator("form.day-settings")
    for label, value in (day or {}).items():
        form.locator(".field").filter(has_text=label).locator("input").fill(value)
    for event, uses in (halls or {}).items():
        for hall, places in uses.items():
            form.get_by_label(f"{event} · {hall}", exact=True).fill(places)
    for event, length in (minutes or {}).items():
        row = form.locator("tr").filter(has=page.locator("th", has_text=event))
        row.locator("input[name$=-minutes]").fill(str(length))
    for name in off_duty:
        row = form.locator("tr").filter(has=page.locator("th", has_text=name))
        row.get_by_role("checkbox", name=say("当天执裁", lang)).set_checked(False)
    form.get_by_role("button", name=say("排出全天赛程（先预览）", lang)).click()
    preview = page.locator("section.day-proposal")
    expect(preview.get_by_role("heading")).to_have_text(say("排法预览（尚未保存）", lang))
    return preview


def save_the_day(page, lang: str = CHINESE) -> None:
    """保存这个赛程, one tap under the preview; the page says so and checks the day."""
    proposal = page.locator("section.day-proposal")
    proposal.get_by_role("button", name=say("保存这个赛程", lang)).click()
    expect(page.locator("body")).to_contain_text(say("全天赛程已保存。", lang))
    expect(page.locator("section.day-proposal")).to_have_count(0)


def duties_of(page, base: str, slug: str, lang: str = CHINESE) -> list[tuple[str, str, str]]:
    """The 场地执裁 line of the official's own 我的台: (hall, from, until) per duty."""
    page.goto(f"{base}/t/{slug}/referee/mine/")
    mine = re.compile("^" + say("我的台", lang))
    expect(page.get_by_role("heading", name=mine)).to_be_visible()
    line = page.locator("p.duties")
    if not line.count():
        return []
    text = line.inner_text().split(say("（", lang))[0].removeprefix(say("场地执裁：", lang))
    duties = []
    for part in text.split(say("；", lang)):
        hall, _, window = part.strip().rpartition(" ")
        start, _, end = window.partition("–")
        duties.append((hall, start, end))
    return duties


def issue_link(page, base: str, slug: str, referee: str, lang: str = CHINESE) -> str:
    """裁判登录二维码: the organiser makes a referee's one-time link; answers its URL."""
    page.goto(f"{base}/t/{slug}/referee/login-links/")
    row = page.locator("tbody tr").filter(has_text=referee)
    row.get_by_role("button", name=say("生成二维码", lang)).click()
    issued = page.locator(".login-link-issued")
    expect(issued).to_contain_text(say("{referee}的登录二维码", lang, referee=referee))
    return issued.locator("p a").first.get_attribute("href")


# --------------------------------------------------------------------------- at the table
def open_table(page, base: str, slug: str, event: str, home: str, away: str, number: int):
    """How a referee reaches a table of their tie. Today: the tournament page → the event's
    bracket → the tie → its table. (To be switched to 我的台 when it exists.)"""
    page.goto(f"{base}/t/{slug}/")
    page.locator(f"a[href$='/{event}/bracket/']").first.click()
    card = page.locator("li.match").filter(has_text=home).filter(has_text=away)
    sides = [s.strip() for s in card.locator(".side .name").all_inner_texts()]
    card.locator(".match-link").click()
    page.locator("a.table-card").nth(number - 1).click()
    page.wait_for_load_state()
    return sides


def open_my_table(
    page, base: str, slug: str, home: str, away: str, number: int, lang: str = CHINESE
):
    """How a referee reaches a table of their own tie: 我的台 (where their login lands) → the
    tie's table. Answers the tie's two sides, home first, as the list names them."""
    page.goto(f"{base}/t/{slug}/referee/mine/")
    expect(page.get_by_role("heading", name=re.compile("^" + say("我的台", lang)))).to_be_visible()
    cards = page.locator("li.my-table").filter(has_text=f"{home}—{away}")
    link = cards.nth(number - 1).locator("a.my-table-link")
    heading = link.inner_text()
    tie = next(part for part in heading.split(" · ") if "—" in part)
    link.click()
    page.wait_for_load_state()
    return [side.strip() for side in tie.split("—")]


def play_deals(
    page, count: int, side: int = 0, button: str = "对家二游", lang: str = CHINESE
) -> None:
    """``count`` deals, each one tap: the side (0 the left team) took 上游 and its partner
    finished as ``button`` says."""
    history = page.locator(".history-list li")
    done = history.count()
    for n in range(count):
        column = page.locator(".deal-col").nth(side)
        column.get_by_role("button", name=say(button, lang)).click()
        expect(history).to_have_count(done + n + 1)


def submit(page, lang: str = CHINESE) -> None:
    page.get_by_role("button", name=say("提交结果", lang)).click()
    expect(page.locator("body")).to_contain_text(say("结果已提交", lang))


def play_games(
    referee, chief, base, slug, home, away, winner, *, games=((21, 15), (21, 18)), lang=CHINESE
):
    """A match scored in games (羽毛球, 乒乓球): its referee opens it from 我的台 and records
    each game's score (``games``: the winner's points first), submits it, and the chief
    referee confirms it at the desk."""
    sides = open_my_table(referee, base, slug, home, away, 1, lang=lang)
    loser = sides[1 - sides.index(winner)]
    played = referee.locator(".game-list li")
    for number, (won, lost) in enumerate(games, start=1):
        referee.get_by_role("spinbutton", name=winner, exact=True).fill(str(won))
        referee.get_by_role("spinbutton", name=loser, exact=True).fill(str(lost))
        referee.get_by_role("button", name=say("录入第{n}局", lang, n=number)).click()
        expect(played).to_have_count(number)
    expect(referee.locator(".playing")).to_contain_text(say("比赛结束", lang))
    expect(referee.locator(".team.winner .team-name")).to_have_text(winner)
    submit(referee, lang)
    no_overflow(referee)
    confirm_at_desk(chief, base, slug, lang)


def ties_to_play(page, base: str, slug: str, event: str, lang=CHINESE) -> list[list[str]]:
    """The ties on the bracket whose two sides are known and which are not yet played."""
    page.goto(f"{base}/t/{slug}/{event}/bracket/")
    ties = []
    unknown = {say("待定", lang), say("轮空", lang)}
    for card in page.locator("li.match.status-pending").all():
        sides = [s.strip() for s in card.locator(".side .name").all_inner_texts()]
        if len(sides) == 2 and not unknown & set(sides):
            ties.append(sides)
    return ties


def referee_of(page, base: str, slug: str, event: str, home: str, away: str, names) -> str:
    """The referee the schedule page gives a tie (as the organiser printed it for them)."""
    page.goto(f"{base}/t/{slug}/{event}/schedule/")
    row = page.locator("tr").filter(has_text=home).filter(has_text=away)
    chosen = row.locator("select[name^=referee-] option:checked").inner_text()
    return next(name for name in names if chosen.startswith(name))


def play_tie(
    referee, chief, base, slug, event, home, away, winner, *, deals, tables=1, lang=CHINESE
):
    """The tie's referee scores the ``winner``'s tables deal by deal on their phone and
    submits each; the chief referee confirms each at the desk. A team tie (``tables`` 3)
    stops 2–0: its third table says 不再进行."""
    for number in (1, 2) if tables == 3 else (1,):
        sides = open_my_table(referee, base, slug, home, away, number, lang=lang)
        play_deals(referee, deals, side=sides.index(winner), lang=lang)
        # The engine says what the last deal did: A passed, the table over.
        last = referee.locator(".history-list li").first
        expect(last).to_contain_text(say("打A成功", lang))
        expect(referee.locator(".playing")).to_contain_text(say("比赛结束", lang))
        submit(referee, lang)
        no_overflow(referee)
        confirm_at_desk(chief, base, slug, lang)
    if tables == 3:
        open_my_table(referee, base, slug, home, away, 3, lang=lang)
        expect(referee.locator("main")).to_contain_text(say("这一台不再进行", lang))


def placings_shown(page, placings, lang: str = CHINESE) -> None:
    """The bracket's 名次 panel, updated by its own polling: 冠军, 亚军, 季军, 第4名 … (its
    first lines: the places shared further down — 第5名 … — follow)."""
    labels = [say(label, lang) for label in ("冠军", "亚军", "季军")]
    items = page.locator(f".placing-list li:nth-child(-n+{len(placings)})")
    expect(items).to_have_count(len(placings), timeout=10_000)
    for rank, name in enumerate(placings, start=1):
        label = labels[rank - 1] if rank <= 3 else say("第{rank}名", lang, rank=rank)
        expect(items.nth(rank - 1)).to_have_text(f"{label} {name}")


def confirm_at_desk(page, base: str, slug: str, lang: str = CHINESE) -> None:
    """The chief referee opens the first result waiting on the desk and confirms it."""
    page.goto(f"{base}/t/{slug}/referee/")
    waiting = page.locator(".panel").filter(has_text=say("待确认", lang))
    waiting.locator(".entry-list a").first.click()
    confirm(page, lang)


def check_placings(
    text: str, placings, prizes=("一等奖", "二等奖", "三等奖"), lang: str = CHINESE, after: str = ""
) -> None:
    """results.pdf names the 1st, 2nd, 3rd … with their prizes, in that order (from the
    text ``after``, an event's heading, when it is given)."""
    (SHOTS / f"results-{lang}.txt").write_text(text, encoding="utf-8")
    flat = re.sub(r"\s+", " ", text)
    at = flat.index(after) if after else 0
    for rank, name in enumerate(placings, start=1):
        prize = re.escape(say(prizes[rank - 1], lang)) if rank <= len(prizes) else ""
        place = re.escape(say("第{rank}名", lang, context="column", rank=rank))
        found = re.compile(f"{place} {re.escape(name)}.*?{prize}").search(flat, at)
        assert found, (rank, name, prize, flat)
        at = found.end()


def correct_the_wrong_way_round(page, base, slug, event, home, away, reason) -> None:
    """The chief referee: the bracket → the tie → its table → 更正记录 → 主客双方对调 → the
    reason → 保存更正 (submitted again in her name, for a second official to confirm)."""
    page.goto(f"{base}/t/{slug}/{event}/bracket/")
    card = page.locator("li.match").filter(has_text=home).filter(has_text=away)
    card.locator(".match-link").click()
    page.locator("a.table-card").first.click()
    page.get_by_role("link", name="更正记录（须写明原因）").click()
    page.get_by_role("button", name="主客双方对调").click()
    expect(page.get_by_text("更正会改变这一台的胜负")).to_be_visible()
    page.get_by_label("更正原因").fill(reason)
    page.get_by_role("button", name="保存更正").click()
    expect(page.get_by_text("记录已更正。")).to_be_visible()


def void_and_replay_flagged(page, base, slug, reason) -> None:
    """The chief referee at the desk: 作废重赛 (a reason, the box ticked) for every match
    flagged 待复核, one after the other."""
    page.goto(f"{base}/t/{slug}/referee/")
    flagged = page.locator(".flagged-match")
    expect(flagged.first).to_be_visible()
    shot(page, "desk-flagged")
    while flagged.count():
        replay = flagged.first.locator("form").filter(
            has=page.get_by_role("button", name="作废重赛")
        )
        replay.get_by_label("裁决理由").fill(reason)
        replay.get_by_role("checkbox").check()
        replay.get_by_role("button", name="作废重赛").click()
        expect(page.locator("body")).to_contain_text("已作废原记录，本场改由")
        page.goto(f"{base}/t/{slug}/referee/")


def confirm(page, lang: str = CHINESE) -> None:
    page.get_by_role("button", name=say("确认结果", lang)).click()
    expect(page.locator("body")).to_contain_text(say("结果已确认", lang))


# --------------------------------------------------------------------------- 扫码录分


def set_result_entry(page, base: str, slug: str, label: str) -> None:
    """The organiser chooses who enters results on the settings page (结果录入)."""
    page.goto(f"{base}/t/{slug}/manage/settings/")
    page.get_by_label("结果录入").select_option(label=label)
    page.get_by_role("button", name="保存").click()
    expect(page.locator("body")).to_contain_text("比赛信息已保存")


def score_sheet_codes(page, base: str, slug: str, event: str, tmp_path, round_number=1):
    """The score sheets of a round as the organiser prints them: each sheet's text and the
    address its QR code decodes to (pdftoppm + zbarimg), in the order printed."""
    response = page.request.get(f"{base}/t/{slug}/{event}/scoresheets.pdf?round={round_number}")
    assert response.status == 200, response.status
    path = tmp_path / "scoresheets.pdf"
    path.write_bytes(response.body())
    subprocess.run(
        ["pdftoppm", "-r", "110", "-png", str(path), str(tmp_path / "sheet")], check=True
    )
    texts = [p.extract_text() for p in PdfReader(str(path)).pages]
    sheets = []
    for text, png in zip(texts, sorted(tmp_path.glob("sheet*.png")), strict=True):
        decoded = subprocess.run(
            ["zbarimg", "--quiet", "--raw", str(png)], capture_output=True, text=True
        ).stdout.strip()
        sheets.append({"text": text, "url": decoded})
    return sheets


def players_enter(page, url: str, winner_column: int, *, until: str = "打A成功") -> None:
    """The players at a table open its code on a phone, without a login, and tap the deals
    (the winner's 双上) until the engine says the table is over."""
    page.goto(url)
    expect(page.locator(".players-note")).to_be_visible()
    history = page.locator(".history-list li")
    for _ in range(12):
        if page.locator(".history-list li").first.filter(has_text=until).count():
            break
        play_deals(page, 1, side=winner_column)
    expect(history.first).to_contain_text(until)


def players_submit(page, side: str) -> None:
    page.get_by_role("button", name=re.compile(f"（{side}方）提交$")).click()
    other = "B" if side == "A" else "A"
    expect(page.locator("body")).to_contain_text(f"请交给对方（{other}方）核对并确认")


def players_confirm(page) -> None:
    """The other side checks the record on the same phone, or on theirs, and confirms."""
    page.get_by_role("button", name=re.compile("确认结果$")).click()
    expect(page.locator("body")).to_contain_text("结果已确认")
    expect(page.locator("body")).to_contain_text("二维码不能再录入")


def players_tap_offline_and_reload(page, url: str, column: int) -> None:
    """Hall Wi-Fi drops: the players' phone taps three deals with no connection, the page is
    opened again still offline (the service worker's copy, the taps waiting on the phone),
    the connection returns, and the three deals are recorded once each, in the order tapped
    (双上 +3, 对家三游 +2, 对家末游 +1 from 2: 2→5→7→8)."""
    page.goto(url)
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    expect(page.locator("body")).to_have_attribute("data-offline-ready", "")
    page.context.set_offline(True)
    for button in ("对家二游", "对家三游", "对家末游"):
        page.locator(".deal-col").nth(column).get_by_role("button", name=button).click()
    queue = page.locator(".tap-queue")
    expect(queue).to_contain_text("本机还有3条记录没有保存")
    response = page.goto(url)
    assert response.ok and response.from_service_worker
    expect(queue).to_contain_text("本机还有3条记录没有保存")
    page.context.set_offline(False)
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    history = page.locator(".history-list li")
    expect(history).to_have_count(3, timeout=20_000)
    expect(queue).to_be_hidden()
    newest_first = history.all_inner_texts()
    for text, step in zip(reversed(newest_first), ("2→5", "5→7", "7→8"), strict=True):
        assert step in text, newest_first
    # The worker is done with: nothing of this phone goes on in the background.
    page.evaluate(
        "() => navigator.serviceWorker.getRegistrations()"
        ".then(rs => Promise.all(rs.map(r => r.unregister())))"
    )
