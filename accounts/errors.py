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
