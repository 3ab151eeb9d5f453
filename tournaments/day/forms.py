"""The 全天赛程 page's forms: the day's hours and breaks, each event's match length, rest and
halls, and each official's hours. All of them are checked before any is saved."""

from __future__ import annotations

from django import forms
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournaments.day.read import (
    ON_DUTY_ROLES,
    match_minutes,
    parse_breaks,
    parse_places,
    rest_minutes,
)
from tournaments.manage.forms import bounded
from tournaments.models import DayPlan, EventHall, Official


class DayForm(forms.ModelForm):
    class Meta:
        model = DayPlan
        fields = ["starts_at", "ends_at", "breaks", "changeover_minutes"]
        widgets = {
            "starts_at": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "ends_at": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["breaks"].help_text = gettext_lazy("如 12:00-13:30；几段用逗号隔开；可留空")
        self.fields["changeover_minutes"] = bounded(
            self.fields["changeover_minutes"],
            low=0,
            high=120,
            message=_("换场时间须是0到120之间的整数（分钟）。"),
        )

    def clean_breaks(self):
        text = self.cleaned_data["breaks"]
        try:
            parse_breaks(text)
        except ValueError as exc:
            raise forms.ValidationError(
                _("休息时段“%(part)s”无法识别，请写成 12:00-13:30。") % {"part": exc}
            ) from None
        return text

    def clean(self):
        data = super().clean()
        start, end = data.get("starts_at"), data.get("ends_at")
        if start and end and start >= end:
            self.add_error("ends_at", _("当天结束须晚于开始。"))
        return data


class EventDayForm(forms.Form):
    """One event: its match length and rest, and which places of each hall it may use."""

    minutes = forms.IntegerField(min_value=5, max_value=600)
    rest = forms.IntegerField(min_value=0, max_value=240)

    def __init__(self, *args, event, venues, **kwargs):
        super().__init__(*args, prefix=f"event-{event.pk}", **kwargs)
        self.event, self.venues = event, venues
        uses = {u.venue_id: u for u in event.halls.all()}
        self.initial.setdefault("minutes", match_minutes(event))
        self.initial.setdefault("rest", rest_minutes(event))
        message = _("每场时长须是5到600之间的整数（分钟）。")
        self.fields["minutes"].error_messages.update(
            {"min_value": message, "max_value": message, "invalid": message, "required": message}
        )
        message = _("休息时间须是0到240之间的整数（分钟）。")
        self.fields["rest"].error_messages.update(
            {"min_value": message, "max_value": message, "invalid": message, "required": message}
        )
        for venue in venues:
            name = f"hall-{venue.pk}"
            self.fields[name] = forms.CharField(required=False, max_length=200, label=venue.name)
            if venue.pk in uses:
                self.initial.setdefault(name, uses[venue.pk].places or _("全部"))
            elif not uses and venue.pk == event.venue_id:
                self.initial.setdefault(name, _("全部"))

    def hall_fields(self):
        return [(venue, self[f"hall-{venue.pk}"]) for venue in self.venues]

    def clean(self):
        data = super().clean()
        self.places = {}
        for venue in self.venues:
            text = (data.get(f"hall-{venue.pk}") or "").strip()
            if not text:
                continue
            if text in (_("全部"), "全部", "all"):
                self.places[venue.pk] = ""
                continue
            try:
                parse_places(text, venue.tables)
            except ValueError as exc:
                self.add_error(
                    f"hall-{venue.pk}",
                    _("“%(part)s”不是%(venue)s的桌号（1到%(n)s，如 1-4, 7）。")
                    % {"part": exc, "venue": venue.name, "n": venue.tables},
                )
                continue
            self.places[venue.pk] = text
        return data

    def save(self) -> None:
        event = self.event
        event.match_minutes = self.cleaned_data["minutes"]
        event.rest_minutes = self.cleaned_data["rest"]
        event.save(update_fields=["match_minutes", "rest_minutes"])
        EventHall.objects.filter(event=event).exclude(venue_id__in=self.places).delete()
        for venue_id, places in self.places.items():
            EventHall.objects.update_or_create(
                event=event, venue_id=venue_id, defaults={"places": places}
            )


class OfficialDayForm(forms.ModelForm):
    class Meta:
        model = Official
        fields = ["on_duty", "duty_from", "duty_until"]
        widgets = {
            "duty_from": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "duty_until": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, prefix=f"official-{kwargs['instance'].pk}", **kwargs)

    def clean(self):
        data = super().clean()
        start, end = data.get("duty_from"), data.get("duty_until")
        if start and end and start >= end:
            self.add_error("duty_until", _("离场时间须晚于到场时间。"))
        return data


class DaySettings:
    """Every form of the page together: valid only when all are, saved in one transaction."""

    def __init__(self, tournament, data=None):
        from tournaments.day.read import settings_of

        venues = list(tournament.venues.all())
        self.day = DayForm(data, instance=settings_of(tournament), prefix="day")
        self.events = [
            EventDayForm(data, event=e, venues=venues)
            for e in tournament.events.prefetch_related("halls").order_by("order", "pk")
        ]
        officials = Official.objects.filter(tournament=tournament, role__in=ON_DUTY_ROLES)
        self.officials = [
            OfficialDayForm(data, instance=o) for o in officials.order_by("role", "pk")
        ]
        self.venues = venues

    def forms(self):
        return [self.day, *self.events, *self.officials]

    def is_valid(self) -> bool:
        return all([f.is_valid() for f in self.forms()])

    @transaction.atomic
    def save(self) -> None:
        for form in self.forms():
            form.save()
