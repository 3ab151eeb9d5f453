"""The printed documents on the demo tournaments: Chinese text, embedded CJK fonts, page
size and count, and score-sheet QR codes that open the table's entry page."""

import re
import shutil
import subprocess
import threading

import pytest
from django.urls import reverse

from scoring.models import TableMatch
from tournaments.draw import make as draw_make
from tournaments.draw import selectors as draw_selectors
from tournaments.models import Event
from tournaments.ops.demo import play_demo

pytestmark = pytest.mark.skipif(
    not shutil.which("pdftotext"),
    reason="poppler-utils not installed (apt-get install poppler-utils)",
)


def tool(name: str, pdf: bytes, tmp_path, *args) -> str:
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf)
    extra = ["-"] if name == "pdftotext" else []
    return subprocess.run(
        [name, *args, str(path), *extra], capture_output=True, text=True, check=True
    ).stdout


def fetch(client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, url
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    return response.content


def text_of(pdf, tmp_path) -> str:
    return "".join(tool("pdftotext", pdf, tmp_path).split())


def info(pdf, tmp_path) -> dict:
    lines = tool("pdfinfo", pdf, tmp_path).splitlines()
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in lines if ":" in line)}


def assert_cjk_embedded(pdf, tmp_path):
    fonts = tool("pdffonts", pdf, tmp_path).splitlines()[2:]
    cjk = [f for f in fonts if "CJK" in f or "WenQuanYi" in f]
    assert cjk and all(" yes " in f for f in cjk), fonts


def test_the_draw_sheet_is_the_notices_appendix(client, demo, tmp_path):
    pdf = fetch(client, reverse("documents:draw-pdf", args=["nantong-2014", "guandan"]))
    text = text_of(pdf, tmp_path)
    for expected in [
        "分组结果及赛程安排",
        "第一阶段：（8进4）",
        "A组：体育——行政",
        "B组：教务物理联队——生物数学联队",
        "第二阶段：（4进2）",
        "A1——B1",
        "C1——D1",
        "冠军争夺战：A1、B1胜出队——C1、D1胜出队",
        "季军争夺战：A1、B1负队——C1、D1负队",
        "本校教工活动中心",
        "江苏省南通中学工会",
        "2014年5月8日",
    ]:
        assert expected in text, expected
    assert_cjk_embedded(pdf, tmp_path)
    meta = info(pdf, tmp_path)
    assert meta["Pages"] == "1" and meta["Page size"].endswith("(A4)")


def test_the_bracket_is_a4_landscape_with_results_filled_in(client, demo, tmp_path):
    play_demo(seed=3, only="nantong-2014")
    pdf = fetch(client, reverse("documents:bracket-pdf", args=["nantong-2014", "guandan"]))
    text = text_of(pdf, tmp_path)
    for expected in ["对阵图", "1/4决赛", "半决赛", "决赛", "季军争夺战", "体育", "政治", "第1名"]:
        assert expected in text, expected
    meta = info(pdf, tmp_path)
    width, height = (float(x) for x in re.findall(r"[\d.]+", meta["Page size"])[:2])
    assert width > height and meta["Page size"].endswith("(A4)")
    assert_cjk_embedded(pdf, tmp_path)


def test_a_large_bracket_goes_on_a3_and_beyond_128_a_page_per_quarter(client, db, tmp_path):
    from tournaments.models import Tournament
    from tournaments.ops import synthetic

    for entries, size, pages in [(64, "A3", 1), (200, "A3", 5)]:
        event = synthetic.create_event(
            tournament_slug=f"big{entries}", event_slug="teams", entries=entries
        )
        Tournament.objects.filter(slug=f"big{entries}").update(status=Tournament.Status.DRAWN)
        draw_make.draw_event(event=event, seed=1)
        pdf = fetch(client, reverse("documents:bracket-pdf", args=[f"big{entries}", "teams"]))
        meta = info(pdf, tmp_path)
        assert meta["Page size"].endswith(f"({size})"), meta["Page size"]
        assert int(meta["Pages"]) >= pages
        if entries > 128:
            text = text_of(pdf, tmp_path)
            assert "第1区" in text and "第4区" in text and "八强起" in text


