"""The memories app's /v1/ API, one module per resource (routes in ``memories/urls.py``).

memories.py     list, post a transcript, read, forget
provenance.py   history, blame, changes since a commit
purges.py       purge a memory, purge a string from a namespace
jobs.py         list, status, revert (``JobScopedApi`` resolves the job once)
transfer.py     export and import a namespace
serializers.py  the responses' serializers
examples.py     the schema's examples
common.py       error groups and parameters several operations share
"""
