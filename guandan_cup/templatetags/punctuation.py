"""The punctuation a page writes between what it shows, in the reader's language: Chinese
pages use full-width marks (姓名：王芳、李娜；（备注）), English pages their own (": ", ", ",
"; ", " (…)"). A built-in library (settings.TEMPLATES), so every template has it unloaded.

Each mark is a message of its own, translated in ``locale/`` (:mod:`guandan_cup.words`,
where Python code takes them from too)."""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from guandan_cup.words import colon, in_brackets, semicolon, separator, versus

register = template.Library()


register.simple_tag(colon, name="colon")
register.simple_tag(separator, name="sep")
register.simple_tag(semicolon, name="semi")
register.simple_tag(versus, name="vs")


@register.simple_tag(name="lparen")
def lparen() -> str:
    return in_brackets("\0").split("\0")[0]


@register.simple_tag(name="rparen")
def rparen() -> str:
    return in_brackets("\0").split("\0")[1]


@register.filter(name="listed")
def listed(items) -> str:
    """``{{ names|listed }}``: a list joined in the reader's language, each item escaped."""
    return mark_safe(separator().join(conditional_escape(item) for item in items))
