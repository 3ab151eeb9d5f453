"""A chief referee on a 390-px phone puts right the mistakes of issue 16 through the pages
only, and after each step the bracket (cards and 名次), bracket.json and results.pdf say
what they should. The state before the mistake is set up through the services, as a day's
play would have left it; the repair is done by taps.

Taps counted (a tap: a link, a button, a box ticked; a list on a phone is two, to open it
and to choose; typing a reason or a score is not a tap, and is listed apart):

* 乒乓球 semi-final scored the wrong way round, found after the final and the 季军争夺战
  were played; 作废重赛 — 10 taps: 5 to correct the semi-final (bracket → the semi-final →
  its record → 更正记录 → 主客双方对调 → 保存更正; a reason typed), then for the final and
  for the 季军争夺战 2 each (tick 确认作废, 作废重赛; a reason typed), with 1 between them
  back to the desk (the match page's 裁判长).
* The same mistake, corrected game by game instead, and 维持原结果 — 12 taps: 10 to correct
  (bracket → the semi-final → its record → 更正记录 → 3 × (改, 用这一局比分) → 保存更正; six
  scores and a reason typed), then 1 for each ruling (维持原结果; a reason typed).
* 掼蛋 pair disqualified (取消资格) in a semi-final — 10 taps (bracket → the semi-final →
  its table → 处罚 → the list 受罚方 (2) → the list 处罚: 取消比赛资格 (2) → tick 确认 → 记录处罚
  → 提交结果; a reason typed). A second official who did not enter the table confirms, as
  every result needs.

The second official's confirmation of a corrected result (the rules: never the person who
changed it) is done on that official's own phone and not counted.
"""

from __future__ import annotations

import io
import os
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect
from pypdf import PdfReader

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "Chief-2021-passw0rd"
SHOTS = os.environ.get("SHOTS")  # a folder: keep each step's screenshot
SLUG = "anhui-2021"
PHONE = {"width": 390, "height": 844}
# What the referee wrote for the table-tennis semi-final: three games, the wrong way round.
WRITTEN = [(11, 7), (11, 6), (11, 9)]


class Taps:
    """The chief's taps, counted as they are made."""

    def __init__(self):
        self.count = 0

    def __call__(self, locator) -> None:
        locator.click()
        self.count += 1

    def check(self, locator) -> None:
        locator.check()
        self.count += 1

    def select(self, locator, value: str) -> None:
        """A list on a phone: a tap to open it, a tap on the choice."""
        locator.select_option(value)
        self.count += 2


# --------------------------------------------------------------------------- set-up
def _cast():
    """The table's referee (who entered the results) and the chief referee, both with a
    login; the referee is a second official, to confirm what the chief changes."""
    from tournaments.models import Official, Tournament

    User = get_user_model()
    tournament = Tournament.objects.get(slug=SLUG)
    referee = User.objects.create_user("referee-a", password=PASSWORD)
    chief = User.objects.create_user("chief-a", password=PASSWORD)
    Official.objects.create(
        tournament=tournament, name="裁判甲", role=Official.Role.REFEREE, user=referee
    )
    Official.objects.create(
        tournament=tournament, name="裁判长乙", role=Official.Role.CHIEF_REFEREE, user=chief
    )
    Official.objects.create(
        tournament=tournament,
        name="裁判丙",
        role=Official.Role.REFEREE,
        user=User.objects.create_user("referee-b", password=PASSWORD),
    )
    return referee, chief


def _event(slug):
    from tournaments.models import Event

    return Event.objects.get(tournament__slug=SLUG, slug=slug)


def _ready(event):
    """The matches with both entries known and not yet played, in bracket order."""
    from tournaments.models import Match

    return list(
        Match.objects.filter(
            round__stage__event=event,
            status__in=[Match.Status.PENDING, Match.Status.IN_PROGRESS],
            home__isnull=False,
            away__isnull=False,
        ).order_by("round__number", "index")
    )


def _single_table(match):
    from scoring.services.tables import ensure_tables

    [table] = ensure_tables(match)
    table.refresh_from_db()
    return table


