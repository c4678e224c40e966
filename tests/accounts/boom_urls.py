"""A route that crashes, to prove a real bug still answers the JSON envelope."""

from django.urls import include, path
from rest_framework.views import APIView

from server.urls import urlpatterns as real_urlpatterns


class BoomApi(APIView):
    def get(self, request):
        raise RuntimeError("boom")


urlpatterns = [path("v1/boom", BoomApi.as_view()), path("", include(real_urlpatterns))]
