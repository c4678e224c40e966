import uuid

from django.contrib import admin, messages

from memories.models import Job
from memories.services import job_retry


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = [
        "public_id",
        "account",
        "namespace_name",
        "status",
        "created",
        "waiting",
        "finished",
        "attempts",
        "extractor",
        "short_commit",
        "error_code",
    ]
    list_filter = ["status", "error_code", "extractor", "created"]
    search_fields = [
        "=public_id",
        "account__id",
        "namespace__name",
        "session_id",
        "commit",
        "error_message",
    ]
    list_select_related = ["account", "namespace"]
    date_hierarchy = "created"
    readonly_fields = [f.name for f in Job._meta.fields]
    actions = ["retry_failed"]

    @admin.display(description="age (waiting or running)")
    def waiting(self, job: Job) -> str:
        age = job.age_seconds
        return "—" if age is None else f"{age:.0f} s"

    def has_add_permission(self, request):
        # Jobs are accepted by POST /v1/memories, which validates the transcript first.
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_search_fields(self, request):
        # "=public_id" compares a UUID column: only try it when the term is a UUID.
        fields = list(super().get_search_fields(request))
        try:
            uuid.UUID(request.GET.get("q", "").strip())
        except ValueError:
            fields.remove("=public_id")
        return fields

    @admin.display(description="namespace", ordering="namespace__name")
    def namespace_name(self, obj):
        return obj.namespace.name

    @admin.display(description="commit", ordering="commit")
    def short_commit(self, obj):
        return obj.commit[:10]

    @admin.action(description="Retry selected failed jobs")
    def retry_failed(self, request, queryset):
        failed = list(queryset.filter(status=Job.Status.FAILED))
        for job in failed:
            job_retry(job=job)
        skipped = queryset.count() - len(failed)
        note = f" ({skipped} not failed, left alone)" if skipped else ""
        self.message_user(request, f"Queued {len(failed)} job(s) again{note}.", messages.SUCCESS)
