from django.core.management.base import BaseCommand

from tournaments.models import Entry, Player
from tournaments.ops.demo import load_demo, play_demo


class Command(BaseCommand):
    help = (
        "Load the two seed tournaments (nantong-2014, anhui-2021) with made-up players and their "
        "draws. Idempotent. --with-results also plays every match (guandan, chess, badminton, table tennis) to the end through the "
        "referee services (seeded, repeatable)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--with-results", action="store_true")
        parser.add_argument("--seed", type=int, default=2014)

    def handle(self, *args, with_results: bool, seed: int, **options):
        for tournament in load_demo():
            events = tournament.events.count()
            entries = Entry.objects.filter(event__tournament=tournament).count()
            players = Player.objects.filter(tournament=tournament).count()
            self.stdout.write(
                f"{tournament.slug}: {tournament.name} — {events} events, "
                f"{entries} entries, {players} players"
            )
        if with_results:
            played = play_demo(seed=seed)
            self.stdout.write(f"played {played} ties through the referee services")
