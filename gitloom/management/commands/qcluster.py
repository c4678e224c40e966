"""django-q2's ``qcluster``, refusing to start on a database whose pgvector fails.

Listed before ``django_q`` in INSTALLED_APPS, so this command wins the name.
"""

from __future__ import annotations

from django.core.management.base import CommandError
from django_q.management.commands.qcluster import Command as QClusterCommand

from gitloom.checks import vector_problem_message, vector_self_check


class Command(QClusterCommand):
    def handle(self, *args, **options):
        problem = vector_self_check()
        if problem is not None:
            raise CommandError(vector_problem_message(problem))
        return super().handle(*args, **options)
