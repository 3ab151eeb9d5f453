"""The PDFs in the language of whoever downloads them (the header's switch, cookie
django_language), Chinese by default: in English no Chinese is left that the app wrote —
only what people typed (names, venues, the notice, reasons) — and a Chinese copy and an
English copy are never the same file."""

import io
import re
import shutil
import subprocess
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation
from pypdf import PdfReader

from tests.test_language_crawl import CJK, _typed
from tournaments.documents import build as documents
from tournaments.models import Event, Official, Tournament
from tournaments.ops.demo import play_demo

pytestmark = pytest.mark.skipif(
    not shutil.which("pdftotext"),
    reason="poppler-utils not installed (apt-get install poppler-utils)",
)

# Each document's own words: (URL name, Chinese, English). The English ones are the
# catalogue's translations, so a missing .mo fails here too.
DOCUMENTS = [
    ("tournaments:notice-pdf", "第1页共", "Page1of"),
    ("documents:results-pdf", "成绩公告", "Results"),
    ("documents:standings-pdf", "团体总分", "Unitstandings"),
    ("documents:draw-pdf", "分组结果及赛程安排", "Drawandschedule"),
    ("documents:bracket-pdf", "对阵图", "Bracket"),
    ("documents:scoresheets-pdf", "记分表", "Scoresheet"),
    ("documents:tablecards-pdf", "扫码录分", "Scantoenterthescore"),
]
# Those of the whole tournament; the others are one an event.
TOURNAMENT_DOCUMENTS = ("documents:results-pdf", "documents:standings-pdf")


def pdf_text(pdf: bytes, tmp_path) -> str:
    """The PDF's text without spaces or line breaks (a line breaks anywhere in Chinese)."""
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    return "".join(text.split())


def without_footers(text: str, pdf: bytes) -> str:
    """``text`` less its pages' footers ("第 1 页 共 3 页" / "Page 1 of 3"), which sit in the
    middle of a typed paragraph that a page breaks."""
    pages = len(PdfReader(io.BytesIO(pdf)).pages)
    for n in range(1, pages + 1):
        text = text.replace(f"第{n}页共{pages}页", "").replace(f"Page{n}of{pages}", "")
    return text


def app_written(text: str, typed: list[str]) -> str:
    """``text`` (footers taken out) once everything people typed is taken out too."""
    for value in sorted({"".join(t.split()) for t in typed if t.strip()}, key=len, reverse=True):
        text = text.replace(value, " ")
    return text


def app_written_chinese(text: str, typed: list[str]) -> set[str]:
    """The Chinese the app wrote in ``text``, and any curly quote: the CJK font draws those
    as wide as an ideograph (place’s), so the English the PDFs print uses straight ones."""
    text = app_written(text, typed)
    return set(CJK.findall(text)) | (set(text) & set("‘’“”"))


def engines_own_text(event: Event) -> list[str]:
    """What the scoring engines still give the score sheet as Chinese text rather than
    Words (the rules line, the grid, the box of penalties): their conversion to Words is
    another piece of work. Only plain strings are taken out — once a piece is Words it must
    read in English like the rest."""
    with translation.override("en"):
        context = documents.scoresheet_context(event, RequestFactory().get("/"))
        texts = [context["engine"].summary]
        for s in context["sheets"]:
            sheet = s["sheet"]
            texts += [sheet.notes_title, *sheet.columns, *sheet.notes]
            texts += [*sheet.blank_notes.values(), *(cell for row in sheet.rows for cell in row)]
    return [t for t in texts if isinstance(t, str)]


def reader(language: str, user=None) -> Client:
    client = Client()
    client.cookies["django_language"] = language
    if user is not None:
        client.force_login(user)
    return client


def fetch(client: Client, url: str):
    response = client.get(url)
    assert response.status_code == 200, url
    assert response["Content-Type"] == "application/pdf", url
    return response


def filename(response) -> str:
    return re.search(r'filename="([^"]+)"', response["Content-Disposition"])[1]


def last_round(event: Event) -> int:
    """The last round's number: its few tables keep the score sheets quick to render."""
    return max(event.stages.order_by("order").last().rounds.values_list("number", flat=True))


def _urls(tournament: Tournament) -> list[tuple[str, str, str, str]]:
    """(url, URL name, Chinese words, English words) of every document of ``tournament``."""
    urls = []
    for name, zh, en in DOCUMENTS:
        if name.startswith("tournaments:") or name in TOURNAMENT_DOCUMENTS:
            urls.append((reverse(name, args=[tournament.slug]), name, zh, en))
            continue
        for event in tournament.events.all():
            url = reverse(name, args=[tournament.slug, event.slug])
            if name in ("documents:scoresheets-pdf", "documents:tablecards-pdf"):
                url += f"?round={last_round(event)}"
            urls.append((url, name, zh, en))
    return urls


