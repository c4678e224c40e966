"""The namespaces' dashboard pages, mounted at "/"."""

from django.urls import path

from gitloom.core.dashboard import NAMESPACE_PAGES as NS
from namespaces import views

urlpatterns = [
    path("namespaces/", views.namespaces, name="dash-namespaces"),
    path(NS + "delete/", views.namespace_delete_confirm, name="dash-namespace-delete"),
]
