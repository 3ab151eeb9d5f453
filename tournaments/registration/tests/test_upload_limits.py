"""Excel uploads are limited in size and kind: only .xlsx, no macros, no zip bombs, no
oversized sheets — each refused with a clear message, on the page and the command line,
before openpyxl unpacks anything and with nothing saved."""

import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from openpyxl import Workbook

from tournaments.models import Entry, Event, Unit
from tournaments.registration import spreadsheets
from tournaments.registration.spreadsheets import (
    COLUMNS,
    MAX_COLUMNS,
    MAX_MEMBERS,
    MAX_UNPACKED_BYTES,
    check_filename,
    import_workbook,
)

HEADERS = list(COLUMNS[Event.EntryKind.SINGLE])  # 单位, 姓名, 性别, 现场报名
MACRO = "文件含有宏"
TOO_BIG = "文件解压后太大"


@pytest.fixture
def chess(make_tournament):
    tournament = make_tournament()
    Unit.objects.create(tournament=tournament, name="体育", kind=Unit.Kind.UNION_GROUP)
    return Event.objects.create(
        tournament=tournament, slug="chess", name="象棋", discipline=Event.Discipline.XIANGQI
    )


def xlsx(rows=None) -> bytes:
    book = Workbook()
    for row in rows or [HEADERS, ["体育", "张三", "男", ""]]:
        book.active.append(list(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def rezip(data: bytes, *, add=(), replace=None) -> bytes:
    """The workbook ``data`` with members added or their contents replaced."""
    replace = replace or {}
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            body = source.read(info)
            if info.filename in replace:
                body = replace[info.filename](body)
            target.writestr(info.filename, body)
        for name, body in add:
            target.writestr(name, body)
    return out.getvalue()


def problems(event, data) -> list[str]:
    result = import_workbook(event=event, data=data)
    if result.problems:
        assert not result.entries and not Entry.objects.filter(event=event).exists()
    return [str(p) for p in result.problems]


def test_a_good_file_still_imports(chess):
    assert problems(chess, xlsx()) == []
    assert Entry.objects.filter(event=chess).count() == 1


# --------------------------------------------------------------------------- macros


def test_a_workbook_with_a_vba_project_is_refused(chess):
    data = rezip(xlsx(), add=[("xl/vbaProject.bin", b"\xd0\xcf\x11\xe0 macro")])
    assert any(MACRO in p for p in problems(chess, data))
    assert not Entry.objects.exists()


def test_a_macro_enabled_workbook_renamed_to_xlsx_is_refused(chess):
    def macro_enabled(body: bytes) -> bytes:
        return body.replace(
            b"spreadsheetml.sheet.main+xml", b"ms-excel.sheet.macroEnabled.main+xml"
        )

    data = rezip(xlsx(), replace={"[Content_Types].xml": macro_enabled})
    assert any(MACRO in p for p in problems(chess, data))


def test_an_excel_4_macro_sheet_is_refused(chess):
    data = rezip(xlsx(), add=[("xl/macrosheets/sheet1.xml", b"<xm:macrosheet/>")])
    assert any(MACRO in p for p in problems(chess, data))


# --------------------------------------------------------------------------- zip bombs


def test_a_member_that_unpacks_more_than_100_times_its_size_is_refused(chess):
    # 3 MB of zeros packs into a few KB: a zip bomb in miniature.
    data = rezip(xlsx(), add=[("xl/media/image1.png", b"\0" * (3 * 1024 * 1024))])
    assert len(data) < 100_000
    assert problems(chess, data) == [TOO_BIG + "，无法导入；请只保留报名表。"]


def test_members_that_unpack_to_more_than_50_mb_in_all_are_refused(chess):
    # Each member alone is under the ratio check's threshold, together they are too big.
    chunk = bytes(range(256)) * 4096  # 1 MB that packs only a little
    count = MAX_UNPACKED_BYTES // len(chunk) + 1
    members = [(f"xl/media/image{n}.bin", chunk) for n in range(count)]
    with pytest.MonkeyPatch.context() as patch:
        # Keep the file under the 5 MB upload limit without making 50 MB of noise.
        patch.setattr(spreadsheets, "MAX_FILE_BYTES", 200 * 1024 * 1024)
        data = rezip(xlsx(), add=members)
        assert any(TOO_BIG in p for p in problems(chess, data))


def test_a_zip_with_too_many_members_is_refused(chess):
    data = rezip(xlsx(), add=[(f"xl/x/{n}.xml", b"<x/>") for n in range(MAX_MEMBERS)])
    assert any("部件" in p for p in problems(chess, data))


def test_openpyxl_never_opens_a_refused_file(chess, monkeypatch):
    def must_not_load(*args, **kwargs):
        raise AssertionError("openpyxl opened a file that should have been refused")

    monkeypatch.setattr(spreadsheets, "load_workbook", must_not_load)
    bomb = rezip(xlsx(), add=[("xl/media/image1.png", b"\0" * (3 * 1024 * 1024))])
    macro = rezip(xlsx(), add=[("xl/vbaProject.bin", b"x")])
    for data in (bomb, macro):
        assert problems(chess, data)


# --------------------------------------------------------------------------- oversized sheets


def test_a_sheet_with_data_beyond_50_columns_is_refused(chess):
    wide = ["体育", "张三", "男", ""] + [""] * (MAX_COLUMNS - 4) + ["多余"]
    assert problems(chess, xlsx([HEADERS, wide])) == [
        "第2行：表格超过50列，无法导入；请只保留报名表的各列。"
    ]


def test_a_sheet_that_claims_to_be_huge_is_read_only_as_far_as_its_data(chess):
    """A sheet's declared size (<dimension>) is not trusted: rows are built only up to
    the column limit, so a tiny file claiming A1:XFD1048576 imports quickly."""

    def claim_everything(body: bytes) -> bytes:
        start = body.index(b"<dimension ref=")
        end = body.index(b"/>", start)
        return body[:start] + b'<dimension ref="A1:XFD1048576"' + body[end:]

    data = rezip(xlsx(), replace={"xl/worksheets/sheet1.xml": claim_everything})
    assert problems(chess, data) == []
    assert Entry.objects.filter(event=chess).count() == 1


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("报名表.xlsx", None),
        ("报名表.XLSX", None),
        ("报名表.xlsm", MACRO),
        ("报名表.xls", "旧版Excel文件"),
        ("报名表.csv", "只能导入Excel工作簿（.xlsx）"),
        ("报名表", "只能导入Excel工作簿（.xlsx）"),
    ],
)
def test_only_xlsx_names_are_accepted(name, expected):
    problem = check_filename(name)
    if expected is None:
        assert problem is None
    else:
        assert expected in str(problem)


