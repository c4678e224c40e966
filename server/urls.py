from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from gitloom.core import envelope
from server import views
from server.apis import ApiRootApi


def _redirect(name: str):
    # A redirect changes nothing: no CSRF check (an unsafe method would get a 403).
    return csrf_exempt(RedirectView.as_view(pattern_name=name, query_string=True, permanent=True))


v1_patterns = [
    path("", include("accounts.urls")),
    path("", include("namespaces.urls")),
    path("", include("memories.urls")),
    path("", include("retrieval.urls")),
    path("", ApiRootApi.as_view(), name="api-root"),
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    path("docs", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    # One address each; the trailing-slash spellings people type lead there.
    path("schema/", _redirect("schema")),
    path("docs/", _redirect("docs")),
    # Anything else under /v1/ is a JSON 404, not Django's HTML page.
    re_path(r"^.*$", envelope.api_not_found),
]

urlpatterns = [
    # "/v1" without its slash is the API's root too (APPEND_SLASH answered an HTML 301).
    path("v1", ApiRootApi.as_view()),
    path("v1/", include(v1_patterns)),
    # For load balancers, orchestrators and Prometheus (docs/design/operations.md).
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
    path("admin/", admin.site.urls),
    # The dashboard: each app mounts its own pages.
    path("", include("accounts.urls_dashboard")),
    path("", include("namespaces.urls_dashboard")),
    path("", include("memories.urls_dashboard")),
    path("", include("retrieval.urls_dashboard")),
]

handler400 = "gitloom.core.envelope.handler400"
handler404 = "gitloom.core.envelope.handler404"
handler500 = "gitloom.core.envelope.handler500"
