from django.urls import reverse

from tournaments.documents.notice import Block, notice_blocks
from tournaments.models import Tournament


def test_it_recognises_the_section_markers_of_a_chinese_notice():
    blocks = notice_blocks("一、 比赛时间和地点：\n\n（一）以工会小组为单位\n时间：下午2：00\n  ")
    assert blocks == [
        Block("heading", "一、 比赛时间和地点："),
        Block("subheading", "（一）以工会小组为单位"),
        Block("paragraph", "时间：下午2：00"),
    ]


def test_the_list_shows_public_tournaments(client, demo):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "第二届“轻松假日”教工扑克牌（掼蛋）比赛" in html
    assert "安徽农业大学教职工棋、牌、球比赛" in html


def test_the_list_hides_drafts_from_the_public(client, make_tournament):
    make_tournament(slug="secret", name="未发布的比赛", status=Tournament.Status.DRAFT)
    assert "未发布的比赛" not in client.get("/").content.decode()
    assert client.get("/t/secret/").status_code == 404


def test_the_notice_page_shows_the_seed_title_sections_and_signature(client, demo):
    response = client.get(reverse("tournaments:detail", args=["nantong-2014"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "江苏省南通中学工会关于举行第二届“轻松假日”教工扑克牌比赛的通知" in html
    assert "各工会小组：" in html
    assert '<h3 class="nb-heading">一、 比赛时间和地点：</h3>' in html
    assert '<h3 class="nb-heading">三、 比赛方法：</h3>' in html
    assert "迟到十分钟以上者判负" in html
    assert "本校教工活动中心" in html
    assert "2014年5月8日" in html
    # The rules follow the notice, as on paper.
    assert "江苏省南通中学教工扑克牌（掼蛋）比赛规则" in html
    assert "打A方必须上游，上游的对家不是末游" in html
    # The schedule from the notice: the leaders' meeting and draw, then the match.
    assert "领队会议，比赛分组抽签" in html
    assert "科学楼底楼会议室" in html
    assert "掼蛋团体赛" in html


def test_the_anhui_notice_lists_its_four_events_and_officials(client, demo):
    html = client.get("/t/anhui-2021/").content.decode()
    for name in ["掼蛋", "象棋", "羽毛球", "乒乓球", "轻纺楼3A09", "肖慧", "周铃", "梁勇"]:
        assert name in html
    assert "2021年1月26日 12:00" in html


def test_an_unknown_tournament_is_404(client, db):
    assert client.get("/t/no-such-cup/").status_code == 404


def test_pages_carry_a_content_security_policy_without_unsafe_inline(client, demo):
    response = client.get("/t/nantong-2014/")
    policy = response.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in policy
    assert "script-src 'self' 'nonce-" in policy
    html = response.content.decode()
    # The only scripts are our own static files, given the nonce; no inline style attributes.
    assert "style=" not in html
    assert "<style" not in html
    assert "django_htmx/htmx" in html


def test_the_notice_page_needs_a_fixed_number_of_queries(
    client, demo, django_assert_max_num_queries
):
    with django_assert_max_num_queries(8):
        client.get("/t/anhui-2021/")


def test_a_short_numbered_sentence_is_a_paragraph_not_a_heading():
    assert notice_blocks("（四）迟到十分钟以上者判负。") == [
        Block("paragraph", "（四）迟到十分钟以上者判负。")
    ]
