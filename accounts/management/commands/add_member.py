import getpass
import sys

from django.core.management.base import BaseCommand, CommandError

from accounts.models import Membership
from accounts.selectors import account_get, user_exists
from accounts.services import membership_add
from gitloom.core.errors import GitLoomError


class Command(BaseCommand):
    help = (
        "Let a person sign in to an account's dashboard: a new user with a password, or an "
        "existing user (password unchanged). The password is asked for, or read from "
        "standard input with --password-stdin; it is never an argument."
    )
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument("account_id")
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--role",
            choices=Membership.Role.values,
            default=Membership.Role.OWNER,
            help="recorded and shown on the dashboard; both roles see the whole account",
        )
        parser.add_argument(
            "--password-stdin",
            action="store_true",
            help="read a new user's password from the first line of standard input",
        )

    def handle(self, *args, account_id, username, email, role, password_stdin, **options):
        self.stdin = options.get("stdin", sys.stdin)
        try:
            account = account_get(account_id=account_id)
            new_user = not user_exists(username=username)
            password = self.read_password(from_stdin=password_stdin) if new_user else None
            membership_add(
                account=account, username=username, password=password, email=email, role=role
            )
        except GitLoomError as exc:
            raise CommandError(exc.message) from None
        if new_user:
            self.stdout.write(f"Created user {username}, {role} of {account.id}.")
        else:
            self.stdout.write(
                f"Added {username} to {account.id} as {role}; their password is unchanged."
            )
        self.stdout.write("They can sign in to the dashboard at /login/.")

    def read_password(self, *, from_stdin: bool) -> str:
        if from_stdin:
            password = self.stdin.readline().rstrip("\r\n")
            if not password:
                raise CommandError("--password-stdin read an empty line; no password given.")
            return password
        if not self.stdin.isatty():
            raise CommandError(
                "No terminal to ask for the password: pass --password-stdin and send it on "
                "standard input."
            )
        password = getpass.getpass("Password: ")
        if password != getpass.getpass("Password (again): "):
            raise CommandError("The two passwords differ.")
        return password
