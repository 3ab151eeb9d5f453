"""The whole sports day in English, every event at once: each person taps English in the
header and does their part through the pages, from an empty database to results-en.pdf.

The organiser (desktop) sets up the union's day — the notice, a card hall with tables and a
sports hall with courts, the 掼蛋 team event (Nantong's rules: three pairs a team, one game
to past A, 2 of 3 tables win a tie) and badminton singles, four union groups, the chief
referee and two referees who serve every event —, opens registration, registers three
groups (代单位报名) while the fourth's leader registers on a phone, closes it, draws both
events and plans the whole day on 全天赛程. The two referees, on phones, record each match
where the plan puts them; the chief referee confirms on her phone; a spectator's phone
follows the brackets, the timeline and the units' standings; the organiser downloads the
English results.pdf.

Every page a person is shown in English is read as the language crawl reads one
(tests/test_language_crawl.py): once the names people typed are taken out, no Chinese
character or full-width punctuation may be left.
"""

import io
import json
import re
import subprocess

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.journeys import people
from tests.journeys.words import ENGLISH as EN
from tests.journeys.words import say
from tests.test_language_crawl import CJK, _json_words, _strip_typed, _Text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "sports-day-2026"
TOURNAMENT = "南通中学第四届教工运动会"
ORGANISER = "江苏省南通中学工会"
NOTICE = ("关于举行第四届教工运动会的通知", "各工会小组：")
NOTICE_TEXT = "以工会小组为单位报名：掼蛋团体赛每组三对选手，羽毛球每组一人。"
CARD_HALL, SPORTS_HALL = "教工活动中心", "体育馆"
GUANDAN, BADMINTON = "guandan", "badminton"
EVENT_NAMES = {GUANDAN: "掼蛋团体赛", BADMINTON: "羽毛球"}
GROUPS = ["体育", "行政", "历史", "政治"]
LEADER = ("体育", "tiyu")
CHIEF = ("顾明", "guming")
REFEREES = ["钱立", "孙倩"]
PLAYERS = {"体育": "周羽", "行政": "吴羽", "历史": "郑羽", "政治": "王羽"}
POINTS = [9, 7, 6, 5]  # the units' standings' points per place, the product's default


def pairs_of(team: str):
    """Three made-up pairs of a union group: (name, unit or "") each."""
    return [((f"{team}甲{n}", ""), (f"{team}乙{n}", "")) for n in range(1, 4)]


def typed_names() -> list[str]:
    """Everything the people of this day type that a page may show back: the only Chinese
    an English page may carry."""
    typed = [TOURNAMENT, ORGANISER, *NOTICE, NOTICE_TEXT, CARD_HALL, SPORTS_HALL]
    typed += [*EVENT_NAMES.values(), *GROUPS, CHIEF[0], *REFEREES, *PLAYERS.values()]
    typed += [name for team in GROUPS for pair in pairs_of(team) for name, _ in pair]
    return typed