def test_score_sheets_one_page_per_table_filled_in_with_the_record(client, demo, tmp_path):
    from scoring.services.tables import record_event

    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    table = TableMatch.objects.filter(match__round__stage__event=event).order_by("pk").first()
    record_event(table=table, event={"order": ["A", "B", "A", "B"]}, key="k1")
    record_event(
        table=table, event={"penalty": {"team": "B", "levels": 2}}, key="k2", reason="暗示"
    )
    pdf = fetch(
        client,
        reverse("documents:scoresheets-pdf", args=["nantong-2014", "guandan"]) + "?round=1",
    )
    meta = info(pdf, tmp_path)
    assert meta["Pages"] == "12"  # four ties of three tables
    assert meta["Page size"].endswith("(A4)")
    text = text_of(pdf, tmp_path)
    for expected in [
        "记分表",
        "1/4决赛",
        "第1台",
        "体育",
        "行政",
        "升级3/2/1",
        "裁判签字",
        "A方签字",
        "B方签字",
        "处罚、判负记录",
        "4/2",
        "扣2级（暗示）",
    ]:
        assert expected in text, expected
    assert_cjk_embedded(pdf, tmp_path)


def test_chess_and_rally_score_sheets_have_a_row_per_game(client, demo, tmp_path):
    from scoring.services.tables import record_event

    for slug, record, expected in [
        (
            "badminton",
            [{"home": 21, "away": 17}],
            ["羽毛球·记分表", "羽毛球三局两胜", "本局胜方", "21", "17", "弃权记录"],
        ),
        (
            "xiangqi",
            [{"result": "draw", "first_move": "away"}],
            ["象棋·记分表", "先手（红方）", "和棋", "猜先；和棋则后手胜"],
        ),
        ("table-tennis", [{"forfeit": {"side": "home", "reason": "late_over_10_min"}}], []),
    ]:
        event = Event.objects.get(tournament__slug="anhui-2021", slug=slug)
        tables = TableMatch.objects.filter(match__round__stage__event=event, match__round__number=1)
        table = tables.order_by("pk").first()
        for n, item in enumerate(record):
            record_event(table=table, event=item, key=f"k{n}")
        pdf = fetch(
            client, reverse("documents:scoresheets-pdf", args=["anhui-2021", slug]) + "?round=1"
        )
        assert info(pdf, tmp_path)["Pages"] == str(tables.count())
        text = text_of(pdf, tmp_path)
        assert table.match.home.name in text and table.match.away.name in text
        if slug == "table-tennis":
            expected = [f"{table.match.home.name}：弃权（迟到十分钟以上）", "乒乓球五局三胜"]
            # A row for each game the match can take: best of five.
            from django.test import RequestFactory

            from tournaments.documents.build import scoresheet_context

            sheet = scoresheet_context(event, RequestFactory().get("/"), round_number=1)["sheets"]
            first = next(x for x in sheet if x["table"].pk == table.pk)
            assert len(first["sheet"].rows) + first["sheet"].blank_rows == 5
        for item in expected:
            assert item in text, (slug, item)


@pytest.mark.skipif(
    not shutil.which("zbarimg") or not shutil.which("pdftoppm"),
    reason="zbar-tools or poppler-utils not installed (apt-get install zbar-tools poppler-utils)",
)
def test_each_score_sheet_qr_code_opens_its_tables_entry_page(client, demo, tmp_path):
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    tables = list(
        TableMatch.objects.filter(
            match__round__stage__event=event, match__round__number=1
        ).order_by("match__index", "number")
    )
    pdf = fetch(
        client,
        reverse("documents:scoresheets-pdf", args=["nantong-2014", "guandan"]) + "?round=1",
    )
    path = tmp_path / "sheets.pdf"
    path.write_bytes(pdf)
    for page in (1, 5):
        subprocess.run(
            [
                "pdftoppm",
                "-r",
                "150",
                "-png",
                "-f",
                str(page),
                "-l",
                str(page),
                str(path),
                str(tmp_path / f"p{page}"),
            ],
            check=True,
        )
        [png] = tmp_path.glob(f"p{page}*.png")
        decoded = subprocess.run(
            ["zbarimg", "--quiet", "--raw", str(png)], capture_output=True, text=True
        ).stdout.strip()
        table = tables[page - 1]
        assert decoded == f"http://testserver/t/nantong-2014/guandan/tables/{table.pk}/"


