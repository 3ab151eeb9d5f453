"""What may pass through a workbook: the limits an upload must pass before openpyxl reads it,
and inert text in every workbook the app writes.

In: a registration form is a few dozen KB with one or two sheets; an .xlsx is a zip, so its
directory is checked first (size, number of parts, compression ratio, macros). Every refusal
is a :class:`~tournaments.registration.services.Problem` in plain Chinese, never an exception.

Out: :func:`make_inert` is the one function that neutralises text cells (a unit named
``=HYPERLINK(…)`` is a name, not a formula), run over every sheet of a workbook just before it
is saved.
"""

from __future__ import annotations

import io
import zipfile
import zlib

from django.utils.translation import gettext as _

from tournaments.registration.services import Problem

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_UNPACKED_BYTES = 50 * 1024 * 1024  # all members together, as the zip declares them
MAX_MEMBERS = 200  # files inside the zip (a sheet, its styles, strings … are one each)
MAX_RATIO = 100  # unpacked / packed size of one member over 1 MB (zip bombs)
RATIO_CHECKED_FROM = 1024 * 1024
MAX_ROWS = 5000
MAX_COLUMNS = 50  # with data; also bounds how wide a row openpyxl builds for us
HEADER_SEARCH_ROWS = 50  # the header row must be among a sheet's first rows
XLSX_SUFFIX = ".xlsx"
MACRO_SUFFIXES = (".xlsm", ".xltm", ".xlam", ".xlsb")
# A text beginning with one of these is a formula, or becomes one, in Excel, LibreOffice or a
# CSV saved from the sheet: "=…", "+1", "-2+3", "@SUM(A1)", a tab or a return before "=".
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def make_inert(book) -> None:
    """Neutralise every text cell of every sheet of ``book`` that a spreadsheet could run:
    stored as a string, never a formula, and quote-prefixed (what Excel records when a text
    is typed after an apostrophe, so editing the cell keeps it text). The text itself is
    unchanged, so an import reads back exactly what was written ("-2+3" stays "-2+3")."""
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                value = cell.value
                if isinstance(value, str) and value.startswith(FORMULA_STARTS):
                    cell.data_type = "s"
                    cell.quotePrefix = True


def read_upload(data) -> tuple[bytes | None, Problem | None]:
    """The bytes of an upload (bytes or a file), at most :data:`MAX_FILE_BYTES` of them."""
    too_big = Problem(
        "",
        _("文件太大（超过%(mb)sMB）；请删去多余的工作表或图片，或分成几个文件导入。")
        % {"mb": MAX_FILE_BYTES // (1024 * 1024)},
    )
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
    else:
        size = getattr(data, "size", None)
        if isinstance(size, int) and size > MAX_FILE_BYTES:
            return None, too_big
        try:
            if hasattr(data, "seek"):
                data.seek(0)
            raw = data.read(MAX_FILE_BYTES + 1)
        except (OSError, ValueError) as exc:
            return None, Problem("", _("无法读取文件：%(error)s") % {"error": exc})
        if isinstance(raw, str):
            return None, Problem("", _("无法读取文件：请以二进制方式打开（.xlsx）。"))
    if len(raw) > MAX_FILE_BYTES:
        return None, too_big
    return raw, None


def archive_problem(raw: bytes) -> Problem | None:
    """Why these bytes are not an .xlsx openpyxl may open (empty, .xls, not a zip, too many
    parts, a zip bomb, macros), or None."""
    if not raw:
        return Problem("", _("文件是空的。"))
    if raw.startswith(b"\xd0\xcf\x11\xe0"):
        return Problem(
            "",
            _("这是旧版Excel文件（.xls）；请在Excel中“另存为”Excel工作簿（.xlsx）后再导入。"),
        )
    not_xlsx = Problem("", _("这不是Excel文件（.xlsx）；请使用本项目下载的报名表模板。"))
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            infos = archive.infolist()
            members = len(infos)
            names = {info.filename for info in infos}
            unpacked = sum(info.file_size for info in infos)
            bomb = any(
                info.file_size > RATIO_CHECKED_FROM
                and info.file_size > MAX_RATIO * max(info.compress_size, 1)
                for info in infos
            )
            content_types = b""
            if "[Content_Types].xml" in names and members <= MAX_MEMBERS and not bomb:
                info = archive.getinfo("[Content_Types].xml")
                if info.file_size <= RATIO_CHECKED_FROM:
                    content_types = archive.read(info)
    except (
        zipfile.BadZipFile,
        zlib.error,
        OSError,
        ValueError,
        EOFError,
        RuntimeError,
        NotImplementedError,
    ):
        return not_xlsx
    if "[Content_Types].xml" not in names or not any(n.startswith("xl/") for n in names):
        return not_xlsx
    if members > MAX_MEMBERS:
        return Problem(
            "",
            _("文件内部含有%(n)s个以上部件，不像报名表，无法导入；请使用本项目下载的报名表模板。")
            % {"n": MAX_MEMBERS},
        )
    if unpacked > MAX_UNPACKED_BYTES or bomb:
        return Problem("", _("文件解压后太大，无法导入；请只保留报名表。"))
    lowered = {n.lower() for n in names}
    if (
        any(n.endswith("vbaproject.bin") or n.startswith("xl/macrosheets/") for n in lowered)
        or b"macroenabled" in content_types.lower()
    ):
        return _macro_problem()
    return None


def _macro_problem() -> Problem:
    return Problem(
        "",
        _(
            "文件含有宏（.xlsm），为安全起见不能导入；请在Excel中“另存为”Excel工作簿（.xlsx）后再导入。"
        ),
    )


def check_filename(name: str) -> Problem | None:
    """The upload's name must end in .xlsx: a clear word for .xls, .xlsm, .csv and the rest
    before the content is looked at (which is checked anyway: names can lie)."""
    lowered = (name or "").strip().lower()
    if lowered.endswith(XLSX_SUFFIX):
        return None
    if lowered.endswith(MACRO_SUFFIXES):
        return _macro_problem()
    if lowered.endswith(".xls"):
        return Problem(
            "",
            _("这是旧版Excel文件（.xls）；请在Excel中“另存为”Excel工作簿（.xlsx）后再导入。"),
        )
    return Problem("", _("只能导入Excel工作簿（.xlsx）；请使用本项目下载的报名表模板。"))
