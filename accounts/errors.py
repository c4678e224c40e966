from gitloom.errors import Conflict, NotFound


class AccountExists(Conflict):
    code, message = "account_exists", "An account with that id already exists."


class AccountNotFound(NotFound):
    code, message = "account_not_found", "Account not found."


class ApiKeyNotFound(NotFound):
    code, message = "key_not_found", "API key not found."
