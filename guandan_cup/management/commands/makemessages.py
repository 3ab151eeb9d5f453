"""``makemessages`` that also finds the engines' words: ``words("第%(n)s局", n=2)`` in
``scoring/engines/board.py`` is a message worded when shown (the ``say`` filter), so its
first argument is a message to translate, like ``gettext_noop``'s."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=words", "--keyword=N_"]
