from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm

from accounts.webhooks.events import EVENT_TYPES
from gitloom.core.slugs import is_slug


class SignupForm(forms.Form):
    account_id = forms.CharField(
        label="Account id",
        max_length=64,
        help_text="1-64 characters: lowercase letters a-z, digits and '-'. It cannot change.",
        widget=forms.TextInput(attrs={"autocomplete": "organization", "spellcheck": "false"}),
    )
    username = forms.CharField(
        max_length=150, widget=forms.TextInput(attrs={"autocomplete": "username"})
    )
    email = forms.EmailField(
        required=False, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(
        min_length=8,
        help_text="At least 8 characters, not a common password.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_account_id(self) -> str:
        # Checked here too so the person sees it beside the field; the service is the guard.
        value = self.cleaned_data["account_id"]
        if not is_slug(value):
            raise forms.ValidationError(
                "Use only lowercase letters a-z, digits and '-' (1-64 characters)."
            )
        return value


class LoginForm(AuthenticationForm):
    """Django's login form; the subclass only exists to keep the dashboard's wording."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "That username and password do not match. Both are case-sensitive.",
    }


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(
        label="Key name",
        max_length=100,
        help_text="What uses this key, e.g. 'production chat app'. Only you see it.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )


class WebhookCreateForm(forms.Form):
    url = forms.CharField(
        label="Endpoint URL",
        max_length=2000,
        widget=forms.TextInput(attrs={"spellcheck": "false", "inputmode": "url"}),
    )
    events = forms.MultipleChoiceField(
        label="Events",
        choices=[(name, name) for name in EVENT_TYPES],
        widget=forms.CheckboxSelectMultiple,
        initial=["job.done"],
    )
    namespaces = forms.CharField(
        label="Only these namespaces",
        required=False,
        help_text="Comma-separated names; empty means every namespace.",
    )
    description = forms.CharField(label="Description", required=False, max_length=200)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # What the service accepts now: the setting is read at start, like the check.
        self.fields["url"].help_text = (
            "https://, or http:// and local addresses: GITLOOM_WEBHOOK_ALLOW_LOCAL is on "
            "(development only)."
            if settings.GITLOOM_WEBHOOK_ALLOW_LOCAL
            else "https:// only; it must resolve to public addresses."
        )

    def clean_namespaces(self) -> list[str]:
        return [name.strip() for name in self.cleaned_data["namespaces"].split(",") if name.strip()]


class WebhookEditForm(WebhookCreateForm):
    """The same fields, filled in from the endpoint; its secret stays as it is."""

    @classmethod
    def for_endpoint(cls, endpoint, data=None) -> WebhookEditForm:
        initial = {
            "url": endpoint.url,
            "events": list(endpoint.events),
            "namespaces": ", ".join(endpoint.namespaces),
            "description": endpoint.description,
        }
        return cls(data, initial=initial, prefix="edit")
