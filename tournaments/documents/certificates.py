"""The certificates' (奖状) words: the app's own in the reader's language, the organiser's
as they typed them."""

from __future__ import annotations

from contextlib import nullcontext

from django.utils import translation
from django.utils.translation import gettext

from guandan_cup.words import in_brackets
from tournaments.models import Event, Tournament
from tournaments.models.core import CERTIFICATE_TEXT, CERTIFICATE_TITLE


def certificate_title(tournament: Tournament) -> str:
    """The certificates' title: the app's own (荣誉证书) in the reader's language, the
    organiser's as they typed it."""
    title = tournament.certificate_title
    return gettext(title) if title == CERTIFICATE_TITLE else title


def certificate_text(tournament: Tournament, event: Event, row: dict) -> list[str]:
    """The certificate's lines: the app's own wording in the reader's language; a wording
    the organiser typed stays theirs, filled in as it was written (in Chinese: the prize,
    the unit's brackets)."""
    typed = tournament.certificate_text != CERTIFICATE_TEXT
    with translation.override("zh-hans") if typed else nullcontext():
        entry = row["entry"]
        # A team is its unit; a pair or a player is named with their unit.
        name = (
            entry.name
            if entry.name == entry.unit.name
            else entry.name + in_brackets(entry.unit.name)
        )
        wording = tournament.certificate_text if typed else gettext(CERTIFICATE_TEXT)
        text = wording.format(
            name=name,
            unit=entry.unit.name,
            tournament=tournament.name,
            event=event.name,
            prize=gettext(row["prize"]),
            rank=row["rank"] or "",
        )
    return [line for line in text.splitlines() if line.strip()]
