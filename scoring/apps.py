from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("计分")

    def ready(self):
        from scoring.receivers import on_tables_placed
        from scoring.services.referees import on_table_referees_set
        from scoring.services.tables import on_pairing_changed
        from tournaments.draw.signals import pairing_changed, table_referees_set, tables_placed

        pairing_changed.connect(on_pairing_changed, dispatch_uid="scoring-tables")
        tables_placed.connect(on_tables_placed, dispatch_uid="scoring-table-numbers")
        table_referees_set.connect(on_table_referees_set, dispatch_uid="scoring-table-referees")
