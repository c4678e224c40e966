from django.core.management.base import BaseCommand, CommandError

from accounts.selectors import account_get
from accounts.services import api_key_create
from gitloom.core.errors import GitLoomError


class Command(BaseCommand):
    help = "Create an API key for an account; the secret is printed alone on the last line."

    def add_arguments(self, parser):
        parser.add_argument("account_id")
        parser.add_argument("--name", default="cli")

    def handle(self, *args, account_id: str, name: str, **options):
        try:
            key, secret = api_key_create(account=account_get(account_id=account_id), name=name)
        except GitLoomError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"API key {key.name!r} ({key.prefix}…) for {account_id}; shown once:")
        self.stdout.write(secret)
