import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_spectator_reads_the_notice_on_a_phone(live_server, phone_page):
    from tournaments.ops.demo import load_demo

    load_demo()
    response = phone_page.goto(f"{live_server.url}/t/nantong-2014/")
    assert response.status == 200
    title = phone_page.locator("h1.notice-title")
    assert "第二届“轻松假日”教工扑克牌比赛的通知" in title.inner_text()
    # Nothing overflows the phone's width.
    overflow = phone_page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    # The CSP blocked nothing: htmx loaded from our own static files.
    assert phone_page.evaluate("typeof window.htmx") == "object"


def test_the_language_switch_works_in_the_browser(live_server, page):
    from tournaments.ops.demo import load_demo

    load_demo()
    page.goto(f"{live_server.url}/t/anhui-2021/")
    page.get_by_role("button", name="English").click()
    page.wait_for_url(f"{live_server.url}/t/anhui-2021/")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.get_by_role("heading", name="Events").is_visible()
