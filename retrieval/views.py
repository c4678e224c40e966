"""The retrieval playground: the same retrieve() the /v1/retrieve view calls, with the
signed-in person's account, so the page sees exactly what that account's keys see."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.models import Account
from gitloom.core.errors import InvalidInput
from namespaces.dashboard import namespace_page
from namespaces.models import Namespace
from retrieval.errors import AsOfBeforeHistory, AsOfNotFound
from retrieval.forms import RetrieveForm
from retrieval.query import ARMS
from retrieval.selectors import retrieve

# Refusals that are about the "as of" field, shown beside it.
AS_OF_CODES = ("invalid_as_of", "ambiguous_commit", "as_of_")


@namespace_page
def playground(request: HttpRequest, *, namespace: Namespace, account: Account) -> HttpResponse:
    asked = "query" in request.GET
    data = request.GET.copy()
    data.setdefault("limit", "10")  # a bookmarked ?query=... still shows its limit
    form = RetrieveForm(data if asked else None, initial={"arms": list(ARMS), "limit": 10})
    found = None
    status = 200
    if asked:
        if form.is_valid():
            try:
                found = retrieve(
                    namespace=namespace,
                    query=form.cleaned_data["query"],
                    limit=form.cleaned_data["limit"],
                    tiers=form.cleaned_data["tier"],
                    tags=form.tags(),
                    # Nothing ticked is a choice the selector explains, not "all arms".
                    arms=form.cleaned_data["arms"],
                    as_of=form.cleaned_data["as_of"].strip() or None,
                    as_of_by=form.cleaned_data["as_of_by"] or "stored",
                )
            except (InvalidInput, AsOfNotFound, AsOfBeforeHistory) as exc:
                form.add_error("as_of" if exc.code.startswith(AS_OF_CODES) else None, exc.message)
        if form.errors:
            status = 400
    context = {
        "section": "namespaces",
        "tab": "retrieve",
        "namespace": namespace,
        "form": form,
        "found": found,
        "arm_names": ARMS,
    }
    return render(request, "retrieval/playground.html", context, status=status)