class EnglishReader:
    """Every page, fragment and JSON a person's browser is served once they read English,
    read as the language crawl reads a page: its text, titles, labels and placeholders,
    with the typed names taken out. What is left in Chinese is kept, by person and page."""

    def __init__(self, base: str):
        self.base = base
        self.typed = sorted(set(typed_names()), key=len, reverse=True)
        self.found: dict[str, set[str]] = {}
        self.pages: set[str] = set()
        self.unread: list[str] = []
        self.switched: set[str] = set()
        self.read = 0  # responses read

    def watch(self, page, who: str) -> None:
        """A person's browser, from its first page: read from the moment they tap English."""
        page.on("response", lambda response: self._read(response, who))

    def _read(self, response, who: str) -> None:
        kind = response.headers.get("content-type", "")
        url = response.url
        if url.startswith(f"{self.base}/i18n/setlang/"):
            self.switched.add(who)
        if who not in self.switched or response.status != 200 or not url.startswith(self.base):
            return
        if not (kind.startswith("text/html") or kind.startswith("application/json")):
            return
        path = url.removeprefix(self.base)
        try:
            body = response.text()
        except Exception:  # the page went on before its body was read (a poll, a redirect)
            self.unread.append(f"{who} {path}")
            return
        if kind.startswith("text/html"):
            if response.headers.get("content-language") != EN:
                self._keep(
                    f"Content-Language {response.headers.get('content-language')}", who, path
                )
            parser = _Text()
            parser.feed(body)
            words = parser.words
        else:
            words = _json_words(json.loads(body))
        self.pages.add(re.sub(r"\d+", "N", path.split("?")[0]))
        self.read += 1
        for word in words:
            for chinese in CJK.findall(_strip_typed(word, self.typed)):
                self._keep(chinese, who, f"{path} :: {word[:100]}")

    def _keep(self, what: str, who: str, where: str) -> None:
        self.found.setdefault(what, set()).add(f"{who} {where}")
        people.SHOTS.mkdir(parents=True, exist_ok=True)
        (people.SHOTS / "english-found.txt").write_text(self.report(), encoding="utf-8")

    def report(self) -> str:
        return "\n".join(
            f"{text!r} ×{len(where)}: " + " | ".join(sorted(where)[:4])
            for text, where in sorted(self.found.items(), key=lambda kv: -len(kv[1]))
        )

    def text(self, text: str, where: str) -> None:
        """A document's text (the PDF), read the same way once the lines a typed name was
        broken over are joined again."""
        one = CJK.pattern.removesuffix("+")  # a character of the crawl's Chinese
        text = re.sub(f"(?<={one})\\s+(?={one})", "", text)
        for chinese in CJK.findall(_strip_typed(text, self.typed)):
            self._keep(chinese, "pdf", where)


