from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from guandan_cup import accounts, views
from tournaments.links import views as views_links

admin.site.site_header = "掼蛋杯 管理后台"
admin.site.site_title = "掼蛋杯"
admin.site.index_title = "比赛管理"

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("sw.js", views.service_worker, name="service-worker"),
    path("readyz", views.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", accounts.account, name="accounts-home"),
    path(
        "accounts/logout-everywhere/",
        accounts.logout_everywhere,
        name="accounts-logout-everywhere",
    ),
    path("accounts/link/<str:token>/", views_links.redeem, name="accounts-login-link"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # The live pages first (they are polled), then the referee pages.
    path("", include("tournaments.urls")),
    path("", include("scoring.urls")),
]
