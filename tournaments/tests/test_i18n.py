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
