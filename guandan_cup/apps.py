from django.apps import AppConfig


class GuandanCupConfig(AppConfig):
    name = "guandan_cup"
    verbose_name = "掼蛋杯"

    def ready(self) -> None:
        from django.utils.translation import gettext

        from guandan_cup import checks  # noqa: F401  (registers the secret-key check)
        from guandan_cup.errors import set_translator

        set_translator(gettext)
