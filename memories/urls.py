from django.urls import path, register_converter
from django.urls.converters import PathConverter

from memories.apis import jobs, memories, provenance, purges, transfer


class MemoryPathConverter(PathConverter):
    # Any text, line breaks included (`path` stops at one): a path with a control
    # character reaches its view, which refuses it as `invalid_path`, not "No such endpoint".
    regex = r"[\s\S]+"


register_converter(MemoryPathConverter, "memory_path")

urlpatterns = [
    path("memories", memories.MemoryListCreateApi.as_view(), name="memories"),
    path(
        "memories/<memory_path:path>/history",
        provenance.MemoryHistoryApi.as_view(),
        name="memory-history",
    ),
    path(
        "memories/<memory_path:path>/blame",
        provenance.MemoryBlameApi.as_view(),
        name="memory-blame",
    ),
    path("memories/<memory_path:path>/purge", purges.MemoryPurgeApi.as_view(), name="memory-purge"),
    path("memories/<memory_path:path>", memories.MemoryDetailApi.as_view(), name="memory-detail"),
    path("jobs", jobs.JobListApi.as_view(), name="jobs"),
    path("jobs/<str:job_id>", jobs.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<str:job_id>/revert", jobs.JobRevertApi.as_view(), name="job-revert"),
    path("namespaces/<str:name>/export", transfer.NamespaceExportApi.as_view(), name="export"),
    path("namespaces/<str:name>/changes", provenance.NamespaceChangesApi.as_view(), name="changes"),
    path("namespaces/<str:name>/import", transfer.NamespaceImportApi.as_view(), name="import"),
    path("namespaces/<str:name>/purge", purges.NamespacePurgeApi.as_view(), name="purge"),
]
