from django.core.management.base import BaseCommand, CommandError

from accounts.services import account_create
from gitloom.core.errors import GitLoomError


class Command(BaseCommand):
    help = "Create an account (id: 1-64 characters of a-z, 0-9 and '-')."

    def add_arguments(self, parser):
        parser.add_argument("account_id")

    def handle(self, *args, account_id: str, **options):
        try:
            account = account_create(account_id=account_id)
        except GitLoomError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"Created account {account.id}")
