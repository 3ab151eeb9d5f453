"""System checks of the tournaments app: a CJK font for the Chinese PDFs."""

from django.core import checks

from tournaments.documents.pdf import CJK_FONT_HINT, installed_cjk_fonts


@checks.register()
def check_cjk_font(app_configs, **kwargs):
    if installed_cjk_fonts():
        return []
    return [
        checks.Warning(
            "No Chinese (CJK) font is installed: every Chinese character in the PDFs "
            "(notice, draw sheet, score sheets, results) would print as a box.",
            hint=f"Install one: {CJK_FONT_HINT}",
            id="tournaments.W001",
        )
    ]
