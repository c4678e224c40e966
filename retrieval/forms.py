from __future__ import annotations

from django import forms

from namespaces.memory_format import TIERS
from retrieval.query import ARMS
from retrieval.selectors import MAX_LIMIT, MAX_QUERY_CHARS

ARM_LABELS = {
    "lexical": "Lexical (BM25 over text and cues)",
    "semantic": "Semantic (cue vectors)",
    "graph": "Graph (one hop along related links)",
}


class RetrieveForm(forms.Form):
    # Only shapes here: retrieve() checks the values and its messages are the ones shown.
    query = forms.CharField(
        label="Question",
        max_length=MAX_QUERY_CHARS,
        widget=forms.TextInput(
            attrs={"type": "search", "placeholder": "what camera do I own?", "autocomplete": "off"}
        ),
    )
    limit = forms.IntegerField(
        label="Results", required=False, min_value=1, max_value=MAX_LIMIT, initial=10
    )
    tier = forms.MultipleChoiceField(
        label="Tiers",
        required=False,
        choices=[(tier, tier) for tier in TIERS],
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked means every tier.",
    )
    tag = forms.CharField(
        label="Tags",
        required=False,
        max_length=1000,
        help_text="Comma-separated; a result must carry all of them.",
    )
    arms = forms.MultipleChoiceField(
        label="Arms",
        required=False,
        choices=[(arm, ARM_LABELS.get(arm, arm)) for arm in ARMS],
        widget=forms.CheckboxSelectMultiple,
        initial=list(ARMS),
    )

    as_of = forms.CharField(
        label="As of",
        required=False,
        max_length=100,
        widget=forms.TextInput(
            attrs={"placeholder": "commit id or 2026-07-31T09:12:00Z", "autocomplete": "off"}
        ),
        help_text="Search the memory as it was at a past commit (its id, 7+ hex digits) or "
        "time (the last commit made by then). Empty: now.",
    )
    as_of_by = forms.ChoiceField(
        label="A time means",
        required=False,
        choices=[
            ("stored", "when it was stored"),
            ("said", "when it was said (message timestamps)"),
        ],
        initial="stored",
        help_text="Which of a commit's two times a time is compared with: a backfilled "
        "conversation was stored today but said when its messages say.",
    )

    def clean_limit(self) -> int:
        return self.cleaned_data["limit"] or 10

    def tags(self) -> list[str]:
        return [part.strip() for part in self.cleaned_data["tag"].split(",") if part.strip()]
