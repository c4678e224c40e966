from django.urls import path

from namespaces import apis

urlpatterns = [
    path("namespaces", apis.NamespaceListCreateApi.as_view(), name="namespaces"),
    path("namespaces/<str:name>", apis.NamespaceDetailApi.as_view(), name="namespace-detail"),
]
