from __future__ import annotations

from django import forms


class NamespaceCreateForm(forms.Form):
    # No charset check here: namespace_create validates the name, and its message is
    # the one shown, so the page and the API can never disagree about what is valid.
    name = forms.CharField(
        label="Namespace name",
        max_length=64,
        strip=False,
        help_text="1-64 characters: a-z, 0-9 and '-'. One per end user works well, e.g. user-8213.",
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )


class NamespaceDeleteForm(forms.Form):
    confirm = forms.CharField(
        label="Type the namespace name to confirm",
        max_length=64,
        strip=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    def __init__(self, *args, namespace_name: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.namespace_name = namespace_name
        self.fields["confirm"].widget.attrs.update(
            {"data-confirm-value": namespace_name, "data-confirm-button": "delete-button"}
        )

    def clean_confirm(self) -> str:
        value = self.cleaned_data["confirm"]
        if value != self.namespace_name:
            raise forms.ValidationError(
                f"Type “{self.namespace_name}” exactly to delete this namespace."
            )
        return value
