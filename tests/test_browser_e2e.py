"""The dashboard end to end in a real headless Chromium against a live server.

sign up → create a key (secret once, copy button, warning) → create a namespace →
... → revoke the key and see the API refuse it. Every page visited is saved under
test-artifacts/screenshots/ for a person to look at.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from django.conf import settings

from tests.fixtures_browser import *  # noqa: F403
from tests.fixtures_browser import SCREENSHOTS

# Every installed app stays available; naming them lets the live server's database
# flush use TRUNCATE ... CASCADE, which the index tables (plain SQL, unmanaged, with
# foreign keys to namespaces) need.
ALL_APPS = list(settings.INSTALLED_APPS)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, available_apps=ALL_APPS),
]


def shot(browser, name: str) -> None:
    """A full-page screenshot: the window is stretched to the page's height first."""
    width = browser.get_window_size()["width"]
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(width, max(700, min(height + 120, 6000)))
    browser.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
    browser.set_window_size(width, 900)


def api_get(base: str, path: str, secret: str) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (http to live_server)
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def fill(browser, field_id: str, value: str) -> None:
    from selenium.webdriver.common.by import By

    element = browser.find_element(By.ID, field_id)
    element.clear()
    element.send_keys(value)


def navigate_by(browser, element) -> None:
    """Click something that loads a new page, and wait until the new page is there."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    old_page = browser.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(browser, 30).until(expected_conditions.staleness_of(old_page))
    WebDriverWait(browser, 30).until(
        lambda driver: driver.execute_script("return document.readyState") == "complete"
    )


def submit(browser, text: str) -> None:
    from selenium.webdriver.common.by import By

    navigate_by(browser, browser.find_element(By.XPATH, f"//button[normalize-space()='{text}']"))


def follow(browser, link_text: str) -> None:
    from selenium.webdriver.common.by import By

    navigate_by(browser, browser.find_element(By.LINK_TEXT, link_text))


def label_for(browser, field_id: str) -> str:
    from selenium.webdriver.common.by import By

    return browser.find_element(By.CSS_SELECTOR, f"label[for='{field_id}']").text


@pytest.fixture
def fresh_browser(browser, live_server):
    """The session's browser, signed out, with clipboard access for the live server."""
    browser.delete_all_cookies()
    browser.set_window_size(1280, 900)
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {
            "origin": live_server.url,
            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
        },
    )
    return browser


def test_a_person_signs_up_mints_a_key_makes_a_namespace_and_revokes_the_key(
    fresh_browser, live_server
):
    from selenium.webdriver.common.by import By

    browser, base = fresh_browser, live_server.url

    # Sign up.
    browser.get(base + "/signup/")
    assert label_for(browser, "id_account_id") == "Account id"
    shot(browser, "01-signup")
    fill(browser, "id_account_id", "e2e-co")
    fill(browser, "id_username", "erin")
    fill(browser, "id_password", "tangerine-kite-77")
    submit(browser, "Create account")
    assert browser.current_url == base + "/"
    assert "e2e-co" in browser.find_element(By.TAG_NAME, "h1").text
    shot(browser, "02-account")

    # Create a key: the secret is shown once, with a warning and a working copy button.
    follow(browser, "API keys")
    fill(browser, "id_name", "e2e app")
    submit(browser, "Create key")
    panel = browser.find_element(By.CSS_SELECTOR, "section.secret")
    assert "only time" in panel.text
    secret = browser.find_element(By.ID, "new-key-secret").get_attribute("value")
    assert secret.startswith("glk_")
    copy = panel.find_element(By.XPATH, ".//button[normalize-space()='Copy']")
    assert copy.is_displayed()
    copy.click()
    status = browser.find_element(By.ID, "copy-status")
    assert status.text == "Copied to the clipboard."
    clipboard = browser.execute_async_script(
        "const done = arguments[0]; navigator.clipboard.readText().then(done, e => done('ERR ' + e));"
    )
    assert clipboard == secret
    shot(browser, "03-key-created")
    assert api_get(base, "/v1/whoami", secret)[1]["account"] == "e2e-co"

    # The secret is gone from the page once we leave it.
    browser.get(base + "/keys/")
    assert secret not in browser.page_source
    assert secret[:12] in browser.page_source

    # Create a namespace.
    follow(browser, "Namespaces")
    shot(browser, "04-namespaces-empty")
    fill(browser, "id_name", "user-8213")
    submit(browser, "Create namespace")
    assert browser.current_url == base + "/namespaces/user-8213/"
    assert "Created namespace" in browser.page_source
    shot(browser, "05-namespace")
    status_code, body = api_get(base, "/v1/namespaces/user-8213", secret)
    assert (status_code, body["name"]) == (200, "user-8213")
    browser.get(base + "/namespaces/")
    shot(browser, "06-namespaces-list")

    # Revoke the key, after a confirmation page; the API refuses it from then on.
    browser.get(base + "/keys/")
    navigate_by(browser, browser.find_element(By.CSS_SELECTOR, "a[aria-label='Revoke e2e app']"))
    assert "cannot be undone" in browser.page_source
    shot(browser, "07-key-revoke-confirm")
    submit(browser, "Revoke this key")
    assert browser.current_url == base + "/keys/"
    assert "Requests using it are now refused" in browser.page_source
    shot(browser, "08-keys-after-revoke")
    status_code, body = api_get(base, "/v1/whoami", secret)
    assert status_code == 401
    assert body["error"]["code"] == "authentication_failed"


def test_deleting_a_namespace_in_the_browser_needs_its_name_typed(fresh_browser, live_server):
    from selenium.webdriver.common.by import By

    from namespaces.services import namespace_create
    from tests.fixtures_browser import PASSWORD, sign_up

    browser, base = fresh_browser, live_server.url
    user = sign_up(account_id="del-co", username="dee")
    namespace_create(account=user.memberships.get().account, name="old-user")

    browser.get(base + "/login/")
    shot(browser, "10-login")
    fill(browser, "id_username", "dee")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")
    browser.get(base + "/namespaces/old-user/delete/")
    button = browser.find_element(By.ID, "delete-button")
    assert not button.is_enabled()  # until the name is typed
    fill(browser, "id_confirm", "old-use")
    assert not button.is_enabled()
    shot(browser, "11-namespace-delete")
    browser.find_element(By.ID, "id_confirm").send_keys("r")
    assert button.is_enabled()
    navigate_by(browser, button)
    assert browser.current_url == base + "/namespaces/"
    assert "Deleted namespace “old-user”" in browser.page_source


def test_pages_fit_a_phone_screen(fresh_browser, live_server):
    from tests.fixtures_browser import PASSWORD, sign_up

    browser, base = fresh_browser, live_server.url
    sign_up(account_id="phone-co", username="phil")
    browser.set_window_size(390, 844)
    browser.get(base + "/login/")
    fill(browser, "id_username", "phil")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")
    for path, name in (("/keys/", "20-phone-keys"), ("/namespaces/", "21-phone-namespaces")):
        browser.get(base + path)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{path} scrolls sideways on a phone by {overflow}px"
        width = browser.get_window_size()["width"]
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(width, max(844, min(height + 120, 4000)))
        browser.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
        browser.set_window_size(390, 844)