def _play_rally(match, games, referee, chief):
    """The referee enters the games (home – away) and submits; the chief confirms."""
    from scoring.services.tables import confirm_table, record_event, submit_table

    table = _single_table(match)
    for n, (home, away) in enumerate(games):
        record_event(
            table=table, event={"home": home, "away": away}, user=referee, key=f"g{table.pk}-{n}"
        )
    submit_table(table=table, user=referee)
    confirm_table(table=table, user=chief)


def _play_guandan(match, side, referee, chief):
    from scoring.tests.test_services import win_table

    win_table(_single_table(match), side, referee, chief)


def _table_tennis_played_out(referee, chief):
    """Every 乒乓球 match won 3:0 by the home player, as entered: the semi-finals, the final
    and the 季军争夺战 included. Answers (first semi-final, other semi-final, final, third)."""
    from scoring.tests.utils import fresh

    event = _event("table-tennis")
    while ready := _ready(event):
        for match in ready:
            _play_rally(match, WRITTEN, referee, chief)
    semis = _semis(event)
    final, third = fresh(semis[0].winner_to), fresh(semis[0].loser_to)
    assert third.is_third_place and final.is_decided and third.is_decided
    return semis[0], semis[1], final, third


def _semis(event):
    from tournaments.models import Match

    return list(
        Match.objects.filter(round__stage__event=event, loser_to__isnull=False).order_by("index")
    )


# --------------------------------------------------------------------------- what is seen
OPEN_PHONES = []


@pytest.fixture(autouse=True)
def _put_the_phones_away():
    """No page of a test polls the live server while the next test's database is reset."""
    yield
    while OPEN_PHONES:
        OPEN_PHONES.pop().close()


def _phone(browser, base, username):
    context = browser.new_context(service_workers="block", viewport=PHONE)
    OPEN_PHONES.append(context)
    page = context.new_page()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_load_state()
    expect(page.locator("#id_password")).to_have_count(0)
    return page


def _shot(page, name):
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def _no_overflow(page):
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0


def _box_beside_its_words(label):
    """A tick box's words start on its own line, to its right (not wrapped under it)."""
    assert label.evaluate(
        """el => {
          const box = el.querySelector("input").getBoundingClientRect();
          const text = [...el.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
          const range = document.createRange();
          range.selectNodeContents(text);
          const first = range.getClientRects()[0];
          return first.left >= box.right && Math.abs(first.top - box.top) < box.height;
        }"""
    )


def _json(page, base, event_slug):
    response = page.request.get(f"{base}/t/{SLUG}/{event_slug}/bracket.json")
    assert response.status == 200
    return response.json()


def _flags(data) -> dict[int, bool]:
    return {
        m["id"]: m["under_review"]
        for stage in data["stages"]
        for rnd in stage["rounds"]
        for m in rnd["matches"]
    }


def _results(page, base, event_name) -> tuple[str, str]:
    """results.pdf as text (whitespace made single spaces): the event's part of the
    announcement, and the whole document (the certificates follow the announcement)."""
    response = page.request.get(f"{base}/t/{SLUG}/results.pdf")
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(response.body()))
    text = re.sub(r"\s+", " ", " ".join(p.extract_text() for p in reader.pages))
    if SHOTS:
        with open(f"{SHOTS}/results.txt", "a", encoding="utf-8") as out:
            out.write(text + "\n\n")
    # The events in their order, each its name as a heading, then its placings and notes.
    names = [e.name for e in _event("guandan").tournament.events.order_by("order")]
    start = text.index(f" {event_name} ", text.index("成绩公告"))
    ends = [text.find(f" {n} ", start + 1) for n in names[names.index(event_name) + 1 :]]
    ends += [text.find(" 团体总分", start), text.find(" 安徽农业大学工会 ", start)]
    part = text[start : min(e for e in ends if e > 0)]
    return part, text


def _squash(text: str) -> str:
    """Text without its spaces: a PDF line may break inside a phrase."""
    return text.replace(" ", "")


def _bracket(page, base, event_slug):
    page.goto(f"{base}/t/{SLUG}/{event_slug}/bracket/")
    expect(page.locator("#bracket-body")).to_be_visible()


def _card(page, match):
    return page.locator(f"#match-{match.pk}")