def qr_on_page(pdf: bytes, page: int, tmp_path) -> str:
    path = tmp_path / "sheets.pdf"
    path.write_bytes(pdf)
    prefix = tmp_path / f"qr{page}"
    subprocess.run(
        ["pdftoppm", "-r", "150", "-png", "-f", str(page), "-l", str(page), str(path), prefix],
        check=True,
    )
    [png] = tmp_path.glob(f"qr{page}*.png")
    return subprocess.run(
        ["zbarimg", "--quiet", "--raw", str(png)], capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def pdf_pieces(monkeypatch):
    """Score sheets rendered in pieces of four on three idle cores; records the pieces."""
    from tournaments.documents import pdf

    monkeypatch.setattr(pdf, "MIN_ITEMS_PER_PIECE", 4)
    monkeypatch.setattr(pdf, "_cores", lambda: 3)
    monkeypatch.setattr(pdf, "_load", lambda: 0.2)
    monkeypatch.setattr(pdf, "_fork_is_safe", lambda: True)  # beside the live server's thread
    pieces = []
    write_pdfs = pdf._write_pdfs
    monkeypatch.setattr(
        pdf,
        "_write_pdfs",
        lambda html_of, chunks, **kw: (
            pieces.append(len(chunks)) or write_pdfs(html_of, chunks, **kw)
        ),
    )
    return pieces


def assert_twelve_sheets_in_order(pdf: bytes, tables, tmp_path):
    assert info(pdf, tmp_path)["Pages"] == "12"
    for page, table in enumerate(tables, start=1):
        text = "".join(tool("pdftotext", pdf, tmp_path, "-f", str(page), "-l", str(page)).split())
        assert f"第{page}张共12张" in text
        assert f"/tables/{table.pk}/" in text
    assert_cjk_embedded(pdf, tmp_path)
    # Each piece embeds its own font subsets; no two may share a name ("ABCDEF+Noto…").
    fonts = [line.split()[0] for line in tool("pdffonts", pdf, tmp_path).splitlines()[2:]]
    assert len(fonts) > 3 and len(set(fonts)) == len(fonts), fonts


@pytest.mark.skipif(
    not shutil.which("zbarimg") or not shutil.which("pdftoppm"),
    reason="zbar-tools or poppler-utils not installed (apt-get install zbar-tools poppler-utils)",
)
def test_many_score_sheets_are_rendered_on_every_core_and_joined_in_order(
    client, demo, tmp_path, pdf_pieces
):
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    tables = list(
        TableMatch.objects.filter(
            match__round__stage__event=event, match__round__number=1
        ).order_by("match__index", "number")
    )
    url = reverse("documents:scoresheets-pdf", args=["nantong-2014", "guandan"]) + "?round=1"
    threads = threading.active_count()
    pdf = fetch(client, url)
    assert threading.active_count() == threads  # the pool's threads are gone: forking is safe
    assert pdf_pieces == [3]  # twelve sheets, three idle cores: three pieces of four, two forked
    assert_twelve_sheets_in_order(pdf, tables, tmp_path)
    # A sheet from a forked piece still opens its own table's entry page.
    table = tables[8]
    assert (
        qr_on_page(pdf, 9, tmp_path)
        == f"http://testserver/t/nantong-2014/guandan/tables/{table.pk}/"
    )
    # The request's database connection is intact after the forks.
    assert TableMatch.objects.filter(pk=table.pk).exists()
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("failure", ["raises", "dies"])
def test_a_failed_pdf_worker_leaves_its_piece_to_the_request(
    client, demo, tmp_path, monkeypatch, pdf_pieces, failure
):
    import os

    from tournaments.documents import pdf

    parent, write_pdf = os.getpid(), pdf.write_pdf

    def fails_in_a_worker(html):
        if os.getpid() != parent:
            if failure == "dies":
                os._exit(1)
            raise RuntimeError("worker fails")
        return write_pdf(html)

    monkeypatch.setattr(pdf, "write_pdf", fails_in_a_worker)
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    tables = list(
        TableMatch.objects.filter(
            match__round__stage__event=event, match__round__number=1
        ).order_by("match__index", "number")
    )
    pdf_bytes = fetch(
        client,
        reverse("documents:scoresheets-pdf", args=["nantong-2014", "guandan"]) + "?round=1",
    )
    assert pdf_pieces == [3]
    assert_twelve_sheets_in_order(pdf_bytes, tables, tmp_path)


def test_pdfs_are_rendered_in_one_process_for_short_lists_or_busy_cores(monkeypatch):
    from tournaments.documents import pdf

    monkeypatch.setattr(pdf, "_fork_is_safe", lambda: True)
    monkeypatch.setattr(pdf, "_cores", lambda: 2)
    monkeypatch.setattr(pdf, "_load", lambda: 0.3)
    assert pdf.piece_count(2 * pdf.MIN_ITEMS_PER_PIECE) == 2
    assert pdf.piece_count(10 * pdf.MIN_ITEMS_PER_PIECE) == 2
    assert pdf.piece_count(2 * pdf.MIN_ITEMS_PER_PIECE - 1) == 1
    # The other core is busy: a worker would only compete with what runs there.
    monkeypatch.setattr(pdf, "_load", lambda: 1.2)
    assert pdf.piece_count(10 * pdf.MIN_ITEMS_PER_PIECE) == 1
    monkeypatch.setattr(pdf, "_load", lambda: 5.0)
    assert pdf.piece_count(10 * pdf.MIN_ITEMS_PER_PIECE) == 1
    monkeypatch.setattr(pdf, "_cores", lambda: 64)
    monkeypatch.setattr(pdf, "_load", lambda: 0.0)
    assert pdf.piece_count(1000) == pdf.MAX_PIECES
    monkeypatch.setattr(pdf, "_fork_is_safe", lambda: False)
    assert pdf.piece_count(1000) == 1


def test_pdfs_are_not_rendered_in_forked_workers_beside_another_thread():
    """Forking beside another thread (the development server's) could leave the child
    waiting forever for a lock that thread held."""
    from tournaments.documents import pdf

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not pdf._fork_is_safe()
    finally:
        stop.set()
        other.join()


def test_results_list_prizes_and_print_a_certificate_per_award(client, demo, tmp_path):
    play_demo(seed=5, only="nantong-2014")
    pdf = fetch(client, reverse("documents:results-pdf", args=["nantong-2014"]))
    text = text_of(pdf, tmp_path)
    for expected in [
        "成绩公告",
        "掼蛋团体赛",
        "一等奖",
        "二等奖",
        "三等奖",
        "纪念奖",
        "荣誉证书",
        "特发此证，以资鼓励",
    ]:
        assert expected in text, expected
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    champion = draw_selectors.placings(event)[0][1]
    assert f"{champion.name}在第二届“轻松假日”教工扑克牌（掼蛋）比赛掼蛋团体赛中荣获一等奖" in text
    meta = info(pdf, tmp_path)
    # The announcement (with the units' standings), three certificates for the event and
    # three for the top units (团体总分: 政治, 体育, 历史 — one event, so its places).
    assert meta["Pages"] == "7"
    assert "团体总分" in text and "团体第一名" in text
    assert_cjk_embedded(pdf, tmp_path)


def test_the_results_cover_every_event_of_the_sports_day(client, demo, tmp_path):
    play_demo(seed=7, only="anhui-2021")
    pdf = fetch(client, reverse("documents:results-pdf", args=["anhui-2021"]))
    text = text_of(pdf, tmp_path)
    flat = "".join(text.split())
    tournament = demo["anhui-2021"]
    certificates = 0
    for event in tournament.events.all():
        assert event.name in text
        placings = draw_selectors.placings(event)
        assert [rank for rank, _e in placings] == [1, 2, 3, 4], event.slug
        champion = placings[0][1]
        certificate = (
            re.escape(champion.name)
            + "(（[^）]*）)?在"
            + re.escape(f"{tournament.name}{event.name}中荣获一等奖")
        )
        assert re.search(certificate, flat), certificate
        certificates += 3
    assert certificates == 12
    assert int(info(pdf, tmp_path)["Pages"]) >= 1 + certificates


def test_on_site_card_entries_get_the_participation_award_only(client, demo, tmp_path):
    event = Event.objects.get(tournament__slug="anhui-2021", slug="guandan")
    late = event.entries.order_by("pk").last()
    late.on_site, late.participation_award_only = True, True
    late.save()
    play_demo(seed=5, only="anhui-2021")
    text = text_of(fetch(client, reverse("documents:results-pdf", args=["anhui-2021"])), tmp_path)
    assert "参与奖" in text
    assert f"{late.name}{late.unit.name}参与奖" in text


def test_the_organiser_words_the_certificate(client, demo, tmp_path):
    from tournaments.models import Tournament

    Tournament.objects.filter(slug="nantong-2014").update(
        certificate_title="奖状",
        certificate_text="祝贺{name}获得{event}{prize}！",
        certificate_signature="校工会",
    )
    play_demo(seed=5, only="nantong-2014")
    text = text_of(fetch(client, reverse("documents:results-pdf", args=["nantong-2014"])), tmp_path)
    assert "奖状" in text and "获得掼蛋团体赛一等奖！" in text and "校工会" in text


def test_documents_of_an_event_not_drawn_yet_say_so(client, demo, tmp_path):
    event = Event.objects.get(tournament__slug="anhui-2021", slug="xiangqi")
    draw_make.undo_draw(event=event)
    for name, message in [
        ("documents:draw-pdf", "本项目尚未抽签"),
        ("documents:bracket-pdf", "本项目尚未抽签"),
        ("documents:scoresheets-pdf", "暂无记分表"),
    ]:
        pdf = fetch(client, reverse(name, args=["anhui-2021", "xiangqi"]))
        assert message in text_of(pdf, tmp_path)


def test_a_score_sheet_numbers_only_deals_tracks_level_penalties_and_fills_the_end(demo, rf):
    from scoring.services.tables import record_event
    from tournaments.documents.build import scoresheet_context

    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    table = TableMatch.objects.filter(match__round__stage__event=event).order_by("pk").first()
    record_event(table=table, event={"order": ["A", "A", "B", "B"]}, key="k1")
    record_event(
        table=table,
        event={"penalty": {"team": "A", "kind": "back_to_2"}},
        key="k2",
        reason="出错牌",
    )
    record_event(table=table, event={"order": ["B", "A", "B", "A"]}, key="k3")
    sheet = next(
        s
        for s in scoresheet_context(event, rf.get("/"), round_number=1)["sheets"]
        if s["table"].pk == table.pk
    )
    assert sheet["ended_at"] is None  # still in play
    record_event(table=table, event={"time_up": True}, key="k4")
    sheet = next(
        s
        for s in scoresheet_context(event, rf.get("/"), round_number=1)["sheets"]
        if s["table"].pk == table.pk
    )
    # The sheet's text as the paper prints it (words in Chinese).
    rows = [
        (number, levels, str(note)) for number, _top, _place, levels, note in sheet["sheet"].rows
    ]
    # Deal 1 (双上: A up three to 5), the penalty back to 2 in the track, deal 2, then time.
    assert rows[0][:2] == ("1", "5 / 2")
    assert rows[1][0] == "" and rows[1][1] == "2 / 2" and "回到2" in rows[1][2]
    assert rows[2][0] == "2"
    assert rows[3][0] == "" and rows[3][2] == "时间到"
    assert sheet["blank_numbers"].split("\n")[0] == "3"
    assert any("回到2（出错牌）" in str(p) for p in sheet["sheet"].notes)
    assert sheet["ended_at"] is not None
