from django.core.management.base import BaseCommand

from tournaments.demo import load_demo
from tournaments.models import Entry, Player


class Command(BaseCommand):
    help = (
        "Load the two seed tournaments (nantong-2014, anhui-2021) with made-up players. Idempotent."
    )

    def handle(self, *args, **options):
        for tournament in load_demo():
            events = tournament.events.count()
            entries = Entry.objects.filter(event__tournament=tournament).count()
            players = Player.objects.filter(tournament=tournament).count()
            self.stdout.write(
                f"{tournament.slug}: {tournament.name} — {events} events, "
                f"{entries} entries, {players} players"
            )
