import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scoring.engines.guandan.play import PRESETS, GuandanError, get_ruleset, replay, state_to_dict


class Command(BaseCommand):
    help = (
        "Replay a JSON list of Guandan events (the format of guandan-vectors.json) and print "
        'the state as one JSON object, or {"error": CODE, "event_index": I} with exit status 1.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--ruleset", required=True, choices=sorted(PRESETS))
        parser.add_argument("file", help="JSON file with a list of events, or - for stdin")

    def handle(self, *args, ruleset: str, file: str, **options):
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror}") from exc
        try:
            events = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CommandError(f"{file} is not JSON: {exc}") from exc
        if not isinstance(events, list):
            raise CommandError(f"{file} must hold a JSON list of events")
        rules = get_ruleset(ruleset)
        try:
            state = replay(rules, events)
        except GuandanError as err:
            self.stdout.write(json.dumps(err.as_dict(), ensure_ascii=False))
            sys.exit(1)
        self.stdout.write(json.dumps(state_to_dict(state, rules), ensure_ascii=False))
