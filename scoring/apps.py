from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("计分")

    def ready(self):
        from scoring.services import on_pairing_changed
        from tournaments.draw.signals import pairing_changed

        pairing_changed.connect(on_pairing_changed, dispatch_uid="scoring-tables")
