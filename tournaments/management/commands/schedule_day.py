"""``manage.py schedule_day TOURNAMENT [--from HH:MM] [--check]``: plan the whole day as the
全天赛程 page does (exit 0, a one-line summary); ``--check`` changes nothing, prints every
clash of the schedule as it stands naming both matches, and exits 1 when there is one."""

from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from tournaments.day import services
from tournaments.day.read import parse_breaks
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Plan every drawn event of a tournament's day at once, or --check the day as it stands."

    def add_arguments(self, parser):
        parser.add_argument("tournament")
        parser.add_argument("--from", dest="from_time", metavar="HH:MM", default=None)
        parser.add_argument("--check", action="store_true")

    def handle(self, *args, tournament, from_time, check, **options):
        translation.activate("zh-hans")
        found = Tournament.objects.filter(slug=tournament).first()
        if found is None:
            raise CommandError(f"no tournament {tournament!r}")
        if check:
            return self._check(found)
        from_minute = None
        if from_time is not None:
            try:
                ((start, _end),) = parse_breaks(f"{from_time}-23:59")
            except ValueError:
                raise CommandError(f"--from must be HH:MM, got {from_time!r}") from None
            from_minute = start.hour * 60 + start.minute
        proposal = services.propose(found, from_minute=from_minute)
        services.save_plan(found, fingerprint=proposal.fingerprint, from_minute=from_minute)
        plan, read = proposal.plan, proposal.read
        end = read.at(plan.ends).strftime("%H:%M") if plan.ends is not None else "—"
        self.stdout.write(
            f"{found.slug}: {len(plan.bookings)} matches planned in {len(read.halls)} halls, "
            f"{len(plan.duties)} official duties, last match ends {end}; "
            f"{len(plan.late)} after the day's end, {len(plan.unplaced)} not placed, "
            f"{len(plan.unrefereed)} without an official"
        )
        for warning in proposal.warnings:
            self.stdout.write(f"  {warning}")

    def _check(self, tournament):
        day = services.check_day(tournament)
        for clash in day.clashes:
            mark = " (accepted)" if clash not in day.open_clashes else ""
            self.stdout.write(f"{clash.kind}: {services.clash_text(day.read, clash)}{mark}")
        for mid in day.unscheduled:
            self.stdout.write(f"unscheduled: {services.match_text(day.read, mid)}")
        for mid in day.uncovered:
            self.stdout.write(f"no official: {services.match_text(day.read, mid)}")
        self.stdout.write(
            f"{tournament.slug}: {len(day.clashes)} clashes, {len(day.unscheduled)} matches "
            f"without a time or hall, {len(day.uncovered)} without an official"
        )
        if day.clashes:
            raise SystemExit(1)
