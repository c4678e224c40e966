from django.contrib import admin, messages
from django.db.models import Count, Q

from gitloom.core.errors import GitLoomError
from namespaces.models import Namespace, Purge
from retrieval.selectors import index_memory_counts
from retrieval.services import after_repository_change


@admin.register(Namespace)
class NamespaceAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "account",
        "memories",
        "job_count",
        "failed_jobs",
        "short_head",
        "last_write",
        "created",
    ]
    list_filter = ["created", "last_write"]
    search_fields = ["name", "account__id", "head_commit"]
    readonly_fields = ["account", "name", "created", "head_commit", "last_write"]
    list_select_related = ["account"]
    # Each row's memory count is read inside that namespace's row-level-security scope.
    list_per_page = 50
    actions = ["reindex"]

    def has_add_permission(self, request):
        # A namespace needs its repository and index made with it: the API or dashboard.
        return False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                job_total=Count("jobs", distinct=True),
                job_failed=Count("jobs", filter=Q(jobs__status="failed"), distinct=True),
            )
        )

    def get_changelist_instance(self, request):
        # Counted once for the page's rows, and kept on the row objects of this request.
        changelist = super().get_changelist_instance(request)
        counts = index_memory_counts(namespaces=changelist.result_list)
        for namespace in changelist.result_list:
            namespace.memory_count = counts.get(namespace.pk)
        return changelist

    @admin.display(description="memories")
    def memories(self, obj):
        count = getattr(obj, "memory_count", None)
        return "—" if count is None else count

    @admin.display(description="jobs", ordering="job_total")
    def job_count(self, obj):
        return obj.job_total

    @admin.display(description="failed jobs", ordering="job_failed")
    def failed_jobs(self, obj):
        return obj.job_failed

    @admin.display(description="head", ordering="head_commit")
    def short_head(self, obj):
        return obj.head_commit[:10]

    @admin.action(description="Rebuild the index of selected namespaces from their repositories")
    def reindex(self, request, queryset):
        done = 0
        for namespace in queryset:
            try:
                after_repository_change(namespace=namespace, rebuild=True)
            except GitLoomError as exc:
                self.message_user(request, f"{namespace}: {exc.message}", messages.ERROR)
            else:
                done += 1
        self.message_user(request, f"Rebuilt the index of {done} namespace(s).", messages.SUCCESS)


@admin.register(Purge)
class PurgeAdmin(admin.ModelAdmin):
    """Purges are records of what was erased (never the content); read-only."""

    list_display = ["public_id", "namespace", "kind", "credential", "versions", "created"]
    list_filter = ["kind", "created"]
    search_fields = ["public_id", "namespace__name", "namespace__account__id", "credential"]
    list_select_related = ["namespace"]
    readonly_fields = [field.name for field in Purge._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
