"""One-time login links for referees (organisers and the chief referee) and team leaders'
invitations (organisers), under t/<tournament>/."""

from django.urls import path

from tournaments.links import views

app_name = "links"
urlpatterns = [
    path("referee/login-links/", views.login_links, name="list"),
    path("referee/login-links/<int:link_id>/revoke/", views.revoke_login_link, name="revoke"),
    path("manage/units/<int:unit_id>/invite/", views.leader_invite, name="leader-invite"),
]
