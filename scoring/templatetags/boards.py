"""``{{ words|say }}``: an engine's words (:class:`scoring.engines.board.Words`) in the
reader's language, names escaped, the bold parts in ``<strong>``."""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from scoring.engines.board import Words

register = template.Library()


def _wrap(name: str | None, text: str) -> str:
    """A bold part is classed by its argument's name (``serving``: the page's colour)."""
    return format_html('<strong class="{}">{}</strong>', name, mark_safe(text)) if name else text


def _translate(text: str) -> str:
    return conditional_escape(gettext(text)) if text else ""


@register.filter
def say(value) -> str:
    """Words worded for the reader (every argument escaped once); anything else as text."""
    if value is None or value == "":
        return ""
    if not isinstance(value, Words):
        return conditional_escape(value)
    escaped = _escape_args(value)
    return mark_safe(escaped.worded(_translate, _wrap))


def _escape_args(value: Words) -> Words:
    args = tuple(
        (name, _escape_args(v) if isinstance(v, Words) else conditional_escape(v))
        for name, v in value.args
    )
    return Words(value.text, args, value.strong)


@register.filter
def named(value) -> str:
    """A stage's, round's or group's stored name (A组, 1/4决赛) in the reader's language."""
    from tournaments.draw.rules.common import name_words

    return say(name_words(str(value))) if value else ""
