"""The dashboard's routes, mounted at "/". Names start with "dash-" so they never clash
with the /v1/ API's route names."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from memories import views as memory_views
from namespaces import views as namespace_views
from retrieval import views as retrieval_views

NS = "namespaces/<str:name>/"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("keys/", views.keys, name="dash-keys"),
    path("keys/<int:key_id>/revoke/", views.key_revoke, name="dash-key-revoke"),
    path("namespaces/", namespace_views.namespaces, name="dash-namespaces"),
    path(NS, memory_views.memory_browser, name="dash-namespace"),
    path(NS + "delete/", namespace_views.namespace_delete_confirm, name="dash-namespace-delete"),
    path(NS + "memories/<path:path>", memory_views.memory_detail, name="dash-memory"),
    path(NS + "history/<path:path>", memory_views.memory_history_page, name="dash-memory-history"),
    path(NS + "forget/<path:path>", memory_views.memory_forget, name="dash-memory-forget"),
    path(NS + "retrieve/", retrieval_views.playground, name="dash-retrieve"),
    path(NS + "jobs/", memory_views.jobs, name="dash-jobs"),
    path(NS + "jobs/<str:job_id>/", memory_views.job_detail, name="dash-job"),
    path(NS + "data/", memory_views.export_import, name="dash-data"),
]
