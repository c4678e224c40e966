"""Dashboard pages for namespaces. A namespace's page gets it from ``namespace_page``,
fetched for the signed-in person's account, so another account's namespace is the same
404 as a missing one."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.models import Account
from gitloom.core.dashboard import dashboard_view
from gitloom.core.errors import GitLoomError
from namespaces.dashboard import namespace_page
from namespaces.forms import NamespaceCreateForm, NamespaceDeleteForm
from namespaces.models import Namespace
from namespaces.selectors import namespace_list
from namespaces.services import namespace_create, namespace_delete
from retrieval.selectors import index_memory_counts

PAGE_SIZE = 50


@require_http_methods(["GET", "POST"])
@dashboard_view
def namespaces(request: HttpRequest, *, account: Account) -> HttpResponse:
    form = NamespaceCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            namespace = namespace_create(account=account, name=form.cleaned_data["name"])
        except GitLoomError as exc:
            form.add_error("name", exc.message)
        else:
            messages.success(request, f"Created namespace “{namespace.name}”.")
            return redirect("dash-namespace", name=namespace.name)
    page = Paginator(namespace_list(account=account), PAGE_SIZE).get_page(request.GET.get("page"))
    counts = index_memory_counts(namespaces=page.object_list)
    for namespace in page.object_list:
        namespace.memory_count = counts.get(namespace.pk)
    context = {
        "section": "namespaces",
        "account": account,
        "form": form,
        "page": page,
        "namespaces": page.object_list,
    }
    return render(request, "namespaces/list.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@namespace_page
def namespace_delete_confirm(
    request: HttpRequest, *, namespace: Namespace, account: Account
) -> HttpResponse:
    form = NamespaceDeleteForm(request.POST or None, namespace_name=namespace.name)
    if request.method == "POST" and form.is_valid():
        namespace_delete(namespace=namespace)
        messages.success(request, f"Deleted namespace “{namespace.name}” and all its memories.")
        return redirect("dash-namespaces")
    context = {"section": "namespaces", "tab": "delete", "namespace": namespace, "form": form}
    return render(request, "namespaces/delete.html", context, status=400 if form.errors else 200)
