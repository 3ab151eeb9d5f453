import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(
    not shutil.which("pdftotext"),
    reason="poppler-utils not installed (apt-get install poppler-utils)",
)


def _pdf_tool(tool: str, pdf: bytes, tmp_path) -> str:
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf)
    args = [tool, str(path)] + (["-"] if tool == "pdftotext" else [])
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def nantong_pdf(client, demo):
    response = client.get("/t/nantong-2014/notice.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    return response.content


def test_the_notice_pdf_carries_the_chinese_title_and_sections(nantong_pdf, tmp_path):
    assert nantong_pdf.startswith(b"%PDF-")
    text = _pdf_tool("pdftotext", nantong_pdf, tmp_path)
    flat = "".join(text.split())
    assert "江苏省南通中学工会关于举行第二届“轻松假日”教工扑克牌比赛的通知" in flat
    assert "三、比赛方法" in flat
    assert "江苏省南通中学工会" in flat
    assert "2014年5月8日" in flat
    assert "江苏省南通中学教工扑克牌（掼蛋）比赛规则" in flat


def test_the_notice_pdf_embeds_a_cjk_font(nantong_pdf, tmp_path):
    fonts = _pdf_tool("pdffonts", nantong_pdf, tmp_path).splitlines()[2:]
    cjk = [line for line in fonts if "CJK" in line or "WenQuanYi" in line or "Han" in line]
    assert cjk, "no CJK font in the PDF:\n" + "\n".join(fonts)
    # Column "emb" is yes for every CJK font.
    assert all(" yes " in line for line in cjk)


def test_the_notice_pdf_is_a4_and_starts_the_rules_on_a_new_page(nantong_pdf, tmp_path):
    info = _pdf_tool("pdfinfo", nantong_pdf, tmp_path)
    size = next(line for line in info.splitlines() if line.startswith("Page size:"))
    assert size.endswith("pts (A4)"), size
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    assert pages >= 2


def test_the_notice_pdf_can_be_downloaded(client, demo):
    response = client.get("/t/anhui-2021/notice.pdf?download=1")
    assert response["Content-Disposition"].startswith("attachment;")
