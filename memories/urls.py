from django.urls import path

from memories import apis

urlpatterns = [
    path("memories", apis.MemoryListCreateApi.as_view(), name="memories"),
    path("memories/<path:path>/history", apis.MemoryHistoryApi.as_view(), name="memory-history"),
    path("memories/<path:path>/blame", apis.MemoryBlameApi.as_view(), name="memory-blame"),
    path("memories/<path:path>/purge", apis.MemoryPurgeApi.as_view(), name="memory-purge"),
    path("memories/<path:path>", apis.MemoryDetailApi.as_view(), name="memory-detail"),
    path("jobs", apis.JobListApi.as_view(), name="jobs"),
    path("jobs/<str:job_id>", apis.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<str:job_id>/revert", apis.JobRevertApi.as_view(), name="job-revert"),
    path("namespaces/<str:name>/export", apis.NamespaceExportApi.as_view(), name="export"),
    path("namespaces/<str:name>/changes", apis.NamespaceChangesApi.as_view(), name="changes"),
    path("namespaces/<str:name>/import", apis.NamespaceImportApi.as_view(), name="import"),
    path("namespaces/<str:name>/purge", apis.NamespacePurgeApi.as_view(), name="purge"),
]
