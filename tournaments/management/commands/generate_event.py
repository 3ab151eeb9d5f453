from django.core.management.base import BaseCommand, CommandError

from tournaments.draw import make as draw_make
from tournaments.draw import selectors as draw_selectors
from tournaments.draw.rules.common import DrawError
from tournaments.ops import synthetic


class Command(BaseCommand):
    help = (
        "Create an event of N synthetic guandan teams or pairs (and the tournament if needed), "
        "draw it, and with --play play every match to the end through the result services."
    )

    def add_arguments(self, parser):
        parser.add_argument("tournament")
        parser.add_argument("event")
        parser.add_argument("--entries", type=int, required=True)
        parser.add_argument(
            "--kind",
            choices=synthetic.KINDS,
            default="teams",
            help="teams: 掼蛋团体 (3 pairs a team, a tie three tables); "
            "pairs: 掼蛋双人 (an entry is a pair, a match one table)",
        )
        parser.add_argument("--format", choices=["knockout", "groups", "swiss"], default="knockout")
        parser.add_argument(
            "--qualifiers",
            type=int,
            default=None,
            help="with --format swiss: the Swiss top K go on to a knockout seeded by rank",
        )
        parser.add_argument(
            "--rounds",
            type=int,
            default=None,
            help="with --format swiss: the Swiss rounds (default ⌈log2 N⌉ + 1, at least 3)",
        )
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--play", action="store_true")

    def handle(
        self, *args, tournament, event, entries, kind, format, rounds, seed, play, qualifiers, **o
    ):
        if entries < 2:
            raise CommandError("--entries must be at least 2")
        if qualifiers is not None and not 2 <= qualifiers < entries:
            raise CommandError("--qualifiers must be at least 2 and fewer than --entries")
        if qualifiers is not None and format == "groups":
            raise CommandError("--qualifiers goes with --format swiss or knockout")
        if rounds is not None and format != "swiss":
            raise CommandError("--rounds goes with --format swiss")
        if rounds is not None and not 1 <= rounds <= entries - 1:
            raise CommandError("--rounds must be at least 1 and fewer than --entries")
        try:
            made = synthetic.create_event(
                tournament_slug=tournament, event_slug=event, entries=entries, seed=seed, kind=kind
            )
            plan = synthetic.plan_for(format, entries, qualifiers, rounds)
            draw = draw_make.draw_event(event=made, plan=plan, seed=seed)
        except (ValueError, DrawError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"{tournament}/{event}: {entries} {kind} drawn ({format}, seed {draw.seed})"
        )
        if play:
            played = synthetic.play_event(made, seed=seed)
            places = ", ".join(
                f"{rank}. {entry.name}" for rank, entry in draw_selectors.placings(made)
            )
            self.stdout.write(f"played {played} matches; placings: {places or '—'}")
