from django.core import checks

from tournaments import checks as tournament_checks


def test_check_warns_with_what_to_install_when_no_cjk_font_is_present(monkeypatch):
    monkeypatch.setattr(tournament_checks, "installed_cjk_fonts", lambda: ())
    [warning] = tournament_checks.check_cjk_font(None)
    assert warning.level == checks.WARNING
    assert warning.id == "tournaments.W001"
    assert "fonts-noto-cjk" in warning.hint


def test_check_is_quiet_when_a_cjk_font_is_present(monkeypatch):
    monkeypatch.setattr(tournament_checks, "installed_cjk_fonts", lambda: ("Noto Sans CJK SC",))
    assert tournament_checks.check_cjk_font(None) == []
