from django.contrib import admin

from tournaments.models import (
    Entry,
    Event,
    LoginLink,
    Official,
    Pair,
    Player,
    Tournament,
    Unit,
    Venue,
)


class VenueInline(admin.TabularInline):
    model = Venue
    extra = 0


class OfficialInline(admin.TabularInline):
    model = Official
    extra = 0
    autocomplete_fields = ["user"]


class EventInline(admin.TabularInline):
    model = Event
    extra = 0
    fields = ["order", "slug", "name", "discipline", "entry_kind", "ruleset", "venue"]
    show_change_link = True


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "starts_on", "status", "organiser_name"]
    list_filter = ["status"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [VenueInline, OfficialInline, EventInline]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "slug",
                    "name",
                    "organiser_name",
                    "status",
                    "one_event_per_person",
                    "confirmation",
                ]
            },
        ),
        (
            "时间与地点",
            {
                "fields": [
                    "starts_on",
                    "start_time",
                    "registration_deadline",
                    "leaders_meeting_at",
                    "leaders_meeting_place",
                ]
            },
        ),
        ("通知", {"fields": ["notice_title", "notice_addressee", "notice_text", "notice_date"]}),
        ("规则", {"fields": ["rules_title", "rules_text"]}),
    ]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["name", "tournament", "discipline", "entry_kind", "ruleset"]
    list_filter = ["tournament", "discipline"]
    search_fields = ["name", "slug"]


@admin.register(Unit)
class UnitAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "tournament"]
    list_filter = ["tournament", "kind"]
    search_fields = ["name"]
    filter_horizontal = ["members", "leaders"]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "gender", "unit", "tournament"]
    list_filter = ["tournament", "gender"]
    search_fields = ["name", "unit__name"]
    list_select_related = ["unit", "tournament"]


class PairInline(admin.TabularInline):
    model = Pair
    extra = 0
    autocomplete_fields = ["first", "second"]


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["name", "event", "unit", "status", "on_site", "participation_award_only"]
    list_filter = ["event__tournament", "event", "status", "on_site"]
    search_fields = ["name", "unit__name"]
    list_select_related = ["event__tournament", "unit"]
    autocomplete_fields = ["player"]
    inlines = [PairInline]


@admin.register(LoginLink)
class LoginLinkAdmin(admin.ModelAdmin):
    """Read-only: links are made on the referee pages; the token itself is never stored."""

    list_display = ["official", "created_by", "created_at", "expires_at", "used_at", "revoked_at"]
    list_filter = ["official__tournament"]
    exclude = ["token_hash"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
