"""The Chinese font check accepts only a font the PDFs use: a family that static/css/pdf.css
names (Noto Sans/Serif CJK, Source Han, WenQuanYi), not any font fontconfig says covers
Chinese — with only Droid Sans Fallback the notice PDF embeds no CJK font."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from tournaments import checks as tournament_checks
from tournaments.documents import pdf

ROOT = Path(settings.BASE_DIR)


@pytest.fixture
def fontconfig(monkeypatch, tmp_path):
    """A stand-in ``fc-list`` on PATH that lists the given lines for ``:lang=zh family``."""

    def install(*lines: str) -> None:
        listing = tmp_path / "fonts.txt"
        listing.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        fake = tmp_path / "bin" / "fc-list"
        fake.parent.mkdir(exist_ok=True)
        fake.write_text(f"#!/bin/sh\ncat '{listing}'\n", encoding="utf-8")
        fake.chmod(0o755)
        monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
        pdf.installed_cjk_fonts.cache_clear()

    yield install
    pdf.installed_cjk_fonts.cache_clear()


def _script_finds_a_font() -> bool:
    result = subprocess.run(
        [str(ROOT / "scripts" / "ensure-cjk-font"), "--check"], capture_output=True, timeout=30
    )
    return result.returncode == 0


def test_droid_sans_fallback_alone_is_not_a_font_the_pdfs_use(fontconfig):
    fontconfig("Droid Sans Fallback", "DejaVu Sans")
    assert pdf.installed_cjk_fonts() == ()
    [warning] = tournament_checks.check_cjk_font(None)
    assert warning.id == "tournaments.W001"
    assert not _script_finds_a_font()


def test_noto_cjk_is_accepted_beside_droid(fontconfig):
    fontconfig("Droid Sans Fallback", "Noto Sans CJK SC", "Noto Serif CJK SC", "Noto Sans CJK JP")
    assert pdf.installed_cjk_fonts() == ("Noto Sans CJK SC", "Noto Serif CJK SC")
    assert tournament_checks.check_cjk_font(None) == []
    assert _script_finds_a_font()


def test_wenquanyi_is_accepted_under_its_localised_name_list_too(fontconfig):
    fontconfig("文泉驿微米黑,WenQuanYi Micro Hei")
    assert pdf.installed_cjk_fonts() == ("WenQuanYi Micro Hei",)
    assert _script_finds_a_font()


def test_no_fontconfig_means_no_font(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    pdf.installed_cjk_fonts.cache_clear()
    try:
        assert pdf.installed_cjk_fonts() == ()
    finally:
        pdf.installed_cjk_fonts.cache_clear()


@pytest.mark.skipif(not shutil.which("pdffonts"), reason="poppler-utils not installed")
def test_a_font_the_check_accepts_is_embedded_in_the_notice_pdf(client, demo, tmp_path):
    accepted = pdf.installed_cjk_fonts()
    if not accepted:
        pytest.skip("no CJK font the PDFs use is installed (apt-get install fonts-noto-cjk)")
    response = client.get("/t/nantong-2014/notice.pdf")
    path = tmp_path / "notice.pdf"
    path.write_bytes(response.content)
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True).stdout

    def squash(name: str) -> str:
        return "".join(c for c in name.lower() if c.isalnum())

    # "ABCDEF+Noto-Serif-CJK-SC" is the subset of "Noto Serif CJK SC".
    embedded = {squash(line.split()[0].split("+")[-1]) for line in fonts.splitlines()[2:]}
    squashed = {squash(family) for family in accepted}
    assert any(name.startswith(family) for name in embedded for family in squashed), fonts
