"""The table pages' service worker is served from the site's root (its scope takes in every
table page), never cached stale, and named by the table page that registers it."""

from django.urls import reverse


def test_the_service_worker_is_served_from_the_root_and_always_revalidated(client):
    response = client.get(reverse("service-worker"))
    assert response.status_code == 200 and reverse("service-worker") == "/sw.js"
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    body = response.content.decode()
    assert "guandan-table-pages" in body and "tables" in body
    assert client.post(reverse("service-worker")).status_code == 405