def test_the_whole_day_in_english_every_event_at_once(
    live_server, browser, phone_page, settings, tmp_path
):
    base = live_server.url
    day = people.tomorrow()
    reader = EnglishReader(base)
    username, password = people.first_organiser(settings, tmp_path)

    # 1. The organiser, at a desktop, switches to English on the login page and sets up.
    organiser = people.desktop(browser)
    reader.watch(organiser, "organiser")
    people.log_in(organiser, base, username, password, lang=EN)
    people.new_tournament(
        organiser,
        base,
        lang=EN,
        name=TOURNAMENT,
        slug=SLUG,
        organiser_name=ORGANISER,
        starts_on=day.isoformat(),
        start_time="09:00",
        registration_deadline=f"{day.isoformat()}T08:00",
        notice_title=NOTICE[0],
        notice_addressee=NOTICE[1],
        notice_text=NOTICE_TEXT,
    )
    people.add_venue(organiser, CARD_HALL, 12, lang=EN)
    people.add_venue(organiser, SPORTS_HALL, 2, lang=EN)
    people.add_event(
        organiser,
        base,
        SLUG,
        lang=EN,
        name=EVENT_NAMES[GUANDAN],
        slug=GUANDAN,
        discipline="guandan_team",
        entry_kind="team",
        pairs_per_team=3,
        ruleset="nantong2014",
        venue=CARD_HALL,
    )
    people.add_event(
        organiser,
        base,
        SLUG,
        lang=EN,
        name=EVENT_NAMES[BADMINTON],
        slug=BADMINTON,
        discipline="badminton",
        entry_kind="single",
        ruleset="badminton21",
        venue=SPORTS_HALL,
    )
    people.add_units(organiser, base, SLUG, GROUPS, lang=EN)
    people.add_leader(organiser, base, SLUG, LEADER[0], LEADER[1], lang=EN)
    people.add_official(organiser, base, SLUG, CHIEF[0], "chief_referee", CHIEF[1], lang=EN)
    for name in REFEREES:
        people.add_official(organiser, base, SLUG, name, "referee", lang=EN)
    people.set_status(organiser, base, SLUG, "开放报名", "报名中", lang=EN)
    people.shot(organiser, "english-dashboard-open")

    # 2. 体育's leader registers the unit's three pairs and its badminton player on a phone;
    # the organiser registers the other three groups for them (代单位报名).
    leader = people.phone(browser)
    reader.watch(leader, "leader")
    people.log_in(leader, base, LEADER[1], lang=EN)
    people.leader_registers(leader, base, SLUG, LEADER[0], GUANDAN, pairs_of(LEADER[0]), lang=EN)
    people.registers_singles(
        leader, base, SLUG, LEADER[0], BADMINTON, [PLAYERS[LEADER[0]]], lang=EN
    )
    people.no_overflow(leader)
    people.shot(leader, "english-leader-registered")
    leader.context.close()
    for unit in GROUPS[1:]:
        people.leader_registers(organiser, base, SLUG, unit, GUANDAN, pairs_of(unit), lang=EN)
        people.registers_singles(organiser, base, SLUG, unit, BADMINTON, [PLAYERS[unit]], lang=EN)

    # 3. Registration closes; each event is drawn by the system (its seed on record).
    people.set_status(organiser, base, SLUG, "截止报名", "报名截止", lang=EN)
    for seed, (event, name) in enumerate(EVENT_NAMES.items(), start=2026):
        people.make_draw(organiser, base, SLUG, event, name, seed=seed, lang=EN)

    # 4. The whole day at once, from 09:00: the chief referee stays at the desk, the two
    # referees take the halls. The preview lists every match of both events.
    preview = people.plan_the_day(
        organiser, base, SLUG, day={"Day starts": "09:00"}, off_duty=[CHIEF[0]], lang=EN
    )
    rows = preview.locator("tbody tr")
    expect(rows).to_have_count(8)  # two knockouts of four: 2 semi-finals, final, 3rd place
    for name in EVENT_NAMES.values():
        expect(rows.filter(has_text=f"{name} · ")).to_have_count(4)
    expect(preview.locator(".problems")).to_have_count(0)
    people.shot(organiser, "english-day-plan-preview")
    people.save_the_day(organiser, lang=EN)
    expect(organiser.locator("section.day-check .ok")).to_have_text(
        "No clashes; every match has a time, a hall and a referee."
    )
    people.shot(organiser, "english-day-plan-saved")

    # 5. A spectator's phone, in English from the tournament page: the date and the day's
    # timeline, each hall with its matches; no referee in two halls at once, no court or
    # table holding two matches at once.
    spectator = phone_page  # anonymous, 390 px
    reader.watch(spectator, "spectator")
    spectator.goto(f"{base}/t/{SLUG}/")
    people.switch_language(spectator, EN)
    expect(spectator.locator("main")).to_contain_text(f"{day:%A} {day.day} {day:%B} {day.year}")
    spectator.goto(f"{base}/t/{SLUG}/schedule/")
    expect(spectator.get_by_role("heading", name="Day plan", exact=True)).to_be_visible()
    slots = timeline_slots(spectator)
    assert len(slots) == 8, slots
    assert {s["hall"] for s in slots} == {CARD_HALL, SPORTS_HALL}, slots
    assert {s["referee"] for s in slots} <= set(REFEREES), slots
    assert no_double_booking(slots) == [], slots
    people.no_overflow(spectator)
    people.shot(spectator, "english-timeline")

    # 6. The referees log in by the links the organiser makes, on phones; the chief referee
    # with her password. Each referee's 我的台 says where they are on duty.
    referees = {}
    for name in REFEREES:
        url = people.issue_link(organiser, base, SLUG, name, lang=EN)
        referees[name] = people.phone(browser)
        reader.watch(referees[name], f"referee {name}")
        people.redeem_link(referees[name], url, lang=EN)
        heading = say("我的台：{name}", EN, name=name)
        expect(referees[name].get_by_role("heading", name=heading)).to_be_visible()
    chief = people.phone(browser)
    reader.watch(chief, "chief referee")
    people.log_in(chief, base, CHIEF[1], lang=EN)
    duties = {name: people.duties_of(page, base, SLUG, lang=EN) for name, page in referees.items()}
    (people.SHOTS / "english-duties.txt").write_text(repr(duties), encoding="utf-8")
    on_duty_in = {hall for ds in duties.values() for hall, _, _ in ds}
    assert on_duty_in == {CARD_HALL, SPORTS_HALL}, duties

    def on_duty(home, away):
        """The referee whose 我的台 lists the match: the one the plan put in its hall."""
        for page in referees.values():
            page.goto(f"{base}/t/{SLUG}/referee/mine/")
            if page.locator("li.my-table").filter(has_text=f"{home}—{away}").count():
                return page
        raise AssertionError(f"no referee lists {home}—{away}: {duties}")

    def play(event, home, away, winner):
        referee = on_duty(home, away)
        if event == GUANDAN:
            people.play_tie(
                referee, chief, base, SLUG, event, home, away, winner, deals=5, tables=3, lang=EN
            )
        else:
            people.play_games(referee, chief, base, SLUG, home, away, winner, lang=EN)

    # 7. Both events played round by round as the plan has them: the semi-finals (the home
    # side wins the first, the away side the second), then the final (won by the second
    # semi-final's winner) and the third-place match (by the first's loser).
    spectator.goto(f"{base}/t/{SLUG}/{GUANDAN}/bracket/")
    placings = {}
    for event in EVENT_NAMES:
        semis = people.ties_to_play(organiser, base, SLUG, event, lang=EN)
        assert len(semis) == 2, semis
        (home1, away1), (home2, away2) = semis
        play(event, home1, away1, home1)
        play(event, home2, away2, away2)
        final, third = people.ties_to_play(organiser, base, SLUG, event, lang=EN)
        if set(final) != {home1, away2}:
            final, third = third, final
        assert set(final) == {home1, away2} and set(third) == {away1, home2}, (final, third)
        play(event, *final, away2)
        play(event, *third, away1)
        placings[event] = [away2, home1, away1, home2]
    people.shot(referees[REFEREES[0]], "english-referee-done")
    people.shot(chief, "english-chief-desk")

    # 8. The spectator's bracket, never reloaded, shows the places; the other event's
    # bracket, its round names; the timeline, every match played; the units' standings.
    people.placings_shown(spectator, placings[GUANDAN], lang=EN)
    # Its rounds by their English names and dates (6 Dec 09:00).
    expect(spectator.locator("main")).to_contain_text(f"Semi-final {day.day} {day:%b} 09:00")
    people.no_overflow(spectator)
    people.shot(spectator, "english-guandan-bracket")
    spectator.goto(f"{base}/t/{SLUG}/{BADMINTON}/bracket/")
    people.placings_shown(spectator, placings[BADMINTON], lang=EN)
    for round_name in ("Semi-final", "Final", "Third-place match"):
        expect(spectator.locator("main")).to_contain_text(round_name)
    people.shot(spectator, "english-badminton-bracket")
    spectator.goto(f"{base}/t/{SLUG}/schedule/")
    expect(spectator.locator(".timeline-slot .status-badge")).to_have_text(["Finished"] * 8)
    spectator.goto(f"{base}/t/{SLUG}/standings/")
    expected = expected_standings(placings)
    rows = spectator.locator("table.points-by-event tbody tr")
    expect(rows).to_have_count(len(GROUPS))
    shown = {
        row.locator("th").inner_text(): [int(c) for c in row.locator("td").all_inner_texts()]
        for row in rows.all()
    }
    assert shown == expected, (shown, expected)
    totals = [points[-1] for points in shown.values()]
    assert totals == sorted(totals, reverse=True), shown  # the leader first
    leader = spectator.locator(".unit-standings > li summary").first
    expect(leader).to_contain_text(f"Place 1 {next(iter(shown))} {totals[0]} pts")
    people.no_overflow(spectator)
    people.shot(spectator, "english-standings")

    # 9. The organiser downloads the English results.pdf from the tournament page's link.
    organiser.goto(f"{base}/t/{SLUG}/")
    link = organiser.get_by_role("link", name="Results and certificates (PDF)")
    response = organiser.request.get(f"{base}{link.get_attribute('href')}?download=1")
    assert response.status == 200 and response.headers["content-type"] == "application/pdf"
    assert response.headers["content-language"] == EN
    disposition = response.headers["content-disposition"]
    assert disposition == f'attachment; filename="{SLUG}-results-en.pdf"', disposition
    path = tmp_path / f"{SLUG}-results-en.pdf"
    path.write_bytes(response.body())
    pdf = PdfReader(io.BytesIO(response.body()))
    text = "\n".join(page.extract_text() for page in pdf.pages)
    for event, name in EVENT_NAMES.items():
        prizes = ("一等奖", "二等奖", "三等奖")
        people.check_placings(text, placings[event], prizes=prizes, lang=EN, after=name)
    reader.text(text, "results-en.pdf")
    layout = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    (people.SHOTS / "english-results-layout.txt").write_text(layout, encoding="utf-8")
    assert "Certificate of Honour" in layout and "First prize" in layout

    # Every page each person was shown in English: no Chinese of the app's own.
    (people.SHOTS / "english-pages.txt").write_text(
        f"{reader.read} responses, {len(reader.pages)} kinds of page, unread: {reader.unread}\n"
        + "\n".join(sorted(reader.pages)),
        encoding="utf-8",
    )
    assert len(reader.pages) > 30, sorted(reader.pages)
    assert len(reader.unread) * 10 <= reader.read, reader.unread  # hardly any gone unread
    assert not reader.found, reader.report()


