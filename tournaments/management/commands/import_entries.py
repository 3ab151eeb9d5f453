import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Event
from tournaments.registration.spreadsheets.imports import import_workbook
from tournaments.registration.spreadsheets.safety import MAX_FILE_BYTES, check_filename


def find_event(tournament_slug: str, event_slug: str) -> Event:
    """The event TOURNAMENT/EVENT, or a CommandError naming what exists."""
    events = Event.objects.select_related("tournament").filter(tournament__slug=tournament_slug)
    try:
        return events.get(slug=event_slug)
    except Event.DoesNotExist:
        slugs = ", ".join(events.order_by("order", "id").values_list("slug", flat=True))
        if not slugs:
            raise CommandError(f"没有标识为“{tournament_slug}”的比赛（或它没有项目）。") from None
        raise CommandError(
            f"比赛“{tournament_slug}”没有标识为“{event_slug}”的项目；可选：{slugs}。"
        ) from None


class Command(BaseCommand):
    help = (
        "Import an Excel registration form (报名表, .xlsx) into an event as the organiser. "
        "Every problem is listed with its row and nothing is saved unless the whole file is "
        "valid (exit status 1 on problems). Rows whose 状态 (an export's state column) is not "
        "已报名 are not imported, and listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("tournament", help="the tournament's slug, e.g. anhui-2021")
        parser.add_argument("event", help="the event's slug, e.g. guandan")
        parser.add_argument("file", help="the .xlsx file")
        parser.add_argument(
            "--dry-run", action="store_true", help="check the file and save nothing"
        )

    def handle(self, *args, **options):
        event = find_event(options["tournament"], options["event"])
        path = Path(options["file"])
        wrong_name = check_filename(path.name)
        if wrong_name is not None:
            raise CommandError(f"{path}：{wrong_name.message}")
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"无法读取文件“{path}”：{exc.strerror or exc}") from None

        result = import_workbook(event=event, data=data, dry_run=options["dry_run"])
        if result.problems:
            for problem in result.problems:
                self.stderr.write(str(problem))
            self.stderr.write(f"共{len(result.problems)}个问题，未导入任何报名。")
            sys.exit(1)
        if options["dry_run"]:
            self.stdout.write(
                f"检查通过：可导入{len(result.forms)}个报名到{event}（--dry-run，未保存）。"
            )
        else:
            self.stdout.write(f"已导入{len(result.entries)}个报名到{event}。")
        if result.left_out:
            self.stdout.write(f"另有{len(result.left_out)}个报名不是“已报名”状态，未导入：")
            for note in result.left_out:
                self.stdout.write(str(note))
