"""The account's dashboard pages, mounted at "/" (the other apps mount their own)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("keys/", views.keys, name="dash-keys"),
    path("keys/<int:key_id>/revoke/", views.key_revoke, name="dash-key-revoke"),
]
