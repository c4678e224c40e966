"""The ground every app stands on: ``gitloom.core`` (errors, the JSON envelope, throttles,
slugs, the dashboard's base, the database checks and backend), this app's registration
of the core's checks, the throttle tables' migrations, and the static files. It imports
no app. The design, read in order: docs/design/README.md (the layers, and why the shell
is ``server/``); the core's parts: docs/design/api.md.
"""
