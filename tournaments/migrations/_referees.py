"""The official a referee's login maps to, for the migrations moving Match.referee and
TableMatch.referee from User to Official (tournaments 0009, scoring 0003)."""

ROLE_ORDER = ["referee", "chief_referee", "arbitration", "arbitration_leader", "organiser"]


def official_for(Official, tournament_id, user, cache):
    key = (tournament_id, user.pk)
    if key not in cache:
        held = list(Official.objects.filter(tournament_id=tournament_id, user=user))
        held.sort(key=lambda o: ROLE_ORDER.index(o.role) if o.role in ROLE_ORDER else 99)
        if held:
            cache[key] = held[0]
        else:
            name = (user.get_full_name() if hasattr(user, "get_full_name") else "") or (
                f"{user.last_name}{user.first_name}".strip() or user.username
            )
            official, _ = Official.objects.get_or_create(
                tournament_id=tournament_id, name=name[:50], role="referee",
                defaults={"user": user},
            )
            cache[key] = official
    return cache[key]
