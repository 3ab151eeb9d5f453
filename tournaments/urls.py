from django.urls import path

from tournaments import views

urlpatterns = [
    path("", views.tournament_list, name="tournaments-list"),
    path("t/<slug:slug>/", views.tournament_detail, name="tournaments-detail"),
    path("t/<slug:slug>/notice.pdf", views.notice_pdf, name="tournaments-notice-pdf"),
]
