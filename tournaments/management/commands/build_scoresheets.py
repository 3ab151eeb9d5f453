import os

from django.core.management.base import BaseCommand, CommandError

from tournaments.documents import sheets
from tournaments.models import SheetBuild


class Command(BaseCommand):
    help = (
        "Build the score sheets of a SheetBuild on every core, writing its progress and the "
        "finished PDF to the database (started by the score sheets' page for a big round)."
    )

    def add_arguments(self, parser):
        parser.add_argument("build", type=int)
        parser.add_argument(
            "--nice",
            type=int,
            default=5,
            help="lower this process's priority by N (default 5): the live pages go first",
        )

    def handle(self, *args, build, nice, **options):
        if not SheetBuild.objects.filter(pk=build, state=SheetBuild.State.BUILDING).exists():
            raise CommandError(f"no score sheets build {build} under way")
        if nice:
            os.nice(nice)
        sheets.run(build)
        state = SheetBuild.objects.filter(pk=build).values_list("state", "done", "total").get()
        self.stdout.write("build {}: {} ({}/{} sheets)".format(build, *state))
