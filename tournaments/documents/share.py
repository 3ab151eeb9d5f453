"""What a shared link of a public page shows in a chat (Open Graph and Twitter card tags):
the page's title, a short line in the reader's language and the picture of the page's
document. ``share_tags`` fills ``share`` for templates/base.html; nothing else writes them."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import get_language, gettext

from tournaments.documents.picture import PICTURE_WIDTH
from tournaments.models import Event, Tournament

# A page and the picture its link shows: the tournament's own pages show the results
# announcement (every event's places and the units' standings, as far as they are known).
PAGES = {
    "home": "documents:results-png",
    "timeline": "documents:results-png",
    "standings": "documents:standings-png",
    "bracket": "documents:bracket-png",
}


def share_tags(request, tournament: Tournament, page: str, event: Event | None = None) -> dict:
    """``share`` for base.html: absolute addresses built from the request (a link pasted
    into a chat is fetched from elsewhere), the words in the reader's language."""
    args = [tournament.slug] + ([event.slug] if event is not None else [])
    titles = {
        "home": tournament.name,
        "timeline": f"{gettext('全天赛程')} · {tournament.name}",
        "standings": f"{gettext('团体总分')} · {tournament.name}",
        "bracket": f"{event.name if event else ''} · {gettext('对阵')} · {tournament.name}",
    }
    line = [tournament.name, *([event.name] if event is not None else [])]
    line.append(str(tournament.get_status_display()))
    return {
        "type": "website",
        "title": titles[page],
        "description": " · ".join(line),
        "url": request.build_absolute_uri(request.path),
        "image": request.build_absolute_uri(reverse(PAGES[page], args=args)),
        "image_width": PICTURE_WIDTH,
        "locale": "en_US" if get_language() == "en" else "zh_CN",
    }
