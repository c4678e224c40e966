"""Fixtures for the dashboard's tests: signed-in page clients and one headless Chromium.

Import into a test module with ``from tests.fixtures_browser import *  # noqa``.
The browser is Debian's ``chromium`` + ``chromium-driver`` driven by selenium; without
them the browser tests are skipped with the reason, the page tests still run.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

__all__ = [
    "CHROMEDRIVER",
    "CHROMIUM",
    "SCREENSHOTS",
    "browser",
    "csrf_post",
    "fresh_store",
    "page_client",
    "person",
    "other_person",
    "sign_up",
]

CHROMIUM = os.environ.get("GITLOOM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("GITLOOM_CHROMEDRIVER", "/usr/bin/chromedriver")
SCREENSHOTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "screenshots"
PASSWORD = "correct-horse-42"


def sign_up(*, account_id: str, username: str):
    from accounts.services import account_signup

    return account_signup(account_id=account_id, username=username, password=PASSWORD)


@pytest.fixture
def fresh_store(fresh_object_store):
    """The test's own empty object store (tests/conftest.py); the live server's thread
    uses it too, since it replaces the process's store."""
    return fresh_object_store


@pytest.fixture
def person(db):
    """A person who signed up: user ``pat`` owning account ``pats-co``."""
    return sign_up(account_id="pats-co", username="pat")


@pytest.fixture
def other_person(db):
    """Someone else entirely: user ``olly`` owning account ``ollys-co``."""
    return sign_up(account_id="ollys-co", username="olly")


@pytest.fixture
def page_client(person):
    """A browser-like client signed in as ``person``, with CSRF checks on as in production."""
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(person)
    return client


def csrf_post(client, url: str, data: dict | None = None, *, page: str | None = None, **extra):
    """POST a form the way a browser does: load the page, then send its CSRF token."""
    response = client.get(page or url)
    assert response.status_code in (200, 400), (page or url, response.status_code)
    token = client.cookies["csrftoken"].value
    return client.post(url, {**(data or {}), "csrfmiddlewaretoken": token}, **extra)


def _missing_browser() -> str | None:
    for binary in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            return f"{binary} is not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    return None


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole test session."""
    reason = _missing_browser()
    if reason:
        pytest.skip(f"browser tests need Chromium: {reason}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="gitloom-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
