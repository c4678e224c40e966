"""A password hasher for the test process: Django's PBKDF2-SHA256, at fewer rounds.

Production's hasher runs 1,000,000 rounds (~0.25 s a password on a 2-core machine), and
the suite hashes hundreds of passwords: every sign-up, every login form, and every
login of an unknown user (Django hashes once there too, against timing attacks). Same
algorithm and hash format, so hashes written by service processes the tests start
(``manage.py`` commands, ``serve``) still verify here; only the work factor differs.
"""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FastPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1_000
