from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from accounts.forms import SignupForm
from accounts.selectors import account_for_user
from accounts.services import account_signup
from gitloom.errors import GitLoomError


def signup(request):
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = account_signup(**form.cleaned_data)
        except GitLoomError as exc:
            form.add_error(None, exc.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("home")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
def home(request):
    account = account_for_user(user=request.user)
    return render(request, "accounts/home.html", {"account": account})
