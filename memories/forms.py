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
