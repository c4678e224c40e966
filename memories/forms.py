from __future__ import annotations

from django import forms

from namespaces.memory_format import TIERS


class MemoryFilterForm(forms.Form):
    tier = forms.ChoiceField(
        label="Tier",
        required=False,
        choices=[("", "All tiers"), *((tier, tier) for tier in TIERS)],
    )
    tag = forms.CharField(label="Tag", required=False, max_length=300)


class RememberForm(forms.Form):
    """A conversation typed or pasted as ``user:`` / ``assistant:`` lines, posted to the
    same service as ``POST /v1/memories``. ``token`` is the write's Idempotency-Key, made
    when the form is shown, so a double click makes one job."""

    conversation = forms.CharField(
        label="Conversation",
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 6,
                "spellcheck": "true",
                "placeholder": "user: I just bought a Sony A7III camera from Fotocentre in "
                "Bengaluru.\nassistant: Congratulations! Enjoy the new camera.",
            }
        ),
        help_text="One turn per line, starting user: or assistant: (a line without one "
        "continues the turn above; text with none is one user message).",
    )
    session_id = forms.CharField(label="Session id", required=False, max_length=255)
    token = forms.CharField(widget=forms.HiddenInput, max_length=64)


class ImportForm(forms.Form):
    FORMATS = [
        ("tar", "A tar.gz of memory files (adds or replaces those files)"),
        ("bundle", "A git bundle (brings its history in)"),
    ]

    archive = forms.FileField(
        label="Archive",
        help_text="All or nothing: every file is checked first, and any problem leaves the "
        "namespace untouched.",
    )
    format = forms.ChoiceField(
        label="What is it?", choices=FORMATS, initial="tar", widget=forms.RadioSelect
    )
    replace = forms.BooleanField(
        label="Replace",
        required=False,
        help_text="A bundle whose history does not continue this namespace's replaces its "
        "files (earlier versions stay in history); without this it is refused.",
    )


class PurgePathForm(forms.Form):
    """Purging a memory is typed out: the path, exactly."""

    confirm = forms.CharField(
        label="Type the memory's path to confirm",
        max_length=1024,
        strip=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    def __init__(self, *args, path: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.path = path
        self.fields["confirm"].widget.attrs.update(
            {"data-confirm-value": path, "data-confirm-button": "purge-button"}
        )

    def clean_confirm(self) -> str:
        value = self.cleaned_data["confirm"]
        if value != self.path:
            raise forms.ValidationError(f"Type “{self.path}” exactly to purge this memory.")
        return value


class PurgeMatchForm(forms.Form):
    """Purging everything that mentions a string: the string, typed twice."""

    match = forms.CharField(
        label="Text to purge",
        max_length=200,
        strip=False,
        help_text="3-200 characters, matched without regard to case in every version of "
        "every memory (its path, header and body).",
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    confirm = forms.CharField(
        label="Type the same text again to confirm",
        max_length=200,
        strip=False,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    def clean(self):
        data = super().clean()
        match, confirm = data.get("match"), data.get("confirm")
        if match is not None and confirm is not None and match != confirm:
            self.add_error("confirm", "Type the same text exactly, to confirm.")
        return data
