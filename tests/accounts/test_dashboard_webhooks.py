"""The webhook pages in a real headless Chromium against a live server: register an
endpoint (the signing secret shown once), see its deliveries, send one again."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from accounts.webhooks.delivery import send_due
from tests.fixtures_browser import *  # noqa: F403
from tests.fixtures_browser import PASSWORD, sign_up
from tests.support.webhook_receiver import Receiver
from tests.test_browser_e2e import fill, follow, navigate_by, shot, submit

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, available_apps=list(django_settings.INSTALLED_APPS)),
    pytest.mark.usefixtures("fresh_store"),
]


def test_register_see_the_secret_once_watch_deliveries_and_send_again(
    browser, live_server, settings
):
    from selenium.webdriver.common.by import By

    from accounts.models import Account
    from namespaces.services import namespace_create

    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True  # the receiver is on loopback
    sign_up(account_id="hooks-co", username="hana")
    browser.delete_all_cookies()
    base = live_server.url
    browser.get(base + "/login/")
    fill(browser, "id_username", "hana")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")

    with Receiver() as receiver:
        follow(browser, "Webhooks")
        shot(browser, "webhooks-01-empty")
        fill(browser, "id_url", receiver.url)
        browser.find_element(By.CSS_SELECTOR, "input[value='namespace.created']").click()
        submit(browser, "Register endpoint")
        secret = browser.find_element(By.ID, "new-webhook-secret").get_attribute("value")
        assert secret.startswith("whsec_")
        assert "only time the signing secret" in browser.page_source
        shot(browser, "webhooks-02-secret-once")
        browser.get(base + "/webhooks/")  # shown once: never again
        assert secret not in browser.page_source
        assert secret[:12] in browser.page_source  # its prefix identifies it

        namespace_create(account=Account.objects.get(id="hooks-co"), name="user-1")
        send_due("hooks-co", horizon=0)  # what a webhook worker does
        navigate_by(browser, browser.find_element(By.PARTIAL_LINK_TEXT, receiver.url))
        rows = browser.find_elements(By.CSS_SELECTOR, "#deliveries tbody tr")
        assert [r.get_attribute("data-status") for r in rows] == ["delivered"]
        assert "HTTP 204" in rows[0].text and "namespace.created" in rows[0].text
        shot(browser, "webhooks-03-delivered")

        navigate_by(
            browser, browser.find_element(By.XPATH, "//button[normalize-space()='Send again']")
        )
        assert "Queued namespace.created to be sent again." in browser.page_source
        statuses = [
            r.get_attribute("data-status")
            for r in browser.find_elements(By.CSS_SELECTOR, "#deliveries tbody tr")
        ]
        assert statuses == ["pending", "delivered"]
        send_due("hooks-co", horizon=0)
        browser.refresh()
        statuses = [
            r.get_attribute("data-status")
            for r in browser.find_elements(By.CSS_SELECTOR, "#deliveries tbody tr")
        ]
        assert statuses == ["delivered", "delivered"]
        shot(browser, "webhooks-04-sent-again")
        ids = receiver.ids()
    assert len(ids) == 2 and ids[0] == ids[1]  # the same webhook-id, sent twice


def test_a_local_receiver_is_refused_with_the_setting_named_then_edited_in_place(
    browser, live_server, settings
):
    """Without GITLOOM_WEBHOOK_ALLOW_LOCAL the hint says https:// only and refusing a
    loopback URL names the setting (and the restart); with it, the hint says local
    receivers are allowed; an endpoint's URL and events are changed on its page."""
    from selenium.webdriver.common.by import By

    from accounts.webhooks.models import Endpoint
    from accounts.webhooks.scope import account_scope

    def stored() -> list[Endpoint]:
        with account_scope("local-hooks"):
            return list(Endpoint.objects.all())

    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = False
    sign_up(account_id="local-hooks", username="lena")
    browser.delete_all_cookies()
    base = live_server.url
    browser.get(base + "/login/")
    fill(browser, "id_username", "lena")
    fill(browser, "id_password", PASSWORD)
    submit(browser, "Log in")

    with Receiver() as receiver:
        follow(browser, "Webhooks")
        hint = browser.find_element(By.ID, "id_url_helptext").text
        assert hint.startswith("https:// only"), hint
        fill(browser, "id_url", receiver.url)
        submit(browser, "Register endpoint")
        error = browser.find_element(By.ID, "id_url_error").text
        assert "GITLOOM_WEBHOOK_ALLOW_LOCAL=1" in error and "restart" in error, error
        shot(browser, "webhooks-05-local-refused")
        assert stored() == []

        settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True  # as after a restart with it set
        browser.get(base + "/webhooks/")
        hint = browser.find_element(By.ID, "id_url_helptext").text
        assert "https:// only" not in hint and "GITLOOM_WEBHOOK_ALLOW_LOCAL is on" in hint, hint
        fill(browser, "id_url", receiver.url)
        submit(browser, "Register endpoint")
        navigate_by(browser, browser.find_element(By.PARTIAL_LINK_TEXT, receiver.url))
        (endpoint,) = stored()
        secret_prefix = endpoint.secret_prefix

        browser.find_element(By.CSS_SELECTOR, "#edit-endpoint").find_element(
            By.XPATH, ".."
        ).find_element(By.TAG_NAME, "summary").click()
        assert browser.find_element(By.ID, "id_edit-url").get_attribute("value") == receiver.url
        boxes = browser.find_elements(By.CSS_SELECTOR, "input[name='edit-events']")
        checked = {box.get_attribute("value") for box in boxes if box.is_selected()}
        assert checked == set(endpoint.events)
        others = {box.get_attribute("value") for box in boxes} - checked
        for box in boxes:  # every event but the ones it had
            if box.is_selected() != (box.get_attribute("value") in others):
                box.click()
        new_url = receiver.url.rstrip("/") + "/v2"
        fill(browser, "id_edit-url", new_url)
        fill(browser, "id_edit-namespaces", "user-1, user-2")
        shot(browser, "webhooks-06-edit")
        submit(browser, "Save changes")
        assert f"Saved the endpoint {new_url}." in browser.page_source
        (endpoint,) = stored()
        assert endpoint.url == new_url and endpoint.namespaces == ["user-1", "user-2"]
        assert set(endpoint.events) == others
        assert endpoint.secret_prefix == secret_prefix  # the secret is unchanged
        lead = browser.find_element(By.CSS_SELECTOR, "p.lead").text
        assert "user-1, user-2" in lead and all(event in lead for event in endpoint.events)
        shot(browser, "webhooks-07-edited")

        # A bad edit changes nothing and says why, under the field.
        browser.find_element(By.CSS_SELECTOR, "details.card summary").click()
        fill(browser, "id_edit-url", "ftp://example.com/hook")
        submit(browser, "Save changes")
        assert "must start with https://" in browser.find_element(By.ID, "id_edit-url_error").text
        assert stored()[0].url == new_url