def _placings_shown(page, names):
    """The 名次 panel's first lines: 冠军, 亚军, 季军, 第4名 — each a name, or 待复核 (None)."""
    labels = ["冠军", "亚军", "季军", "第4名"]
    items = page.locator(f".placing-list li:nth-child(-n+{len(names)})")
    expect(items).to_have_count(len(names))
    for n, name in enumerate(names):
        expect(items.nth(n)).to_have_text(f"{labels[n]} {name or '待复核'}")


def _correct_the_semi_final(page, base, semi, taps, *, game_by_game=False):
    """From the bracket: the semi-final, its record, 更正记录, the record turned round —
    主客双方对调, or each game's score typed the right way round — a reason, 保存更正."""
    _bracket(page, base, "table-tennis")
    taps(_card(page, semi).locator("a.match-link"))
    taps(page.locator("a.table-card").first)
    taps(page.get_by_role("link", name="更正记录（须写明原因）"))
    expect(page.get_by_role("heading", name="更正记录")).to_be_visible()
    for n, (home, away) in enumerate(WRITTEN if game_by_game else []):
        taps(page.locator(f"#entry-{n}").get_by_role("button", name="改"))
        form = page.locator(f"#entry-{n} .entry-editor form.stack").first
        form.locator("input[name=home]").fill(str(away))
        form.locator("input[name=away]").fill(str(home))
        taps(form.get_by_role("button", name="用这一局比分"))
        expect(page.locator(f"#entry-{n} .entry-text")).to_contain_text(f"{away}")
    if not game_by_game:
        _shot(page, "tt-correction-before")
        taps(page.get_by_role("button", name="主客双方对调"))
    for n, (home, away) in enumerate(WRITTEN):
        expect(page.locator(f"#entry-{n} .entry-text")).to_contain_text(f"{away}–{home}")
    expect(page.get_by_text("更正会改变这一台的胜负")).to_be_visible()
    expect(page.locator(".correction-outcome .changed .level")).to_have_text("0 : 3")
    _no_overflow(page)
    _shot(page, "tt-correction")
    page.get_by_label("更正原因").fill("记分表上两人的比分写反了")
    taps(page.get_by_role("button", name="保存更正"))
    expect(page.get_by_text("记录已更正。")).to_be_visible()
    expect(page.get_by_text("更正结果的人不能确认")).to_be_visible()


def _confirm_as_the_referee(browser, base, table, username="referee-a"):
    """A second official (the table's referee, or another) confirms the result."""
    page = _phone(browser, base, username)
    page.goto(f"{base}/t/{SLUG}/{table.match.round.stage.event.slug}/tables/{table.pk}/")
    page.get_by_role("button", name="确认结果").click()
    expect(page.locator("body")).to_contain_text("结果已确认")
    page.context.close()


def _to_the_desk(page, base):
    page.goto(f"{base}/t/{SLUG}/referee/")
    expect(page.get_by_role("heading", name="裁判长", exact=True)).to_be_visible()


def _under_review_everywhere(page, base, semi, final, third):
    """The semi-final is corrected; the final and the 季军争夺战, played by the wrong
    player, are flagged: 待复核 on their cards, in bracket.json, in 名次 and in results.pdf,
    which names no one for those places and prints no certificate for them."""
    from scoring.tests.utils import fresh

    semi = fresh(semi)
    assert semi.winner == "away"
    data = _json(page, base, "table-tennis")
    assert {pk for pk, flag in _flags(data).items() if flag} == {final.pk, third.pk}
    # No one holds the four places meanwhile (the places of the rounds before stand).
    assert [p for p in data["placings"] if p["rank"] <= 4] == []
    assert data["placings_under_review"] == [1, 2, 3, 4]
    _bracket(page, base, "table-tennis")
    for match in (final, third):
        expect(_card(page, match).locator(".under-review")).to_have_text("待复核")
    expect(_card(page, semi).locator(".under-review")).to_have_count(0)
    expect(_card(page, semi).locator(".side.won .name")).to_have_text(semi.away.name)
    _placings_shown(page, [None, None, None, None])
    # The 名次 panel is up (its places held), so the draw sheet folds away as once they
    # are known, and the bracket is not pushed a screen further down the phone.
    expect(page.locator("details.draw-sheet")).not_to_have_attribute("open", "")
    _no_overflow(page)
    _shot(page, "tt-bracket-under-review")
    part, whole = _results(page, base, "乒乓球")
    for rank in (1, 2, 3, 4):
        assert f"第{rank}名 — — 待复核" in part, part
    assert "第1、第2、第3、第4名所依据的比赛待裁判长复核" in _squash(part)
    for pk in (final.home_id, final.away_id, third.home_id, third.away_id):
        assert _entry_name(pk) not in part  # no 纪念奖 meanwhile
    assert "乒乓球中荣获" not in whole  # no certificate


