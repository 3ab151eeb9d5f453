"""The forms of a tournament's set-up (tournaments.setup): 新建比赛, 复制往届比赛 and the
venues with their table counts."""

from django import forms
from django.utils.translation import gettext_lazy as _

from guandan_cup.inputs import sensible_year
from tournaments.manage.forms import (
    TournamentForm,
    UniqueNameInTournament,
    bounded,
    deadline_after_start,
    tournament_name,
)
from tournaments.models import Tournament, Venue

# The settings page's fields up to the notice's rules, with the address (slug) after the
# name: the certificate's wording and the standings' points come later, on the settings page.
_SETTINGS = TournamentForm.Meta.fields
NEW_TOURNAMENT_FIELDS = ["name", "slug", *_SETTINGS[1 : _SETTINGS.index("rules_text") + 1]]


def clean_new_slug(value: str) -> str:
    slug = (value or "").strip().lower()
    if Tournament.objects.filter(slug=slug).exists():
        raise forms.ValidationError(
            _("标识“%(slug)s”已被另一场比赛使用，请换一个（例如加上年份）。") % {"slug": slug}
        )
    return slug


SLUG_HELP = _("网址中的比赛标识：小写字母、数字和连字符，例如 nantong-2015")
SLUG_MESSAGE = _("标识只能由小写字母、数字、连字符和下划线组成，例如 nantong-2015。")


class NewTournamentForm(TournamentForm):
    """新建比赛: the notice, its dates and the address of its pages."""

    slug = forms.SlugField(
        label=_("标识"),
        max_length=64,
        help_text=SLUG_HELP,
        error_messages={"invalid": SLUG_MESSAGE},
    )

    # The standings' settings come later, on the settings page; a new tournament has the
    # defaults.
    standings_points = None

    class Meta(TournamentForm.Meta):
        fields = NEW_TOURNAMENT_FIELDS

    def clean_slug(self):
        return clean_new_slug(self.cleaned_data["slug"])


class CopyTournamentForm(forms.Form):
    """复制往届比赛: the new year's address, name and dates; everything else is carried over."""

    slug = forms.SlugField(
        label=_("新比赛标识"),
        max_length=64,
        help_text=SLUG_HELP,
        error_messages={"invalid": SLUG_MESSAGE},
    )
    name = forms.CharField(label=_("新比赛名称"), max_length=200)
    notice_title = forms.CharField(label=_("通知标题"), max_length=300)
    starts_on = forms.DateField(
        label=_("比赛日期"), widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
    )
    start_time = forms.TimeField(
        label=_("开始时间"),
        required=False,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    registration_deadline = forms.DateTimeField(
        label=_("报名截止时间"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    leaders_meeting_at = forms.DateTimeField(
        label=_("领队会议时间"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )

    def clean_slug(self):
        return clean_new_slug(self.cleaned_data["slug"])

    def clean_name(self):
        return tournament_name(self.cleaned_data["name"])

    def clean(self):
        cleaned = super().clean()
        for name in ("starts_on", "registration_deadline", "leaders_meeting_at"):
            value = cleaned.get(name)
            if value and not sensible_year(value):
                self.add_error(name, _("日期须在1900年到2999年之间。"))
        deadline_after_start(self, cleaned)
        return cleaned


class VenueForm(UniqueNameInTournament, forms.ModelForm):
    """A venue (场地) and how many tables (or courts) it has."""

    name_taken = _("已有名为“%(name)s”的场地。")

    # A union's hall holds a few dozen tables; 200 is more than any event needs.
    TABLES = (1, 200)
    ORDER = (0, 999)

    class Meta:
        model = Venue
        fields = ["name", "tables", "order", "by_queue"]

    def __init__(self, *args, tournament: Tournament, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.tournament = tournament
        low, high = self.TABLES
        self.fields["tables"] = bounded(
            self.fields["tables"],
            low=low,
            high=high,
            message=_("桌数须是%(low)s到%(high)s之间的整数。") % {"low": low, "high": high},
        )
        self.fields["tables"].required = True
        self.fields["tables"].initial = None  # the model's 0 is no venue's table count
        self.fields["tables"].help_text = _("掼蛋团体赛每场占三张桌；羽毛球、乒乓球填场地数")
        low, high = self.ORDER
        self.fields["order"] = bounded(
            self.fields["order"],
            low=low,
            high=high,
            message=_("顺序须是%(low)s到%(high)s之间的整数。") % {"low": low, "high": high},
        )
        self.fields["order"].required = False

    def clean_order(self):
        return self.cleaned_data.get("order") or 0
