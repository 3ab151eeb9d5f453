"""The one base of the errors people read: input they can put right, refused with a stable
``code`` (for programs and tests) and a ``message`` (for people, in their language). A page
shows such an error as a message; any other exception is a bug and is never shown to users
as one (it is logged and answered 500). Pure Python, no Django, so the pure rules may raise
them too; the scoring engines keep a base of their own (``EngineError``)."""

from __future__ import annotations

from collections.abc import Callable


def N_(text: str) -> str:
    """Marks a pure rule's message for ``make messages`` (``--keyword=N_``); the message is
    translated when it is read (:attr:`UserError.message`), not here."""
    return text


_translate: Callable[[str], str] = lambda text: text  # noqa: E731  (set by the app: gettext)


def set_translator(translate: Callable[[str], str]) -> None:
    """How messages are put into the reader's language (the app sets Django's gettext)."""
    global _translate
    _translate = translate


class UserError(Exception):
    """Input a person can fix: ``code`` is stable, ``message`` says what to do.

    A service passes a message already in the reader's language; a pure rule passes its
    Chinese message (marked with :func:`N_`) and its arguments (``%(name)s``), and the
    message is worded in the reader's language each time it is read."""

    def __init__(self, code: str, message: str, **args: object):
        super().__init__(message)
        self.code = code
        self.text = message
        self.values = args

    @property
    def message(self) -> str:
        text = _translate(self.text) if self.text else ""
        return text % self.values if self.values else text

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"