def test_every_pdf_of_the_played_demo_is_written_in_its_readers_language(demo, tmp_path):
    play_demo(seed=2014)
    typed = _typed()
    pending = {
        event.pk: engines_own_text(event)
        for event in Event.objects.filter(tournament__in=list(demo.values()))
    }
    checked = 0
    for tournament in demo.values():
        # An official reads every document (the table cards are the officials' only).
        chief = tournament.officials.filter(
            role=Official.Role.CHIEF_REFEREE, user__isnull=False
        ).first()
        chinese, english = reader("zh-hans", chief.user), reader("en", chief.user)
        for url, name, zh, en in _urls(tournament):
            in_chinese = fetch(chinese, url)
            in_english = fetch(english, url)
            zh_text = pdf_text(in_chinese.content, tmp_path)
            en_text = pdf_text(in_english.content, tmp_path)
            assert zh in zh_text, (url, zh)
            assert en in en_text and en not in zh_text, (url, en)
            extra = []
            if name in ("documents:scoresheets-pdf",):
                event = tournament.events.get(slug=url.split("/")[3])
                extra = pending[event.pk]
            left = app_written_chinese(without_footers(en_text, in_english.content), typed + extra)
            assert not left, f"{url} in English still has {sorted(left)}"
            # Two files, each named and labelled by its language; a cache keeps one per
            # language cookie.
            assert filename(in_chinese).endswith(".pdf") and "-en" not in filename(in_chinese)
            assert filename(in_english) == filename(in_chinese).removesuffix(".pdf") + "-en.pdf"
            assert in_chinese["Content-Language"] == "zh-hans"
            assert in_english["Content-Language"] == "en"
            for response in (in_chinese, in_english):
                assert "Cookie" in response["Vary"], url
            checked += 1
    assert checked == 2 * 3 + 5 * 4  # two tournaments' notice, results and standings; 5 events' 4


def test_a_chinese_download_after_an_english_one_is_chinese_again(client, demo, tmp_path):
    play_demo(seed=5, only="nantong-2014")
    url = reverse("documents:results-pdf", args=["nantong-2014"])
    first = fetch(client, url)  # no cookie: Chinese
    english = fetch(reader("en"), url)
    again = fetch(client, url)
    texts = [pdf_text(r.content, tmp_path) for r in (first, english, again)]
    assert "成绩公告" in texts[0] and "荣誉证书" in texts[0] and "一等奖" in texts[0]
    assert "CertificateofHonour" in texts[1] and "Firstprize" in texts[1]
    assert texts[2] == texts[0] and texts[1] != texts[0]
    assert first.content != english.content


def test_the_day_plan_pdf_in_english(demo, tmp_path):
    call_command("schedule_day", "anhui-2021", stdout=StringIO())
    url = reverse("documents:day-pdf", args=["anhui-2021"])
    in_english = fetch(reader("en"), url)
    en_text = pdf_text(in_english.content, tmp_path)
    zh_text = pdf_text(fetch(reader("zh-hans"), url).content, tmp_path)
    for words in ("Dayplan·轻纺楼一楼", "Hallduty:", "Table/court", "Event·Round", "Final"):
        assert words in en_text, words
    assert "Tobedecided–Tobedecided" in en_text
    for words in ("全天赛程·轻纺楼一楼", "场地执裁：", "桌号/场号", "掼蛋·决赛", "待定——待定"):
        assert words in zh_text, words
    assert not app_written_chinese(without_footers(en_text, in_english.content), _typed())


def test_a_swiss_preliminary_reads_in_english_on_the_draw_sheet_and_the_bracket(db, tmp_path):
    from tournaments.draw.make import draw_event
    from tournaments.ops import synthetic

    event = synthetic.create_event(tournament_slug="swiss-en", event_slug="g", entries=10, seed=5)
    draw_event(event=event, plan=synthetic.plan_for("swiss", 10, qualifiers=8), seed=5)
    typed = _typed()
    english = reader("en")
    texts = {}
    for name in ("documents:draw-pdf", "documents:bracket-pdf"):
        response = fetch(english, reverse(name, args=["swiss-en", "g"]))
        texts[name] = pdf_text(response.content, tmp_path)
        left = app_written_chinese(without_footers(texts[name], response.content), typed)
        assert not left, (name, left)
    draw = texts["documents:draw-pdf"]
    assert "Stage1:preliminarySwissrounds,downtothelast8" in draw
    assert "Stage2:knockoutoftheSwisstop8" in draw
    assert "GroupA:Swissrank1–Swissrank8" in draw
    bracket = texts["documents:bracket-pdf"]
    assert "Thetop8inthestandingsgoontotheknockoutstage" in bracket
    assert "1—8,4—5,2—7,3—6" in bracket
    chinese = fetch(reader("zh-hans"), reverse("documents:bracket-pdf", args=["swiss-en", "g"]))
    assert "积分前8名进入第二阶段淘汰赛，按积分名次对阵：1—8、4—5、2—7、3—6；" in pdf_text(
        chinese.content, tmp_path
    )


def test_the_organisers_own_certificate_wording_stays_as_typed_in_english(demo, tmp_path):
    Tournament.objects.filter(slug="nantong-2014").update(
        certificate_title="奖状", certificate_text="祝贺{name}获得{event}{prize}！"
    )
    play_demo(seed=5, only="nantong-2014")
    url = reverse("documents:results-pdf", args=["nantong-2014"])
    text = pdf_text(fetch(reader("en"), url).content, tmp_path)
    # Their title and sentence as they wrote them, the prize in it as they would say it; the
    # app's own words around them in English.
    assert "奖状" in text and "获得掼蛋团体赛一等奖！" in text
    assert "CertificateofHonour" not in text
    assert "Firstprize" in text and "Results" in text


def test_the_notices_rules_without_a_title_are_headed_in_the_readers_language(demo, tmp_path):
    Tournament.objects.filter(slug="nantong-2014").update(rules_title="")
    url = reverse("tournaments:notice-pdf", args=["nantong-2014"])
    assert "Rules" in pdf_text(fetch(reader("en"), url).content, tmp_path)
    assert "比赛规则" in pdf_text(fetch(reader("zh-hans"), url).content, tmp_path)
