import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from tournaments.ops.backup import BackupError, import_data, loads


class Command(BaseCommand):
    help = (
        "Restore a tournament from a backup written by export_tournament, all or nothing "
        "(one transaction). A tournament with the same slug is refused unless --replace. "
        "Accounts named in the file are created without a usable password when missing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the .json backup file, or - for standard input")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="delete the existing tournament with the same slug and restore the file's",
        )

    def handle(self, *args, file: str, replace: bool, **options):
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(
                f"无法读取文件“{file}”：{getattr(exc, 'strerror', None) or exc}"
            ) from None
        try:
            data = loads(text)
            tournament = import_data(data, replace=replace)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        except DatabaseError as exc:  # e.g. text PostgreSQL cannot store: one transaction, so
            raise CommandError(f"导入失败，没有保存任何数据：{exc}") from None
        rows = sum(len(records) for records in data["models"].values())
        self.stdout.write(f"已导入“{tournament.name}”（{tournament.slug}，{rows}行）。")