@pytest.fixture
def organiser_client(client, chess):
    client.force_login(get_user_model().objects.create_superuser("root"))
    return client


def upload(client, event, name, data, **extra):
    url = reverse("manage:entries-import", args=[event.tournament.slug, event.slug])
    return client.post(url, {"file": SimpleUploadedFile(name, data)}, **extra)


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("报名表.csv", b"unit,name\n", "只能导入Excel工作簿（.xlsx）"),
        ("报名表.xlsm", xlsx(), MACRO),
        ("报名表.xlsx", rezip(xlsx(), add=[("xl/vbaProject.bin", b"x")]), MACRO),
        (
            "报名表.xlsx",
            rezip(xlsx(), add=[("xl/media/a.png", b"\0" * (3 * 1024 * 1024))]),
            TOO_BIG,
        ),
        ("报名表.xlsx", b"PK\x03\x04 not really a zip", "这不是Excel文件"),
    ],
)
def test_the_import_page_refuses_with_the_reason_and_keeps_nothing(
    organiser_client, chess, name, data, expected
):
    response = upload(organiser_client, chess, name, data)
    assert response.status_code == 422
    assert expected in response.content.decode()
    assert f"import:{chess.pk}" not in organiser_client.session
    assert not Entry.objects.exists()


def test_an_upload_over_the_request_limit_is_refused_before_it_is_read(
    organiser_client, chess, settings
):
    settings.MAX_REQUEST_BYTES = 50_000
    response = upload(organiser_client, chess, "报名表.xlsx", b"PK" + b"\0" * 60_000)
    assert response.status_code == 413
    assert "文件太大" in response.content.decode()


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("form.csv", b"unit,name\n", "只能导入Excel工作簿（.xlsx）"),
        ("form.xlsm", xlsx(), MACRO),
        ("form.xlsx", rezip(xlsx(), add=[("xl/vbaProject.bin", b"x")]), MACRO),
    ],
)
def test_the_import_command_refuses_with_the_reason(chess, tmp_path, name, data, expected):
    path = tmp_path / name
    path.write_bytes(data)
    err = io.StringIO()
    with pytest.raises((CommandError, SystemExit)) as caught:
        call_command("import_entries", chess.tournament.slug, chess.slug, str(path), stderr=err)
    assert expected in str(caught.value) + err.getvalue()
    assert not Entry.objects.exists()
