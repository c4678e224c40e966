"""WSGI entry point (gunicorn: ``gitloom.wsgi:application``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gitloom.settings")
application = get_wsgi_application()
