"""Words (:class:`scoring.engines.board.Words`) as plain text in the reader's language, for
what is not a template: a model's label, a JSON value, a PDF's context. Pages use
``{{ words|say }}``, which also escapes and bolds."""

from __future__ import annotations

from django.utils.translation import gettext, pgettext

from scoring.engines.board import Words


def plain(value: Words | str | None) -> str:
    """``value`` worded by the active language; a string (a name people typed) as it is."""
    if value is None:
        return ""
    if isinstance(value, Words):
        return value.worded(lambda text: gettext(text) if text else "")
    return str(value)


# The punctuation between what a page shows, in the reader's language.


def colon() -> str:
    return pgettext("punctuation", "：")


def separator() -> str:
    return pgettext("punctuation", "、")


def semicolon() -> str:
    return pgettext("punctuation", "；")


def versus() -> str:
    return pgettext("punctuation", "——")


def in_brackets(text) -> str:
    return gettext("（%(text)s）") % {"text": text}


def listing(items, sep: str | None = None) -> str:
    """Items as one list in the reader's language (王芳、李娜 / 王芳, 李娜)."""
    return (separator() if sep is None else sep).join(str(item) for item in items)
