from django.urls import path

from accounts import apis

urlpatterns = [
    path("whoami", apis.WhoAmIApi.as_view(), name="whoami"),
    path("keys", apis.KeyListCreateApi.as_view(), name="keys"),
    path("keys/<int:key_id>", apis.KeyRevokeApi.as_view(), name="key-revoke"),
]
