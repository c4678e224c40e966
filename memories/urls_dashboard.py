"""A namespace's memories, history, jobs and data pages, mounted at "/"."""

from django.urls import path

from gitloom.core.dashboard import NAMESPACE_PAGES as NS
from memories import views

urlpatterns = [
    path(NS, views.memory_browser, name="dash-namespace"),
    path(NS + "remember/", views.memory_remember, name="dash-remember"),
    path(NS + "memories/<path:path>", views.memory_detail, name="dash-memory"),
    path(NS + "history/<path:path>", views.memory_history_page, name="dash-memory-history"),
    path(NS + "forget/<path:path>", views.memory_forget, name="dash-memory-forget"),
    path(NS + "purge/<path:path>", views.memory_purge_page, name="dash-memory-purge"),
    path(NS + "jobs/", views.jobs, name="dash-jobs"),
    path(NS + "jobs/<str:job_id>/", views.job_detail, name="dash-job"),
    path(NS + "jobs/<str:job_id>/revert/", views.job_revert_page, name="dash-job-revert"),
    path(NS + "data/", views.export_import, name="dash-data"),
    path(NS + "purge/", views.namespace_purge_page, name="dash-namespace-purge"),
    # The form's old address (it sat on the data page): still accepted.
    path(NS + "data/purge/", views.namespace_purge_page),
]
