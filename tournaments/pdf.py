"""Render a template to PDF bytes with WeasyPrint.

Chinese text needs a CJK font known to fontconfig (Noto Sans/Serif CJK or WenQuanYi);
WeasyPrint embeds the subset it uses, so the PDF reads the same on any computer.
Without one every Chinese character is drawn as a box — `manage.py check` warns then.
"""

import shutil
import subprocess
from functools import lru_cache

from django.conf import settings
from django.http import HttpResponse
from django.template.loader import render_to_string

CJK_FONT_HINT = "sudo apt-get install fonts-noto-cjk  (or fonts-wqy-microhei)"


@lru_cache(maxsize=1)
def installed_cjk_fonts() -> tuple[str, ...]:
    """Family names of the Chinese-capable fonts fontconfig knows, or () if none/unknown."""
    fc_list = shutil.which("fc-list")
    if not fc_list:
        return ()
    try:
        out = subprocess.run(
            [fc_list, ":lang=zh", "family"], capture_output=True, text=True, timeout=20
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(sorted({line.split(",")[0].strip() for line in out.splitlines() if line.strip()}))


def render_pdf(template_name: str, context: dict, *, request=None) -> bytes:
    # Imported here: WeasyPrint loads pango at import time, which pages that never print
    # should not pay for.
    from weasyprint import HTML

    html = render_to_string(template_name, context, request=request)
    return HTML(string=html, base_url=str(settings.BASE_DIR / "static")).write_pdf()


def pdf_response(pdf: bytes, filename: str, *, download: bool = False) -> HttpResponse:
    response = HttpResponse(pdf, content_type="application/pdf")
    disposition = "attachment" if download else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    return response
