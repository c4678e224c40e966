"""Schemathesis hooks for the conformance run of /v1/schema (docs/OPERATIONS.md,
"Checking the API against its schema"): the import operation's raw bodies (a tar.gz, a
git bundle) are sent as the bytes schemathesis generates for them, as for any binary
body."""

import schemathesis

schemathesis.serializer.alias(
    ["application/gzip", "application/x-git-bundle"], "application/octet-stream"
)
