"""How the models keep names: one normalisation for storage, identity and display (issue 17).

Each save and each ``clean()`` (the admin's forms call it) passes the name through
:mod:`guandan_cup.inputs`, however the row is written — a form, the admin, a command, an import.
"""

from guandan_cup.inputs import normalise_name, without_invisibles


class NormalisedName:
    """A row whose ``name`` is a person's or a unit's: kept as
    :func:`~guandan_cup.inputs.normalise_name` gives it, so the name stored is the name
    compared and the name shown — no zero-width or bidi character makes a second 张三丰 of one."""

    def clean(self):
        super().clean()
        self.name = normalise_name(self.name)

    def save(self, *args, **kwargs):
        self.name = normalise_name(self.name)
        super().save(*args, **kwargs)


class InvisiblesKeptOut:
    """A row whose ``name`` is made of names already normalised (an entry: its unit's, its
    players', joined by the house's full-width brackets, which NFKC would fold): saving it only
    keeps invisible characters out (:func:`~guandan_cup.inputs.without_invisibles`)."""

    def clean(self):
        super().clean()
        self.name = without_invisibles(self.name)

    def save(self, *args, **kwargs):
        self.name = without_invisibles(self.name)
        super().save(*args, **kwargs)
