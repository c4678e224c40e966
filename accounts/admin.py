from django.contrib import admin, messages
from django.utils import timezone

from accounts.models import Account, ApiKey, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ["id", "is_active", "created"]
    list_filter = ["is_active"]
    search_fields = ["id", "memberships__user__username", "memberships__user__email"]
    inlines = [MembershipInline]
    actions = ["deactivate", "activate"]

    def get_readonly_fields(self, request, obj=None):
        # The id is part of every storage key: it never changes after creation.
        return ["id", "created"] if obj else ["created"]

    # Deleting an account deletes its namespaces' repositories in object storage too,
    # not only the rows a cascade reaches.
    def delete_model(self, request, obj):
        from namespaces.services import account_delete

        account_delete(account=obj)

    def delete_queryset(self, request, queryset):
        from namespaces.services import account_delete

        for account in queryset:
            account_delete(account=account)

    @admin.action(description="Deactivate selected accounts (their keys stop working)")
    def deactivate(self, request, queryset):
        count = queryset.update(is_active=False)
        self.message_user(request, f"Deactivated {count} account(s).", messages.SUCCESS)

    @admin.action(description="Reactivate selected accounts")
    def activate(self, request, queryset):
        count = queryset.update(is_active=True)
        self.message_user(request, f"Reactivated {count} account(s).", messages.SUCCESS)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "account", "role", "created"]
    list_filter = ["role"]
    search_fields = ["user__username", "user__email", "account__id"]
    autocomplete_fields = ["user", "account"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["prefix", "name", "account", "created", "last_used", "revoked"]
    list_filter = [("revoked", admin.EmptyFieldListFilter), "created"]
    search_fields = ["prefix", "name", "account__id"]
    readonly_fields = ["account", "prefix", "key_hash", "created", "last_used", "revoked"]
    fields = ["account", "name", "prefix", "key_hash", "created", "last_used", "revoked"]
    actions = ["revoke"]

    def has_add_permission(self, request):
        # Keys are minted by the dashboard or `manage.py create_api_key`, which show the
        # secret once; the admin cannot show a secret it never had.
        return False

    @admin.action(description="Revoke selected keys")
    def revoke(self, request, queryset):
        count = queryset.filter(revoked__isnull=True).update(revoked=timezone.now())
        self.message_user(request, f"Revoked {count} key(s).", messages.SUCCESS)
