"""The dashboard end to end in a real headless Chromium against a live server.

sign up → create a key (secret once, copy button, warning) → create a namespace →
import memories from the page → browse a memory, follow a link, read its history →
run a retrieval in the playground → revoke the key and see the API refuse it; and a
memory's blame → its job → revert it → the playground as of the job's commit. Every page
visited is saved under test-artifacts/screenshots/ for a person to look at.
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
    pytest.mark.usefixtures("fresh_store"),
]


UNLABELLED_CONTROLS = """
return Array.from(document.querySelectorAll('input, select, textarea'))
  .filter(el => !['hidden', 'submit', 'button'].includes(el.type))
  .filter(el => el.labels.length === 0 && !el.getAttribute('aria-label'))
  .map(el => el.outerHTML);
"""


def shot(browser, name: str) -> None:
    """A full-page screenshot (the window stretched to the page's height first), after
    checking what every page must have: one h1 and a label on every form control."""
    assert browser.execute_script(UNLABELLED_CONTROLS) == [], name
    assert len(browser.find_elements("tag name", "h1")) == 1, name
    width = browser.get_window_size()["width"]
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(width, max(700, min(height + 120, 6000)))
    browser.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
    browser.set_window_size(width, 900)


def api_get(base: str, path: str, secret: str, *, body: dict | None = None) -> tuple[int, dict]:
    """Call the API like an application would: urllib, a bearer key, JSON."""
    headers = {"Authorization": f"Bearer {secret}"}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers)
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
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    old_page = browser.find_element(By.TAG_NAME, "html")
    element.click()

    def old_page_gone(driver) -> bool:
        # Chromium answers a node of an unloaded document either as stale or, in the
        # middle of the navigation, with "Node with given id does not belong to the
        # document" (a plain WebDriverException); both mean the old page is gone.
        try:
            old_page.is_enabled()
        except WebDriverException:
            return True
        return False

    WebDriverWait(browser, 30).until(old_page_gone)
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


def test_a_person_signs_up_imports_browses_retrieves_and_revokes_their_key(
    fresh_browser, live_server, tmp_path, settings
):
    from selenium.webdriver.common.by import By

    from tests.support.archives import CAMERA, LENS, memory_bytes, sample_files, tar_gz

    browser, base = fresh_browser, live_server.url
    settings.GITLOOM_QUEUE_SYNC = True  # no worker cluster here: jobs run as they queue

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
    # the page says so once the clipboard's promise settles, which a loaded machine
    # may take a moment over
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda d: status.text)
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
    shot(browser, "05-namespace-empty")
    status_code, body = api_get(base, "/v1/namespaces/user-8213", secret)
    assert (status_code, body["name"]) == (200, "user-8213")

    # Import memories from the page, then a second version of one of them.
    first = tmp_path / "memories.tar.gz"
    first.write_bytes(tar_gz(sample_files()))
    follow(browser, "Export & import")
    shot(browser, "06-export-import")
    browser.find_element(By.ID, "id_archive").send_keys(str(first))
    submit(browser, "Import")
    assert browser.current_url == base + "/namespaces/user-8213/"
    assert "3 new, 0 changed, 0 removed" in browser.page_source
    second = tmp_path / "update.tar.gz"
    second.write_bytes(
        tar_gz(
            {
                CAMERA: memory_bytes(
                    "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru; "
                    "sold it in March 2027.",
                    cues=["what camera do I own", "Sony A7III purchase"],
                    tags=["camera", "purchase"],
                    related=[("same-purchase", LENS)],
                    sources=["msg-2041", "msg-3107"],
                )
            }
        )
    )
    follow(browser, "Export & import")
    browser.find_element(By.ID, "id_archive").send_keys(str(second))
    submit(browser, "Import")
    assert "0 new, 1 changed, 0 removed" in browser.page_source
    shot(browser, "07-memory-browser")
    status_code, body = api_get(base, "/v1/memories?namespace=user-8213", secret)
    assert status_code == 200 and len(body["memories"]) == 3

    # Browse a memory, follow its related link, come back, read its history.
    navigate_by(browser, browser.find_element(By.CSS_SELECTOR, f"a[title='{CAMERA}']"))
    assert browser.current_url == f"{base}/namespaces/user-8213/memories/{CAMERA}"
    assert "sold it in March 2027" in browser.find_element(By.CSS_SELECTOR, ".memory-body").text
    assert "what camera do I own" in browser.page_source
    shot(browser, "08-memory")
    navigate_by(browser, browser.find_element(By.LINK_TEXT, LENS))
    assert "FE 28-70mm kit lens" in browser.find_element(By.CSS_SELECTOR, ".memory-body").text
    browser.back()
    follow(browser, "History")
    versions = browser.find_elements(By.CSS_SELECTOR, "ol.results > li")
    assert len(versions) == 2
    added = [line.text for line in browser.find_elements(By.CSS_SELECTOR, ".diff .add")]
    assert any("sold it in March 2027" in line for line in added)
    shot(browser, "09-memory-history")

    # Ask the playground; it answers what the account's key gets from /v1/retrieve.
    follow(browser, "Retrieval playground")
    fill(browser, "id_query", "Sony A7III from Fotocentre")
    submit(browser, "Retrieve")
    results = browser.find_elements(By.CSS_SELECTOR, "ol.results > li")
    assert results
    top = results[0].find_element(By.CSS_SELECTOR, ".result-head a")
    assert top.get_attribute("href") == f"{base}/namespaces/user-8213/memories/{CAMERA}"
    assert "lexical #1" in results[0].text
    assert " ms" in browser.find_element(By.ID, "results-title").text
    shot(browser, "10-playground")
    shown = [li.find_element(By.CSS_SELECTOR, ".result-head a").text for li in results]
    status_code, body = api_get(
        base, "/v1/retrieve?namespace=user-8213&query=Sony+A7III+from+Fotocentre", secret
    )
    assert [result["path"] for result in body["results"]] == shown

    # A conversation posted with the key becomes a job; the Jobs page shows what it did.
    status_code, body = api_get(
        base,
        "/v1/memories",
        secret,
        body={
            "namespace": "user-8213",
            "session_id": "chat-1",
            "messages": [
                {
                    "role": "user",
                    "id": "msg-5001",
                    "content": "I adopted a beagle puppy named Biscuit from the Bengaluru shelter.",
                }
            ],
        },
    )
    assert status_code == 202, body
    job_id = body["job"]["id"]
    follow(browser, "Jobs")
    row = browser.find_element(By.XPATH, f"//a[normalize-space()='{job_id[:8]}']")
    shot(browser, "11-jobs")
    navigate_by(browser, row)
    assert "Done" in browser.find_element(By.TAG_NAME, "h2").text
    touched = browser.find_elements(By.CSS_SELECTOR, "main dl.meta a")
    assert touched, "the job page links the memories it wrote"
    shot(browser, "11b-job")
    navigate_by(browser, touched[0])
    assert "Biscuit" in browser.find_element(By.CSS_SELECTOR, ".memory-body").text

    browser.get(base + "/namespaces/")
    count = browser.find_element(By.XPATH, "//tr[td/a[normalize-space()='user-8213']]/td[2]")
    _, listed = api_get(base, "/v1/memories?namespace=user-8213&limit=200", secret)
    assert int(count.text) == len(listed["memories"]) > 3
    shot(browser, "12-namespaces-list")

    # Revoke the key, after a confirmation page; the API refuses it from then on.
    browser.get(base + "/keys/")
    navigate_by(browser, browser.find_element(By.CSS_SELECTOR, "a[aria-label='Revoke e2e app']"))
    assert "cannot be undone" in browser.page_source
    shot(browser, "13-key-revoke-confirm")
    submit(browser, "Revoke this key")
    assert browser.current_url == base + "/keys/"
    assert "Requests using it are now refused" in browser.page_source
    shot(browser, "14-keys-after-revoke")
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
    shot(browser, "15-login")
    fill(browser, "id_username", "dee")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")
    browser.get(base + "/namespaces/old-user/delete/")
    button = browser.find_element(By.ID, "delete-button")
    assert not button.is_enabled()  # until the name is typed
    fill(browser, "id_confirm", "old-use")
    assert not button.is_enabled()
    shot(browser, "16-namespace-delete")
    browser.find_element(By.ID, "id_confirm").send_keys("r")
    assert button.is_enabled()
    navigate_by(browser, button)
    assert browser.current_url == base + "/namespaces/"
    assert "Deleted namespace “old-user”" in browser.page_source


def test_pages_fit_a_phone_screen(fresh_browser, live_server):
    from memories.services import memory_import
    from namespaces.services import namespace_create
    from tests.fixtures_browser import PASSWORD, sign_up
    from tests.support.archives import CAMERA, sample_files, tar_gz

    browser, base = fresh_browser, live_server.url
    user = sign_up(account_id="phone-co", username="phil")
    namespace = namespace_create(account=user.memberships.get().account, name="phone-notes")
    memory_import(namespace=namespace, data=tar_gz(sample_files()))
    browser.set_window_size(390, 844)
    browser.get(base + "/login/")
    fill(browser, "id_username", "phil")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")
    pages = [
        ("/keys/", "20-phone-keys"),
        ("/namespaces/", "21-phone-namespaces"),
        ("/namespaces/phone-notes/", "22-phone-browser"),
        (f"/namespaces/phone-notes/memories/{CAMERA}", "23-phone-memory"),
        (f"/namespaces/phone-notes/history/{CAMERA}", "24-phone-history"),
        (
            "/namespaces/phone-notes/retrieve/?query=Sony+camera&arms=lexical&arms=semantic&arms=graph",
            "25-phone-playground",
        ),
    ]
    for path, name in pages:
        browser.get(base + path)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{path} scrolls sideways on a phone by {overflow}px"
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(390, max(844, min(height + 120, 4000)))
        browser.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
        browser.set_window_size(390, 844)


def test_keyboard_users_get_a_skip_link_and_a_visible_focus_ring(fresh_browser, live_server):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser, base = fresh_browser, live_server.url
    browser.get(base + "/signup/")  # (the login page focuses its first field itself)
    ActionChains(browser).send_keys(Keys.TAB).perform()
    focused = browser.switch_to.active_element
    assert focused.text == "Skip to content"
    assert focused.is_displayed()
    ActionChains(browser).send_keys(Keys.TAB).perform()  # on to the next link
    assert browser.switch_to.active_element.text.endswith("GitLoom")
    outline = browser.execute_script(
        "const s = getComputedStyle(document.activeElement);"
        "return [s.outlineStyle, parseFloat(s.outlineWidth)];"
    )
    assert outline[0] != "none" and outline[1] >= 2


def test_blame_revert_and_as_of_in_the_browser(fresh_browser, live_server, settings):
    """A memory's page says which job and message wrote each line; the job's page
    reverts it after asking; the playground still finds it as of the job's commit."""
    from selenium.webdriver.common.by import By

    from accounts.services import api_key_create
    from namespaces.services import namespace_create
    from tests.fixtures_browser import PASSWORD, sign_up

    browser, base = fresh_browser, live_server.url
    settings.GITLOOM_QUEUE_SYNC = True  # no worker cluster here: jobs run as they queue
    user = sign_up(account_id="undo-co", username="uma")
    account = user.memberships.get().account
    namespace_create(account=account, name="user-1")
    _, secret = api_key_create(account=account, name="app")
    status_code, body = api_get(
        base,
        "/v1/memories",
        secret,
        body={
            "namespace": "user-1",
            "session_id": "chat-7",
            "messages": [
                {
                    "role": "user",
                    "id": "msg-7001",
                    "content": "I adopted a beagle puppy named Biscuit from the Pune shelter.",
                }
            ],
        },
    )
    assert status_code == 202, body
    job_id = body["job"]["id"]
    status_code, body = api_get(base, f"/v1/jobs/{job_id}", secret)
    job = body["job"]
    assert job["status"] == "done" and job["result"]["created"], job
    path = job["result"]["created"][0]

    browser.get(base + "/login/")
    fill(browser, "id_username", "uma")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")

    # Blame: each run of lines names the job and the message it came from.
    browser.get(f"{base}/namespaces/user-1/memories/{path}")
    blame = browser.find_element(By.CSS_SELECTOR, "table.blame")
    assert "msg-7001" in blame.text and "Pune shelter" in blame.text
    assert "chat-7" in blame.text
    shot(browser, "30-memory-blame")
    navigate_by(browser, blame.find_element(By.LINK_TEXT, job_id[:8]))
    assert browser.current_url == f"{base}/namespaces/user-1/jobs/{job_id}/"

    # Revert: the job page asks first, then one commit undoes it.
    follow(browser, "Revert this job…")
    assert path in browser.page_source
    shot(browser, "31-job-revert-confirm")
    submit(browser, "Revert this job")
    assert browser.current_url == f"{base}/namespaces/user-1/jobs/{job_id}/"
    assert "Reverted in commit" in browser.page_source and "1 removed" in browser.page_source
    shot(browser, "32-job-reverted")
    status_code, body = api_get(base, f"/v1/memories/{path}?namespace=user-1", secret)
    assert status_code == 404 and body["error"]["code"] == "memory_not_found"

    # As of the job's commit, the playground still finds the memory; a bad as_of is
    # explained next to the field.
    browser.get(f"{base}/namespaces/user-1/retrieve/")
    fill(browser, "id_query", "beagle puppy Biscuit")
    fill(browser, "id_as_of", job["commit"][:10])
    submit(browser, "Retrieve")
    shown = [
        a.text for a in browser.find_elements(By.CSS_SELECTOR, "ol.results > li .result-head a")
    ]
    assert path in shown
    shot(browser, "33-playground-as-of")
    fill(browser, "id_as_of", "yesterday")
    submit(browser, "Retrieve")
    assert "as_of must be a commit id" in browser.page_source
    assert not browser.find_elements(By.CSS_SELECTOR, "ol.results > li")


def test_a_newcomer_remembers_a_conversation_from_the_namespace_page(fresh_browser, live_server):
    """No key, no curl: the namespace page's form posts a conversation to the write path
    and the job's page follows it (no reload) until it is done, with what it created;
    a correction posted the same way shows what it rewrote."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from memories.jobs import drain_namespace
    from namespaces.services import namespace_create
    from tests.fixtures_browser import PASSWORD, sign_up

    browser, base = fresh_browser, live_server.url
    user = sign_up(account_id="new-co", username="nina")
    namespace = namespace_create(account=user.memberships.get().account, name="default")
    browser.get(base + "/login/")
    fill(browser, "id_username", "nina")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")

    browser.get(f"{base}/namespaces/default/")
    assert label_for(browser, "id_conversation").startswith("Conversation")
    # The empty state's curl example stays inside its column: it scrolls in its box,
    # the page itself does not scroll sideways.
    spill = browser.execute_script(
        "const pre = document.querySelector('section pre');"
        "const main = document.querySelector('main').getBoundingClientRect();"
        "return [document.documentElement.scrollWidth - document.documentElement.clientWidth,"
        " pre.getBoundingClientRect().right - main.right];"
    )
    assert spill[0] <= 0 and spill[1] <= 0, spill
    shot(browser, "40-namespace-remember-form")

    def badge(driver) -> str:
        # Read in one script: the page swaps #job-live's content while it follows the job.
        return driver.execute_script(
            "const b = document.querySelector('#job-live .badge'); return b ? b.textContent : '';"
        )

    def remember(text: str) -> str:
        fill(browser, "id_conversation", text)
        submit(browser, "Remember")
        assert "/namespaces/default/jobs/" in browser.current_url
        assert "Queued" in badge(browser)
        assert "follows the job" in browser.page_source
        browser.execute_script("window.stillThisPage = true;")
        return browser.current_url

    remember("user: My favourite colour is green.\nassistant: Lovely colour!")
    shot(browser, "41-job-following")
    drain_namespace(namespace.pk)  # the queue's worker, in this test's thread
    WebDriverWait(browser, 60).until(lambda d: "Done" in badge(d))
    assert browser.execute_script("return window.stillThisPage === true")  # swapped, not reloaded
    live = browser.find_element(By.ID, "job-live").text
    assert "New" in live and "colour" in live and "follows the job" not in live
    shot(browser, "42-job-done-created")

    browser.get(f"{base}/namespaces/default/")
    remember("user: Actually my favourite colour is blue now.")
    drain_namespace(namespace.pk)
    WebDriverWait(browser, 60).until(lambda d: "Done" in badge(d))
    assert "Rewritten" in browser.find_element(By.ID, "job-live").text
    shot(browser, "43-job-done-rewritten")

    # An empty conversation is refused beside the field, and nothing is queued.
    browser.get(f"{base}/namespaces/default/")
    fill(browser, "id_conversation", "   ")
    submit(browser, "Remember")
    assert "/remember/" in browser.current_url
    assert browser.find_elements(By.CSS_SELECTOR, ".errors[role=alert]")


def test_history_wraps_long_lines_and_marks_the_changed_word(fresh_browser, live_server):
    """A one-word correction in a long memory: the history's diff wraps (no sideways
    scrolling) and marks the word that changed; the forget page says which memory it
    touches; the purge has its own tab; times read alike; an operator is sent to the
    admin."""
    from django.contrib.auth import get_user_model
    from selenium.webdriver.common.by import By

    from memories.services import memory_delete, memory_import
    from namespaces.services import namespace_create
    from tests.fixtures_browser import PASSWORD, sign_up
    from tests.support.archives import memory_bytes, tar_gz

    browser, base = fresh_browser, live_server.url
    user = sign_up(account_id="long-co", username="lena")
    account = user.memberships.get().account
    namespace = namespace_create(account=account, name="default")
    path, dog = "facts/home/long-note-00000001.md", "facts/pets/dog-00000002.md"
    words = " ".join(f"word{i}" for i in range(60))
    memory_import(
        namespace=namespace,
        data=tar_gz(
            {
                path: memory_bytes(
                    f"{words} my favourite colour is green {words}",
                    cues=["favourite colour"],
                    related=[("same-home", dog)],
                ),
                dog: memory_bytes("A beagle named Biscuit.", cues=["what dog do I have"]),
            }
        ),
    )
    memory_import(
        namespace=namespace,
        data=tar_gz(
            {
                path: memory_bytes(
                    f"{words} my favourite colour is blue {words}",
                    cues=["favourite colour"],
                    related=[("same-home", dog)],
                ),
            }
        ),
    )
    browser.get(base + "/login/")
    fill(browser, "id_username", "lena")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")

    browser.get(f"{base}/namespaces/default/history/{path}")
    diff = browser.find_elements(By.CSS_SELECTOR, ".diff")[0]
    assert browser.execute_script(
        "return arguments[0].scrollWidth <= arguments[0].clientWidth", diff
    )
    marked = [m.text for m in diff.find_elements(By.TAG_NAME, "mark")]
    assert "green" in marked and "blue" in marked and not any("word1" in m for m in marked)
    shot(browser, "44-history-word-diff")

    browser.get(f"{base}/namespaces/default/forget/{dog}")
    assert path in browser.find_element(By.ID, "main").text
    shot(browser, "45-forget-names-linked")
    memory_delete(namespace=namespace, path=dog)

    browser.get(f"{base}/namespaces/default/purge/")
    assert "Purge everything about" in browser.page_source
    shot(browser, "46-purge-tab")
    browser.get(f"{base}/namespaces/default/data/")
    assert "Purge everything about" not in browser.page_source
    shot(browser, "47-export-import")

    browser.get(f"{base}/keys/")
    shot(browser, "48-keys")

    # An operator (createsuperuser, no account) opening the dashboard gets the admin.
    get_user_model().objects.create_superuser("root", password=PASSWORD)
    browser.delete_all_cookies()
    browser.get(base + "/login/")
    fill(browser, "id_username", "root")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")
    browser.get(f"{base}/namespaces/")
    assert browser.current_url == f"{base}/admin/", browser.current_url


def test_what_a_newcomer_tripped_over_on_the_dashboard(fresh_browser, live_server, settings):
    """Sign-up shows every refusal at once, each under its field; a new key's "Try it"
    curl carries the whole key and works as pasted; a job's "Linked" shows its links
    (from → to), not its new files again; a reverted job says so, links its revert
    commit and offers no second revert."""
    import shlex
    import subprocess

    from selenium.webdriver.common.by import By

    from namespaces.services import namespace_create
    from tests.fixtures_browser import PASSWORD, sign_up

    browser, base = fresh_browser, live_server.url
    settings.GITLOOM_QUEUE_SYNC = True  # no worker cluster here: jobs run as they queue
    user = sign_up(account_id="tripped-co", username="tess")

    # Three refusals in one submit, each beside its field; nothing at the top.
    browser.get(base + "/signup/")
    fill(browser, "id_account_id", "tripped-co")
    fill(browser, "id_username", "Tess")  # usernames differ by more than case
    fill(browser, "id_password", "password")  # long enough, but a common one
    submit(browser, "Create account")
    errors = {
        field: browser.find_element(By.ID, f"id_{field}_error").text
        for field in ("account_id", "username", "password")
    }
    assert "already exists" in errors["account_id"], errors
    assert "taken" in errors["username"], errors
    assert "common" in errors["password"], errors
    assert not browser.find_elements(By.CSS_SELECTOR, "form > .errors"), "a form-level error"
    shot(browser, "50-signup-every-error")

    browser.get(base + "/login/")
    fill(browser, "id_username", "tess")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")
    follow(browser, "API keys")
    fill(browser, "id_name", "curl")
    submit(browser, "Create key")
    secret = browser.find_element(By.ID, "new-key-secret").get_attribute("value")
    command = browser.find_element(By.ID, "new-key-curl").get_attribute("value")
    assert secret in command and "…" not in command, command
    shot(browser, "51-key-try-it")
    pasted = subprocess.run(  # as a person pastes it: the words of the command, no shell
        shlex.split(command), capture_output=True, text=True, timeout=30, check=True
    )
    assert json.loads(pasted.stdout)["account"] == "tripped-co", pasted.stdout

    # One message with two facts, the second continuing the first ("his"): two new
    # memories, linked to each other.
    namespace_create(account=user.memberships.get().account, name="default")
    status_code, body = api_get(
        base,
        "/v1/memories",
        secret,
        body={
            "messages": [
                {
                    "role": "user",
                    "content": "I have a dog named Biscuit. His favourite colour is green.",
                }
            ]
        },
    )
    assert status_code == 202, body
    job = api_get(base, f"/v1/jobs/{body['job']['id']}", secret)[1]["job"]
    created = job["result"]["created"]
    assert job["status"] == "done" and len(created) == 2, job
    browser.get(f"{base}/namespaces/default/jobs/{job['id']}/")
    links = browser.find_elements(By.CSS_SELECTOR, "#job-links li")
    assert links, browser.find_element(By.ID, "job-live").text
    for item in links:
        ends = [a.text for a in item.find_elements(By.TAG_NAME, "a")]
        assert len(ends) == 2 and ends[0] != ends[1] and "→" in item.text, item.text
        assert set(ends) <= set(created)
    shot(browser, "52-job-linked")

    follow(browser, "Revert this job…")
    submit(browser, "Revert this job")
    assert "Reverted in commit" in browser.page_source
    assert browser.find_element(By.CSS_SELECTOR, "#job-live h2 .badge.failed").text == "Reverted"
    assert not browser.find_elements(By.LINK_TEXT, "Revert this job…")
    notice = browser.find_element(By.ID, "reverted")
    assert "2 memories it created removed" in notice.text, notice.text
    shot(browser, "53-job-reverted")
    commit_link = notice.find_element(By.TAG_NAME, "a")
    revert_commit = commit_link.get_attribute("href").rsplit("#commit-", 1)[1]
    navigate_by(browser, commit_link)
    assert browser.find_element(By.ID, f"commit-{revert_commit}")  # the history, at it

    browser.get(f"{base}/namespaces/default/jobs/{job['id']}/revert/")
    assert "already reverted" in browser.page_source and "It will remove" not in browser.page_source
    assert not browser.find_elements(By.XPATH, "//button[normalize-space()='Revert this job']")
    shot(browser, "54-revert-page-already-reverted")