def _entry_name(pk) -> str:
    from tournaments.models import Entry

    return Entry.objects.get(pk=pk).name


def _placings_right(
    page, base, event_slug, event_name, names, prizes=("一等奖", "二等奖", "三等奖")
):
    """The 名次 panel, bracket.json and results.pdf name the same four, each once."""
    data = _json(page, base, event_slug)
    assert data["placings_under_review"] == []
    assert not any(_flags(data).values())
    assert [(p["rank"], p["name"]) for p in data["placings"]][:4] == list(enumerate(names, start=1))
    assert len({p["entry_id"] for p in data["placings"]}) == len(data["placings"])
    _bracket(page, base, event_slug)
    _placings_shown(page, names)
    expect(page.locator("#bracket-body .under-review")).to_have_count(0)
    part, whole = _results(page, base, event_name)
    assert "待复核" not in part
    for rank, name in enumerate(names, start=1):
        prize = prizes[rank - 1] if rank <= len(prizes) else ""
        assert re.search(f"第{rank}名 {re.escape(name)} .*?{prize}", part), (rank, name, part)
        assert part.count(f" {name} ") == 1, (name, part)
    for rank, name in enumerate(names[:3], start=1):
        assert f"{name}（" in whole and f"{event_name}中荣获{prizes[rank - 1]}" in whole
    return part


# --------------------------------------------------------------------------- case (2)
def test_a_table_tennis_semi_final_scored_the_wrong_way_round_is_replayed_from_the_desk(
    live_server, browser
):
    """Found after the final and the 季军争夺战 were played: the chief turns the
    semi-final's record round (5 taps), then voids and replays both matches played since
    (2 taps each, and 1 to come back to the desk between them): 10 taps."""
    from scoring.models import AuditEntry
    from scoring.tests.utils import fresh
    from tournaments.ops.demo import load_demo

    load_demo()
    referee, chief = _cast()
    semi, other, final, third = _table_tennis_played_out(referee, chief)
    base = live_server.url
    page = _phone(browser, base, "chief-a")
    right_winner, wrong_finalist = fresh(semi).away, fresh(semi).home

    taps = Taps()
    _correct_the_semi_final(page, base, semi, taps)
    assert taps.count == 5
    _confirm_as_the_referee(browser, base, _single_table(semi))
    assert fresh(final).needs_review and fresh(third).needs_review
    _under_review_everywhere(page, base, semi, final, third)

    _to_the_desk(page, base)
    flagged = page.locator(".flagged-match")
    expect(flagged).to_have_count(2)
    expect(page.locator(f"#review-{final.pk}")).to_contain_text("决赛")
    _no_overflow(page)
    _shot(page, "tt-desk-flagged")
    expect(page.locator(f"#review-{final.pk}")).to_contain_text(
        f"的结果已更正，本场对阵应为{right_winner.name}"
    )
    _box_beside_its_words(page.locator(f"#review-{final.pk} label.check"))
    for n, match in enumerate((final, third)):
        block = page.locator(f"#review-{match.pk}")
        replay = block.locator("form").filter(has=page.get_by_role("button", name="作废重赛"))
        replay.get_by_label("裁决理由").fill("半决赛比分写反，按更正后的对阵重赛")
        taps.check(replay.get_by_role("checkbox"))
        taps(replay.get_by_role("button", name="作废重赛"))
        expect(page.locator("body")).to_contain_text("已作废原记录，本场改由")
        _no_overflow(page)
        if n == 0:
            # Back to the desk for the 季军争夺战: the match page's crumb.
            taps(page.locator(".crumbs").get_by_role("link", name="裁判长"))
            expect(page.locator(".flagged-match")).to_have_count(1)
    assert taps.count == 10

    # Nothing is under review now: the two matches wait for the right players.
    final, third = fresh(final), fresh(third)
    assert {final.home_id, final.away_id} == {right_winner.pk, fresh(other).winner_entry.pk}
    assert wrong_finalist.pk in (third.home_id, third.away_id)
    data = _json(page, base, "table-tennis")
    assert not any(_flags(data).values())
    assert data["placings"] == [] and data["placings_under_review"] == []
    _bracket(page, base, "table-tennis")
    expect(page.locator("#bracket-body .under-review")).to_have_count(0)
    expect(_card(page, final)).to_contain_text(right_winner.name)
    expect(page.locator(".placing-list")).to_have_count(0)
    part, _whole = _results(page, base, "乒乓球")
    assert "待复核" not in part and "作废重赛" in _squash(part)

    # The replayed final and 季军争夺战 are played; the places are right, each player once.
    _play_rally(final, [(7, 11), (6, 11), (9, 11)], referee, chief)
    _play_rally(third, WRITTEN, referee, chief)
    final, third = fresh(final), fresh(third)
    names = [e.name for e in (final.winner_entry, final.loser_entry)]
    names += [e.name for e in (third.winner_entry, third.loser_entry)]
    assert right_winner.name in names[:2] and wrong_finalist.name in names[2:]
    part = _placings_right(page, base, "table-tennis", "乒乓球", names)
    notes = _squash(part[part.index("仲裁组说明") :])
    assert notes.count("作废重赛：原对阵") == 2 and notes.count("半决赛比分写反") == 2
    assert AuditEntry.objects.filter(action=AuditEntry.Action.REPLAY, actor=chief).count() == 2


