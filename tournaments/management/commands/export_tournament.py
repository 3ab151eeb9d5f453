import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Tournament
from tournaments.ops.backup import BackupError, dumps, export_data


class Command(BaseCommand):
    help = (
        "Write a whole tournament (its events, entries, draws, results, every recorded table "
        "event, the audit log and the usernames it names) to a JSON backup file that "
        "import_tournament reads back. FILE '-' writes to standard output."
    )

    def add_arguments(self, parser):
        parser.add_argument("tournament", help="the tournament's slug, e.g. nantong-2014")
        parser.add_argument("file", help="the .json file to write, or - for standard output")

    def handle(self, *args, tournament: str, file: str, **options):
        found = Tournament.objects.filter(slug=tournament).first()
        if found is None:
            raise CommandError(f"没有标识为“{tournament}”的比赛。")
        try:
            data = export_data(found)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        text = dumps(data)
        if file == "-":
            sys.stdout.write(text)
            return
        path = Path(file)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"无法写入文件“{path}”：{exc.strerror or exc}") from None
        rows = sum(len(records) for records in data["models"].values())
        self.stdout.write(f"已导出“{found.name}”（{rows}行，{len(data['users'])}个账号）到{path}。")
