"""Namespaces, the memory file format (``memory_format.py``), the git repository of each
namespace in object storage (``repository/``, ``storage.py``), and the one namespace
scope every entry point resolves a name with (``apis.namespace_requested``,
``selectors.namespace_get_for_account``). Design: docs/design/namespaces.md and
docs/design/api.md ("Scope once")."""