def test_a_table_tennis_semi_final_scored_the_wrong_way_round_is_kept_with_a_ruling(
    live_server, browser
):
    """The same mistake; the chief keeps what was played (维持原结果) for the final and
    the 季军争夺战, with a reason: 10 taps to correct, 1 for each ruling: 12 taps."""
    from scoring.tests.utils import fresh
    from tournaments.ops.demo import load_demo

    load_demo()
    referee, chief = _cast()
    semi, _other, final, third = _table_tennis_played_out(referee, chief)
    base = live_server.url
    page = _phone(browser, base, "chief-a")

    taps = Taps()
    _correct_the_semi_final(page, base, semi, taps, game_by_game=True)
    assert taps.count == 10
    _confirm_as_the_referee(browser, base, _single_table(semi))
    _under_review_everywhere(page, base, semi, final, third)

    _to_the_desk(page, base)
    for left, match in ((1, final), (0, third)):
        block = page.locator(f"#review-{match.pk}")
        keep = block.locator("form").filter(has=page.get_by_role("button", name="维持原结果"))
        keep.get_by_label("裁决理由").fill("决赛已赛完，双方认可原结果")
        taps(keep.get_by_role("button", name="维持原结果（记入仲裁组说明）"))
        expect(page.locator("body")).to_contain_text("已维持原结果，裁决已记录。")
        expect(page.locator(".flagged-match")).to_have_count(left)
        _no_overflow(page)
    assert taps.count == 12

    # The places are those played, each player once; the rulings are in 仲裁组说明.
    final, third = fresh(final), fresh(third)
    assert not final.needs_review and not third.needs_review
    names = [e.name for e in (final.winner_entry, final.loser_entry)]
    names += [e.name for e in (third.winner_entry, third.loser_entry)]
    part = _placings_right(page, base, "table-tennis", "乒乓球", names)
    notes = _squash(part[part.index("仲裁组说明") :])
    assert notes.count("维持原结果") == 2 and notes.count("决赛已赛完，双方认可原结果") == 2
    assert f"本场对阵应为{fresh(semi).away.name}" in notes
    assert "请裁判长复核" not in notes  # the ruling reads as a fact, not a request to the chief


