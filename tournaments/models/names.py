"""How the models keep names (issues 17 and 26): stored as typed, less what cannot be seen
(:func:`~guandan_cup.inputs.clean_name`), and compared by their key
(:func:`~guandan_cup.inputs.name_key`: NFKC, invisible code points removed, traditional
forms folded to simplified, case folded).

Each save and each ``clean()`` (the admin's forms call it) cleans the name and sets its key,
however the row is written — a form, the admin, a command, an import.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from guandan_cup.inputs import clean_name, name_key

KEY_LENGTH = 400


def key_of(name: str) -> str:
    return name_key(name)[:KEY_LENGTH]


class KeyedName(models.Model):
    """A row whose ``name`` is a person's or a unit's: ``name_key`` is its identity, the one
    every duplicate check and the one-event rule compare — 張偉 is 张伟, and no zero-width or
    bidi character makes a second 张三丰 of one."""

    # NFKC may spell one character out in up to 18 (U+FDFA): a long key is cut, which can only
    # make two absurdly long names that agree over the first 400 characters one.
    name_key = models.CharField(_("名称比对键"), max_length=KEY_LENGTH, blank=True, db_index=True)

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self.name = clean_name(self.name)
        self.name_key = key_of(self.name)
        fields = kwargs.get("update_fields")
        if fields is not None and "name" in fields:
            kwargs["update_fields"] = {*fields, "name_key"}
        super().save(*args, **kwargs)

    def clean(self):
        super().clean()
        self.name = clean_name(self.name)
        self.name_key = key_of(self.name)


class InvisiblesKeptOut:
    """A row whose ``name`` is made of names already clean (an entry: its unit's, its
    players', joined by the house's full-width brackets): saving it keeps invisible
    characters out."""

    def clean(self):
        super().clean()
        self.name = clean_name(self.name)

    def save(self, *args, **kwargs):
        self.name = clean_name(self.name)
        super().save(*args, **kwargs)
