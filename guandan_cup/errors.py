"""The one base of the errors people read: input they can put right, refused with a stable
``code`` (for programs and tests) and a ``message`` (for people, in their language). A page
shows such an error as a message; any other exception is a bug and is never shown to users
as one (it is logged and answered 500). Pure Python, no Django, so the pure rules may raise
them too; the scoring engines keep a base of their own (``EngineError``)."""

from __future__ import annotations


class UserError(Exception):
    """Input a person can fix: ``code`` is stable, ``message`` says what to do."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"
