from django.apps import AppConfig


class GuandanCupConfig(AppConfig):
    name = "guandan_cup"
    verbose_name = "掼蛋杯"

    def ready(self) -> None:
        from guandan_cup import checks  # noqa: F401  (registers the secret-key check)
