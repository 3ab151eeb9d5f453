from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from guandan_cup import views

admin.site.site_header = "掼蛋杯 管理后台"
admin.site.site_title = "掼蛋杯"
admin.site.index_title = "比赛管理"

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The live pages first (they are polled), then the referee pages.
    path("", include("tournaments.urls")),
    path("", include("scoring.urls")),
]
