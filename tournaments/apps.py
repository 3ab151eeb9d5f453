"""The tournaments app's wiring: its checks, and the blank choice of every drop-down."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

# The blank choice Django offers in every drop-down of a model's field (a ForeignKey's
# ModelChoiceField, a field with choices and blank=True): in the user's language, as the
# rest of the page (Django's own "- Select an option -" has no Chinese yet).
BLANK_CHOICE = _("— 请选择 —")


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("比赛")

    def ready(self) -> None:
        from django.db.models import fields

        from tournaments import checks  # noqa: F401  (registers the CJK font check)

        fields.BLANK_CHOICE_LABEL = BLANK_CHOICE
