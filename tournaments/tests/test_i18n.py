def test_chinese_is_the_default_language(client, demo):
    html = client.get("/").content.decode()
    assert '<html lang="zh-CN">' in html
    assert "比赛" in html


def test_the_language_switch_shows_english(client, demo):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/t/nantong-2014/"})
    assert response.status_code == 302
    assert response["Location"] == "/t/nantong-2014/"
    html = client.get("/t/nantong-2014/").content.decode()
    assert '<html lang="en">' in html
    assert "Events" in html
    assert "Print notice (PDF)" in html
    # The notice itself is the organiser's text and stays as written.
    assert "各工会小组：" in html


def test_an_english_browser_still_gets_chinese_until_it_switches(client, demo):
    html = client.get(
        "/t/nantong-2014/", headers={"accept-language": "en-US,en;q=0.9"}
    ).content.decode()
    assert '<html lang="zh-CN">' in html
    assert "比赛项目" in html


def _a_day_not_yet_drawn(make_tournament):
    """Two halls, two events and two groups who have not entered yet."""
    import datetime as dt

    from tournaments.models import Event, Unit, Venue

    tournament = make_tournament(start_time=dt.time(9, 0))
    for name in ("教工活动中心", "体育馆"):
        Venue.objects.create(tournament=tournament, name=name, tables=4)
    for name in ("体育", "行政"):
        Unit.objects.create(tournament=tournament, name=name, kind=Unit.Kind.UNION_GROUP)
    Event.objects.create(
        tournament=tournament,
        name="掼蛋",
        slug="guandan",
        discipline="guandan_pairs",
        entry_kind="pair",
        ruleset="anhui2021",
    )
    Event.objects.create(
        tournament=tournament,
        name="羽毛球",
        slug="badminton",
        discipline="badminton",
        entry_kind="single",
    )
    return tournament


def test_a_list_of_names_is_separated_in_the_readers_language(
    client, make_tournament, django_user_model
):
    """Regression: the dashboard's 还没有报名 and 未抽签 lines and the tournament page's
    比赛开始 joined names with 、 on English pages too (体育、行政)."""
    tournament = _a_day_not_yet_drawn(make_tournament)
    client.force_login(django_user_model.objects.create_superuser("boss", password="x" * 20))
    pages = (f"/t/{tournament.slug}/manage/", f"/t/{tournament.slug}/")
    chinese = [client.get(path).content.decode() for path in pages]
    assert "2个单位还没有报名：体育、行政" in chinese[0]
    assert "未抽签：掼蛋、羽毛球" in chinese[0]
    assert "教工活动中心、体育馆" in chinese[1]
    client.cookies["django_language"] = "en"
    english = [client.get(path).content.decode() for path in pages]
    assert "2 units have not entered yet: 体育, 行政" in english[0]
    assert "Not drawn: 掼蛋, 羽毛球" in english[0]
    assert "教工活动中心, 体育馆" in english[1]
    assert "、" not in english[0]  # the notice on the other is typed: it keeps its own


def test_a_closed_registration_reads_closed_and_its_deadline_a_deadline(
    client, make_tournament, django_user_model
):
    """Regression: the status 报名截止 read "Registration deadline" in English, the words of
    the deadline's time: "The tournament is now “Registration deadline”"."""
    import datetime as dt

    from django.utils import timezone

    tournament = make_tournament(
        status="registration_closed",
        registration_deadline=timezone.make_aware(dt.datetime(2026, 11, 30, 12, 0)),
    )
    client.force_login(django_user_model.objects.create_superuser("boss", password="x" * 20))
    client.cookies["django_language"] = "en"
    dashboard = client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "Registration closed" in dashboard
    assert "Registration deadline 30 November 2026, 12:00" in dashboard
    assert tournament.get_status_display() == "报名截止"  # Chinese unchanged


# English that quotes the Chinese a person types: the notice's heading marks, the words a
# registration form's cells take (男/女, 是) and the form's own Chinese headers.
QUOTES_WHAT_IS_TYPED = {
    "每段一行；以“一、”“（一）”开头的行显示为标题",
    "%(who)s的性别“%(value)s”无法识别，请填“男”或“女”。",
    "表格中没有报名数据（没有数据行；以“示例”开头的示例行不会导入）。",
    "表头有“对序号”，这是团体赛的报名表；请使用%(event)s的报名表模板。",
    "现场报名“%(value)s”无法识别，请填“是”或留空。",
}


def test_no_english_translation_keeps_chinese_of_its_own():
    """Regression: 积分编排（瑞士制） read "Swiss (积分编排)" on the English draw page. The
    compiled English catalogue, every message of it: no Chinese character or full-width
    punctuation but where the English quotes what a person types."""
    from django.utils import translation

    from tests.test_language_crawl import CJK

    catalog = translation.trans_real.translation("en")._catalog
    chinese, read = {}, 0
    for key, english in catalog.items():
        read += 1
        msgid = key[0] if isinstance(key, tuple) else key
        msgid = msgid.split("\x04")[-1]  # a context's message: context EOT message
        if msgid and msgid not in QUOTES_WHAT_IS_TYPED and CJK.search(english):
            chinese[msgid] = english
    assert read > 1000
    assert chinese == {}


def test_the_tournament_pages_rounds_are_named_in_the_readers_language(client, demo):
    """Regression: once the day was planned, the tournament page's 日程 named the rounds in
    Chinese on the English page (掼蛋团体赛 · 1/4决赛)."""
    import datetime as dt

    from django.utils import timezone

    from tournaments.models import Round

    first = Round.objects.filter(stage__event__tournament__slug="nantong-2014", number=1).get()
    first.starts_at = timezone.make_aware(dt.datetime(2014, 5, 24, 14, 0))
    first.save()
    event = first.stage.event.name
    assert f"{event} · 1/4决赛" in client.get("/t/nantong-2014/").content.decode()
    client.cookies["django_language"] = "en"
    html = client.get("/t/nantong-2014/").content.decode()
    assert f"{event} · Quarter-final" in html and "1/4决赛" not in html
