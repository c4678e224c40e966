"""The dashboard's routes, mounted at "/". Names start with "dash-" so they never clash
with the /v1/ API's route names."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from namespaces import views as namespace_views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("keys/", views.keys, name="dash-keys"),
    path("keys/<int:key_id>/revoke/", views.key_revoke, name="dash-key-revoke"),
    path("namespaces/", namespace_views.namespaces, name="dash-namespaces"),
    path("namespaces/<str:name>/", namespace_views.namespace_detail, name="dash-namespace"),
    path(
        "namespaces/<str:name>/delete/",
        namespace_views.namespace_delete_confirm,
        name="dash-namespace-delete",
    ),
]
