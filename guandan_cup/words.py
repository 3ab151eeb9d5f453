"""Words (:class:`scoring.engines.board.Words`) as plain text in the reader's language, for
what is not a template: a model's label, a JSON value, a PDF's context. Pages use
``{{ words|say }}``, which also escapes and bolds."""

from __future__ import annotations

from django.utils.translation import gettext

from scoring.engines.board import Words


def plain(value: Words | str | None) -> str:
    """``value`` worded by the active language; a string (a name people typed) as it is."""
    if value is None:
        return ""
    if isinstance(value, Words):
        return value.worded(lambda text: gettext(text) if text else "")
    return str(value)