def timeline_slots(page) -> list[dict]:
    """The public timeline as the page shows it: each match's hall, courts or tables, start,
    end and referee."""
    slots = []
    for hall in page.locator("section.timeline-hall").all():
        name = hall.locator("h2").inner_text()
        for slot in hall.locator(".timeline-slot").all():
            starts, _, ends = slot.locator(".slot-time").inner_text().partition("–")
            place = slot.locator(".slot-place").inner_text()
            numbers = [int(n) for n in re.findall(r"\d+", place)]
            referee = slot.locator("span.meta").filter(has_text="Referee ").inner_text()
            slots.append(
                {
                    "hall": name,
                    "places": set(range(numbers[0], numbers[-1] + 1)),
                    "starts": starts,
                    "ends": ends,
                    "referee": referee.removeprefix("Referee "),
                    "match": slot.locator(".slot-match").inner_text(),
                }
            )
    return slots


def no_double_booking(slots) -> list[tuple[str, str]]:
    """The pairs of matches that overlap in time on one court or table of a hall, or under
    one referee in two halls."""
    clashes = []
    for i, a in enumerate(slots):
        for b in slots[i + 1 :]:
            if not (a["starts"] < b["ends"] and b["starts"] < a["ends"]):
                continue
            if a["hall"] == b["hall"] and a["places"] & b["places"]:
                clashes.append((a["match"], b["match"]))
            if a["referee"] == b["referee"] and a["hall"] != b["hall"]:
                clashes.append((a["match"], b["match"]))
    return clashes


def expected_standings(placings) -> dict[str, list[int]]:
    """Each group's points in each event (as the standings table lists the events) and its
    total: the points of its team's place in 掼蛋 and of its player's in badminton."""
    player_unit = {player: unit for unit, player in PLAYERS.items()}
    points = {unit: [] for unit in GROUPS}
    for event in EVENT_NAMES:
        for rank, entry in enumerate(placings[event], start=1):
            unit = entry if event == GUANDAN else player_unit[entry]
            points[unit].append(POINTS[rank - 1])
    return {unit: [*p, sum(p)] for unit, p in points.items()}
