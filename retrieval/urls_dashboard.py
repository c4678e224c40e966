"""The retrieval playground page, mounted at "/"."""

from django.urls import path

from gitloom.core.dashboard import NAMESPACE_PAGES as NS
from retrieval import views

urlpatterns = [
    path(NS + "retrieve/", views.playground, name="dash-retrieve"),
]
