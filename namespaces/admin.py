from django.contrib import admin

from namespaces.models import Namespace


@admin.register(Namespace)
class NamespaceAdmin(admin.ModelAdmin):
    list_display = ["name", "account", "created", "head_commit", "last_write"]
    list_filter = ["created"]
    search_fields = ["name", "account__id"]
    readonly_fields = ["account", "name", "created", "head_commit", "last_write"]

    def has_add_permission(self, request):
        return False
