from django.urls import path

from retrieval import apis

urlpatterns = [
    path("retrieve", apis.RetrieveApi.as_view(), name="retrieve"),
]
