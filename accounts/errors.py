from gitloom.core.errors import Conflict, InvalidInput, NotFound
from gitloom.core.errors import NoAccount as NoAccount  # declared in core


class AccountExists(Conflict):
    code, message = "account_exists", "An account with that id already exists."


class AccountNotFound(NotFound):
    code, message = "account_not_found", "Account not found."


class ApiKeyNotFound(NotFound):
    code, message = "key_not_found", "API key not found."


class UsernameTaken(Conflict):
    code, message = "username_taken", "That username is taken."


class AlreadyMember(Conflict):
    code, message = "already_member", "That person is already a member of this account."


class WeakPassword(InvalidInput):
    code, message = "weak_password", "That password is too weak."


class InvalidUsername(InvalidInput):
    code, message = "invalid_username", "That is not a valid username."


class PasswordRequired(InvalidInput):
    code, message = "password_required", "A new user needs a password."


class WebhookNotFound(NotFound):
    code, message = "webhook_not_found", "Webhook endpoint not found."


class DeliveryNotFound(NotFound):
    code, message = "delivery_not_found", "Webhook delivery not found."


class InvalidWebhookUrl(InvalidInput):
    code, message = (
        "invalid_webhook_url",
        "A webhook URL is https:// and its host resolves to public addresses only.",
    )


class InvalidWebhookEvents(InvalidInput):
    code, message = "invalid_webhook_events", "Name one or more known event types."


class WebhookDisabled(Conflict):
    code, message = (
        "webhook_disabled",
        "This endpoint is disabled; enable it before sending deliveries to it again.",
    )
