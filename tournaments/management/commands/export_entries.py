from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.management.commands.import_entries import find_event
from tournaments.models import Entry
from tournaments.registration.spreadsheets.export import export_workbook


class Command(BaseCommand):
    help = (
        "Export every entry of an event — withdrawn and disqualified ones too, each with its "
        "state (状态) — as an Excel registration form (.xlsx) in the layout of the template, "
        "so it can be edited and imported again (the import takes the registered ones)."
    )

    def add_arguments(self, parser):
        parser.add_argument("tournament", help="the tournament's slug, e.g. anhui-2021")
        parser.add_argument("event", help="the event's slug, e.g. guandan")
        parser.add_argument("file", help="the .xlsx file to write")

    def handle(self, *args, **options):
        event = find_event(options["tournament"], options["event"])
        data = export_workbook(event)
        path = Path(options["file"])
        try:
            path.write_bytes(data)
        except OSError as exc:
            raise CommandError(f"无法写入文件“{path}”：{exc.strerror or exc}") from None
        count = event.entries.count()
        out = count - event.entries.filter(status=Entry.Status.REGISTERED).count()
        states = f"，其中{out}个不是“已报名”状态（见“状态”列）" if out else ""
        self.stdout.write(f"已导出{count}个报名（{event}）到{path}{states}。")