# --------------------------------------------------------------------------- case (3)
def test_a_guandan_pair_disqualified_in_a_semi_final_gets_no_place_and_is_named(
    live_server, browser
):
    """The chief, called to the first semi-final's table, records 取消比赛资格 for the
    away pair and submits (10 taps, a reason typed); another referee confirms. The 季军争夺战 is
    a walkover for the other semi-final's loser; the pair gets no place, prize or 纪念奖,
    and results.pdf's 仲裁组说明 names it."""
    from scoring.services.tables import record_event
    from scoring.tests.utils import fresh
    from tournaments.models import Entry, Match
    from tournaments.ops.demo import load_demo

    load_demo()
    referee, chief = _cast()
    event = _event("guandan")
    semis = _semis(event)
    # Every match before the semi-finals, then the second semi-final: the home pair wins.
    while ready := [m for m in _ready(event) if m.round_id != semis[0].round_id]:
        for match in ready:
            _play_guandan(match, "A", referee, chief)
    _play_guandan(fresh(semis[1]), "A", referee, chief)
    semi, other = fresh(semis[0]), fresh(semis[1])
    assert other.is_decided and semi.home_id and semi.away_id
    table = _single_table(semi)
    record_event(table=table, event={"order": list("AABB")}, user=referee, key="dq-0")
    cheat, honest = semi.away, semi.home
    base = live_server.url
    page = _phone(browser, base, "chief-a")

    taps = Taps()
    _bracket(page, base, "guandan")
    taps(_card(page, semi).locator("a.match-link"))
    taps(page.locator("a.table-card").first)
    taps(page.get_by_text("处罚（扣级、回到2、取消资格）"))
    form = page.locator("form").filter(has=page.get_by_role("button", name="记录处罚"))
    taps.select(form.locator("select[name=team]"), "B")
    taps.select(form.locator("select[name=kind]"), "disqualify")
    form.get_by_label("原因").fill("比赛中暗语通牌，经仲裁组认定")
    taps.check(form.get_by_role("checkbox"))
    _box_beside_its_words(form.locator("label.check"))
    taps(form.get_by_role("button", name="记录处罚"))
    expect(page.locator("#table-panel")).to_contain_text("比赛结束")
    taps(page.get_by_role("button", name="提交结果"))
    expect(page.locator("#table-panel")).to_contain_text("提交人")
    # Submitted by the chief: a second official confirms, and the page says no more.
    expect(page.get_by_text("结果已提交，等待确认。")).to_be_visible()
    _no_overflow(page)
    _shot(page, "gd-table-disqualified")
    assert taps.count == 10
    # Neither the referee who entered the deal nor the chief confirms: a third official.
    _confirm_as_the_referee(browser, base, table, "referee-b")

    cheat = Entry.objects.get(pk=cheat.pk)
    assert cheat.status == Entry.Status.DISQUALIFIED
    semi, third = fresh(semi), Match.objects.get(pk=semi.loser_to_id)
    assert semi.winner == "home" and third.is_third_place
    assert third.status == Match.Status.WALKOVER
    assert third.winner_entry == other.loser_entry
    _bracket(page, base, "guandan")
    expect(_card(page, third)).to_contain_text(other.loser_entry.name)
    expect(_card(page, third).locator(".status-badge").first).to_have_text("不战而胜")
    _shot(page, "gd-bracket-walkover")

    # The final is played; the places: the final's two, the walkover's winner, no 4th.
    final = fresh(semi.winner_to)
    _play_guandan(final, "B", referee, chief)
    final = fresh(final)
    names = [final.winner_entry.name, final.loser_entry.name, other.loser_entry.name]
    data = _json(page, base, "guandan")
    assert cheat.pk not in {p["entry_id"] for p in data["placings"]}
    assert [p["name"] for p in data["placings"][:3]] == names
    assert 4 not in {p["rank"] for p in data["placings"]}
    _bracket(page, base, "guandan")
    _placings_shown(page, names)
    expect(page.locator(".placing-list")).not_to_contain_text(cheat.name)
    part, whole = _results(page, base, "掼蛋")
    for rank, name in enumerate(names, start=1):
        assert re.search(f"第{rank}名 {re.escape(name)} ", part), (rank, name, part)
    notes = part[part.index("仲裁组说明") :]
    table_rows = part[: part.index("仲裁组说明")]
    assert cheat.name not in table_rows  # no place, no prize, no 纪念奖
    assert f"{cheat.name}（{cheat.unit.name}）：取消资格" in notes
    assert "暗语通牌" in notes
    assert f"{cheat.name}（{cheat.unit.name}）在" not in whole  # no certificate
    assert honest.name in part
