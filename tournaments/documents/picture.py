"""The documents as pictures to share (PNG): a PDF laid out on a phone-wide page, rasterised
with pdfium into one tall image.

One tall picture, not one per page: in a WeChat group a picture is one message that opens
full-screen and scrolls down (a 长图); pages sent as several pictures arrive one by one, are
opened one at a time and forwarded apart. The page breaks of the document stay visible as a
thin rule.

The picture is 1080 pixels wide, what a phone shows full-screen at its own resolution; the
documents' ``picture`` page (:data:`PICTURE_PAGE`) is narrow enough that their text comes
out about 30 pixels high there, readable without zooming.
"""

from __future__ import annotations

import hashlib
import io
import threading

from django.core.cache import cache
from django.http import HttpResponse
from PIL import Image, ImageOps

from tournaments.live.http import not_modified, set_validators, tournament_validators

PICTURE_WIDTH = 1080  # pixels
# The page a document is laid out on for its picture (``picture`` in its context, read by
# templates/pdf/base.html): 120 mm wide, so that 10 pt text is ~32 px high at 1080 px;
# as tall as WeasyPrint takes, the empty paper below the content trimmed away afterwards.
PICTURE_PAGE_WIDTH_MM = 120
PICTURE_PAGE_HEIGHT_MM = 1000
PICTURE_MARGIN_MM = 6
PICTURE_PAGE = {
    "size": f"{PICTURE_PAGE_WIDTH_MM}mm {PICTURE_PAGE_HEIGHT_MM}mm",
    "margin": f"{PICTURE_MARGIN_MM}mm",
}
# Below the last ink of a page, as much paper as the margin above it.
_BOTTOM_PX = round(PICTURE_WIDTH * PICTURE_MARGIN_MM / PICTURE_PAGE_WIDTH_MM)
_RULE = 200  # the grey of the rule between two pages
# A picture made stays in the cache this long under its ETag (a new result makes a new one).
PICTURE_SECONDS = 600
# pdfium is one library state per process and not thread-safe (gunicorn runs threads).
_pdfium = threading.Lock()


def picture_page(width_mm: float | None = None, height_mm: float | None = None) -> dict:
    """The ``picture`` context of a document laid out for its picture; a bracket asks for a
    page as wide and tall as its tree."""
    if width_mm is None and height_mm is None:
        return dict(PICTURE_PAGE)
    width = width_mm or PICTURE_PAGE_WIDTH_MM
    height = height_mm or PICTURE_PAGE_HEIGHT_MM
    return {"size": f"{width}mm {height}mm", "margin": f"{PICTURE_MARGIN_MM}mm"}


def pdf_to_png(pdf: bytes, width: int = PICTURE_WIDTH) -> bytes:
    """The PDF's pages, each ``width`` pixels wide and cut below its content, one under the
    other in one greyscale PNG (the documents are black on white)."""
    import pypdfium2 as pdfium  # only pictures need it

    pages = []
    with _pdfium:
        document = pdfium.PdfDocument(pdf)
        try:
            for page in document:
                scale = width / page.get_width()
                bitmap = page.render(scale=scale, grayscale=True)
                pages.append(_trimmed(bitmap.to_pil().convert("L")))
                page.close()
        finally:
            document.close()
    return _png(_stacked(pages, width))


def _trimmed(page: Image.Image) -> Image.Image:
    """The page down to its last ink and a margin's worth of paper below."""
    ink = ImageOps.invert(page).getbbox()
    if ink is None:
        return page.crop((0, 0, page.width, min(page.height, _BOTTOM_PX * 2)))
    return page.crop((0, 0, page.width, min(page.height, ink[3] + _BOTTOM_PX)))


def _stacked(pages: list[Image.Image], width: int) -> Image.Image:
    height = sum(p.height for p in pages) + max(0, len(pages) - 1)
    picture = Image.new("L", (width, max(1, height)), 255)
    top = 0
    for index, page in enumerate(pages):
        if index:
            picture.paste(_RULE, (0, top, width, top + 1))
            top += 1
        picture.paste(page, (0, top))
        top += page.height
    return picture


def _png(picture: Image.Image) -> bytes:
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


def png_response(pdf: bytes) -> HttpResponse:
    return HttpResponse(pdf_to_png(pdf), content_type="image/png")


def tournament_picture(request, tournament, name: str, pdf_of) -> HttpResponse:
    """The picture of a document of the whole tournament (``pdf_of()`` -> its PDF): a 304
    while nothing it shows changed (``live.http.tournament_validators``, by language too),
    else the PNG made once for this state and kept in the cache a while."""
    etag, last_modified = tournament_validators(tournament, name)
    answer = not_modified(request, etag, last_modified)
    if answer is not None:
        return answer
    key = "picture:" + hashlib.sha256(etag.encode()).hexdigest()
    png = cache.get(key)
    if png is None:
        png = pdf_to_png(pdf_of())
        cache.set(key, png, PICTURE_SECONDS)
    return set_validators(HttpResponse(png, content_type="image/png"), etag, last_modified)
