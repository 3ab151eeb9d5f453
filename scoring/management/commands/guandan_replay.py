import json
import sys
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from scoring.engines.guandan.play import (
    PRESETS,
    EngineError,
    RuleSet,
    get_ruleset,
    replay,
    state_to_dict,
)
from tournaments.models import Event


def _read_json(path: str):
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{path} is not JSON: {exc}") from exc


def _custom_rules(path: str) -> RuleSet:
    """The rule set of ``path``, checked as an event's custom rule set (自定义规则参数) is:
    by ``Event.clean``, so the command refuses what the event refuses, in its words."""
    config = _read_json(path)
    if not isinstance(config, dict):
        raise CommandError(
            f"{path} must hold a JSON object with the keys of an event's custom rule set "
            "(id, name, promotion, …; see docs/rules.md)"
        )
    event = Event(discipline=Event.Discipline.GUANDAN_PAIRS, ruleset_config=config)
    try:
        event.clean()
    except ValidationError as exc:
        raise CommandError(f"{path}: {' '.join(exc.messages)}") from None
    return event.scorer().rules


class Command(BaseCommand):
    help = (
        "Replay a JSON list of Guandan events (the format of guandan-vectors.json) and print "
        'the state as one JSON object, or {"error": CODE, "event_index": I} with exit status 1.'
    )

    def add_arguments(self, parser):
        rules = parser.add_mutually_exclusive_group(required=True)
        rules.add_argument("--ruleset", choices=sorted(PRESETS), help="a preset rule set")
        rules.add_argument(
            "--ruleset-file",
            metavar="FILE",
            help="a JSON object with the keys of an event's custom rule set, checked as the "
            "event checks it",
        )
        parser.add_argument("file", help="JSON file with a list of events, or - for stdin")

    def handle(self, *args, ruleset: str | None, ruleset_file: str | None, file: str, **options):
        if ruleset_file == "-" and file == "-":
            raise CommandError("only one of FILE and --ruleset-file can be - (stdin)")
        rules = get_ruleset(ruleset) if ruleset else _custom_rules(ruleset_file)
        events = _read_json(file)
        if not isinstance(events, list):
            raise CommandError(f"{file} must hold a JSON list of events")
        try:
            state = replay(rules, events)
        except EngineError as err:
            self.stdout.write(json.dumps(err.as_dict(), ensure_ascii=False))
            sys.exit(1)
        self.stdout.write(json.dumps(state_to_dict(state, rules), ensure_ascii=False))
