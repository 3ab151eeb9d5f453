"""One-time login links for referees (organisers and the chief referee), under t/<tournament>/."""

from django.urls import path

from tournaments.links import views

app_name = "links"
urlpatterns = [
    path("referee/login-links/", views.login_links, name="list"),
    path("referee/login-links/<int:link_id>/revoke/", views.revoke_login_link, name="revoke"),
]
