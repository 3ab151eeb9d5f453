"""Render a template to PDF bytes with WeasyPrint.

Chinese text needs a CJK font known to fontconfig (Noto Sans/Serif CJK or WenQuanYi);
WeasyPrint embeds the subset it uses, so the PDF reads the same on any computer.
Without one every Chinese character is drawn as a box — `manage.py check` warns then.

WeasyPrint lays a document out on one core. A long document made of independent parts
(a round's 256 score sheets) is rendered in pieces on the idle cores: the parent renders the
HTML of each piece (all database access stays here), forks a worker per other idle core,
each worker turns its HTML into a PDF, and the PDFs are joined page after page.
"""

import contextlib
import hashlib
import io
import logging
import math
import multiprocessing
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from functools import lru_cache

from django.conf import settings
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.cache import patch_vary_headers

CJK_FONT_HINT = "sudo apt-get install fonts-noto-cjk  (or fonts-wqy-microhei)"


@lru_cache(maxsize=1)
def installed_cjk_fonts() -> tuple[str, ...]:
    """The Chinese fonts the PDFs can use: the families that static/css/pdf.css names and
    fontconfig has with Chinese coverage, or () if none/unknown. Any other Chinese-capable
    font (Droid Sans Fallback, say) does not count: the stylesheet never asks for it, so the
    PDFs would not embed it as a CJK font."""
    import re

    css = (settings.BASE_DIR / "static" / "css" / "pdf.css").read_text(encoding="utf-8")
    wanted = {
        family
        for declaration in re.findall(r"font-family:([^;]+);", css)
        for family in re.findall(r'"([^"]+)"', declaration)
    }
    fc_list = shutil.which("fc-list")
    if not fc_list:
        return ()
    try:
        out = subprocess.run(
            [fc_list, ":lang=zh", "family"], capture_output=True, text=True, timeout=20
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    # One line per font; a family may be listed under several names ("WenQuanYi Micro
    # Hei,文泉驿微米黑").
    names = {name.strip() for line in out.splitlines() for name in line.split(",")}
    return tuple(sorted(wanted & names))


logger = logging.getLogger(__name__)

# A piece smaller than this is not worth a process: forking, the fonts embedded once per
# piece and the joining cost about as much as laying out a dozen score sheets.
MIN_ITEMS_PER_PIECE = 12
# Each piece embeds its own subset of the fonts, so more pieces make a bigger file.
MAX_PIECES = 4


def render_pdf(
    template_name: str,
    context: dict,
    *,
    request=None,
    split: str = "",
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> bytes:
    """The template rendered as a PDF. With ``split``, the name of a list in the context
    whose items start a new page each and share nothing (no page counter across them), a
    long list is rendered in pieces and the pieces joined: on the idle cores, this process
    laying out a piece too; or, for a caller that owns its process (a build in the
    background), on ``workers`` forked workers, two pieces each, while this process only
    writes their HTML. ``progress`` is told, about once a second, how many of the items
    are laid out."""
    items = context.get(split) if split else None
    own = not (items and workers and _fork_is_safe())
    if not items:
        pieces = 1
    elif own:
        pieces = piece_count(len(items))
    else:
        pieces = max(1, min(2 * workers, len(items) // MIN_ITEMS_PER_PIECE))
    size = math.ceil(len(items) / pieces) if items else 0
    chunks = [items[i : i + size] for i in range(0, len(items), size)] if items else [[]]

    def html_of(chunk: list) -> str:
        chunked = {**context, split: chunk} if split else context
        return render_to_string(template_name, chunked, request=request)

    _PARENT[0] = os.getpid()
    if len(chunks) == 1:
        with _pages_counted(_Counter(1, progress) if progress else None, 0):
            return write_pdf(html_of(chunks[0]))
    pool = None if own else min(workers, len(chunks))
    return join_pdfs(_write_pdfs(html_of, chunks, workers=pool, progress=progress))


def write_pdf(html: str) -> bytes:
    # Imported here: WeasyPrint loads pango at import time, which pages that never print
    # should not pay for.
    from weasyprint import HTML

    return HTML(string=html, base_url=str(settings.BASE_DIR / "static")).write_pdf()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def cores() -> int:
    """The cores this process may run on: how many pieces a build of its own renders."""
    return _cores()


def _load() -> float:
    """Processes running or waiting for a core, averaged over the last minute."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return math.inf


def _fork_is_safe() -> bool:
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def piece_count(items: int) -> int:
    """How many processes render a list of ``items``: this one, and a worker for each core
    nothing else is using, while each piece gets at least MIN_ITEMS_PER_PIECE. On cores
    already busy a worker only adds work: measured on 2 cores running other jobs, two
    processes took a third more CPU time and longer than one. Always one where forking is
    unsafe (another thread might hold a lock the child would wait for forever, as in the
    threaded development server) or unavailable."""
    if not _fork_is_safe():
        return 1
    idle = max(0, round(_cores() - _load()))  # this process's own core included
    return max(1, min(idle, MAX_PIECES, items // MIN_ITEMS_PER_PIECE))


class _Counter:
    """The pages each piece has laid out, in memory shared with the forked workers (each
    writes its own slot), summed for ``progress`` at most once a second."""

    def __init__(self, pieces: int, progress: Callable[[int], None] | None):
        self.progress = progress
        self.slots = multiprocessing.get_context("fork").Array("l", pieces, lock=False)
        self.finished: dict[int, int] = {}
        self.told = 0.0

    def tell(self, *, now: bool = False) -> None:
        if self.progress is None or (not now and time.monotonic() - self.told < 1):
            return
        self.told = time.monotonic()
        pages = [self.finished.get(i, page) for i, page in enumerate(self.slots)]
        self.progress(sum(pages))


_COUNTER: _Counter | None = None  # a worker's, inherited when it is forked


def _worker_started(counter: _Counter) -> None:
    global _COUNTER
    _COUNTER = counter


class _PageHandler(logging.Handler):
    """WeasyPrint says each page it lays out ("Step 5 - Creating layout - Page 12")."""

    def __init__(self, counter: _Counter, slot: int):
        super().__init__()
        self.counter, self.slot = counter, slot

    def emit(self, record: logging.LogRecord) -> None:
        if "Creating layout - Page" in str(record.msg) and record.args:
            self.counter.slots[self.slot] = int(record.args[0])
            if os.getpid() == _PARENT[0]:
                self.counter.tell()


_PARENT = [os.getpid()]  # the process that reports progress (the workers only count)


@contextlib.contextmanager
def _pages_counted(counter: _Counter | None, slot: int):
    """Count the pages WeasyPrint lays out into ``counter``'s ``slot`` — only where somebody
    asked for progress, and so in a process of the build's own (the logger's level is
    the whole process's)."""
    if counter is None:
        yield
        return
    from weasyprint.logger import PROGRESS_LOGGER

    handler = _PageHandler(counter, slot)
    level, propagate = PROGRESS_LOGGER.level, PROGRESS_LOGGER.propagate
    PROGRESS_LOGGER.setLevel(logging.INFO)
    PROGRESS_LOGGER.propagate = False
    PROGRESS_LOGGER.addHandler(handler)
    try:
        yield
    finally:
        PROGRESS_LOGGER.removeHandler(handler)
        PROGRESS_LOGGER.setLevel(level)
        PROGRESS_LOGGER.propagate = propagate


def _write_pdfs(
    html_of: Callable[[list], str],
    chunks: list[list],
    *,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[bytes]:
    """PDFs of the chunks' HTML in forked workers (they inherit WeasyPrint's loaded fonts
    and never touch the database): without ``workers``, the first chunk in this process
    and a worker for each other; with ``workers``, every chunk in that many workers. The
    HTML is rendered here, the workers' first, so that they start while this process
    renders the rest (what a template makes only when shown, such as the score sheets' QR
    codes, is then made beside their work). If a worker fails, this process renders its
    piece."""
    counter = _Counter(len(chunks), progress) if progress is not None else None
    own = workers is None  # this process lays out the first chunk itself
    with ProcessPoolExecutor(
        max_workers=len(chunks) - 1 if own else workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_started,
        initargs=(counter,),
    ) as pool:
        handed = []
        for slot, chunk in enumerate(chunks[1:] if own else chunks, start=1 if own else 0):
            html = html_of(chunk)
            handed.append((slot, html, _submit(pool, html, slot)))
            if counter is not None:
                counter.tell()
        pdfs = {}
        if own:
            with _pages_counted(counter, 0):
                pdfs[0] = write_pdf(html_of(chunks[0]))
            if counter is not None:
                counter.finished[0] = len(chunks[0])
        for slot, html, future in handed:
            try:
                pdfs[slot] = _result(future, counter)
            except Exception:
                logger.exception("A PDF worker failed; rendering its piece here instead")
                pdfs[slot] = write_pdf(html)
            if counter is not None:
                counter.finished[slot] = len(chunks[slot])
                counter.tell(now=True)
    return [pdfs[slot] for slot in range(len(chunks))]


def _result(future: Future, counter: _Counter | None) -> bytes:
    """A worker's PDF, telling the progress while it is waited for."""
    while counter is not None:
        try:
            return future.result(timeout=1)
        except TimeoutError:
            counter.tell()
    return future.result()


def _submit(pool: ProcessPoolExecutor, html: str, slot: int) -> Future:
    try:
        return pool.submit(_write_piece, html, slot)
    except Exception as error:  # the pool broke: a worker died
        failed = Future()
        failed.set_exception(error)
        return failed


def _write_piece(html: str, slot: int = 0) -> bytes:
    """In a worker: its piece's PDF, its pages counted into its slot when progress is
    asked for (``write_pdf`` looked up there, so a test can make a worker fail)."""
    with _pages_counted(_COUNTER, slot):
        return write_pdf(html)


def join_pdfs(pdfs: list[bytes]) -> bytes:
    """One PDF of the pages of ``pdfs`` in order, with the first one's title and metadata."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    readers = [PdfReader(io.BytesIO(pdf)) for pdf in pdfs]
    for piece, reader in enumerate(readers):
        if piece:
            _retag_font_subsets(reader, piece)
        writer.append(reader)
    if readers[0].metadata:
        writer.add_metadata(dict(readers[0].metadata))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _retag_font_subsets(reader, piece: int) -> None:
    """Give the font subsets of a piece their own tags ("DFCEGX+" in
    "DFCEGX+Noto-Serif-CJK-SC"). WeasyPrint tags a subset after its font only, so every
    piece would give its different subset the same name, which the PDF standard forbids
    and which a printer keeping fonts by name would confuse (missing characters)."""
    from pypdf.generic import NameObject

    def retagged(name: str) -> NameObject:
        tag, plus, font = name.lstrip("/").partition("+")
        if not plus or len(tag) != 6:
            return NameObject(name)
        digest = hashlib.md5(f"{tag}{piece}".encode(), usedforsecurity=False).digest()
        return NameObject("/" + "".join(chr(65 + b % 26) for b in digest[:6]) + "+" + font)

    seen = set()
    for page in reader.pages:
        for ref in page.get("/Resources", {}).get("/Font", {}).values():
            font = ref.get_object()
            if id(font) in seen:
                continue
            seen.add(id(font))
            for part in [font, *(d.get_object() for d in font.get("/DescendantFonts", []))]:
                if "/BaseFont" in part:
                    part[NameObject("/BaseFont")] = retagged(part["/BaseFont"])
                if "/FontDescriptor" in part:
                    descriptor = part["/FontDescriptor"].get_object()
                    descriptor[NameObject("/FontName")] = retagged(descriptor["/FontName"])


def pdf_response(pdf: bytes, filename: str, *, download: bool = False) -> HttpResponse:
    """The PDF, written in the reader's language (the language cookie): a copy in another
    language has a name of its own (results-en.pdf beside results.pdf), and any cache
    between keeps one copy per cookie (``Vary``)."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    if language != settings.LANGUAGE_CODE:
        stem, dot, ext = filename.rpartition(".")
        filename = f"{stem}-{language}{dot}{ext}" if dot else f"{filename}-{language}"
    response = HttpResponse(pdf, content_type="application/pdf")
    disposition = "attachment" if download else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    response["Content-Language"] = language
    patch_vary_headers(response, ("Cookie",))
    return response
