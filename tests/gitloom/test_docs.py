"""The project's docs stand alone in a clone, and docs/API.md lists every error code the
service declares (``gitloom.core.errors.REGISTRY``). No database."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
NOT_SERVICE_CODE = {"tests", "migrations"}
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_docs_link_only_to_files_in_the_repository():
    broken = []
    for doc in DOCS:
        text = doc.read_text()
        if "../shared" in text:
            broken.append(f"{doc.name}: mentions ../shared")
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address, or a place on the same page
            resolved = (doc.parent / target.split("#")[0]).resolve()
            if not resolved.is_relative_to(ROOT) or not resolved.exists():
                broken.append(f"{doc.name}: {target}")
    assert broken == []


def app_sources() -> list[Path]:
    """The service's own modules: every installed app that lives in this repository."""
    from django.apps import apps

    roots = [
        Path(config.path) for config in apps.get_app_configs() if Path(config.path).parent == ROOT
    ]
    return [
        path
        for root in roots
        for path in sorted(root.rglob("*.py"))
        if not NOT_SERVICE_CODE.intersection(path.relative_to(ROOT).parts)
    ]


def declared_errors() -> dict[str, type]:
    """Every error code the service declares: the registry, once every module of every
    app is imported (a class registers its code when its module is)."""
    from gitloom.core.errors import REGISTRY

    for path in app_sources():
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        importlib.import_module(module.removesuffix(".__init__"))
    return dict(REGISTRY)


def typed_codes(source: str) -> list[str]:
    """``code="..."`` passed as a string anywhere: a code typed at a raise site."""
    return [
        ast.unparse(node.value).strip("'\"")
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.keyword)
        and node.arg == "code"
        and isinstance(node.value, (ast.Constant, ast.JoinedStr))
    ]


def test_the_scan_finds_codes_typed_at_a_call():
    assert typed_codes("raise E('x', code='c')\nf(code=ERROR.code)\n") == ["c"]


def test_no_error_code_is_typed_at_a_raise_site():
    typed = {
        str(path.relative_to(ROOT)): codes
        for path in app_sources()
        if (codes := typed_codes(path.read_text()))
    }
    assert typed == {}, "declare a GitLoomError subclass with its code instead"


def test_an_error_code_cannot_be_passed_or_declared_twice():
    from gitloom.core.errors import InvalidInput, NotFound

    with pytest.raises(TypeError):
        InvalidInput("x", code="made_up")
    with pytest.raises(TypeError, match="declared twice"):
        type("Again", (NotFound,), {"code": "namespace_not_found"})


def test_api_docs_list_every_declared_error_code():
    codes = declared_errors()
    assert {"namespace_not_found", "dashboard_only", "malformed_json", "server_error"} <= set(codes)
    documented = set(re.findall(r"`([a-z_]+)`", (ROOT / "docs" / "API.md").read_text()))
    missing = sorted(set(codes) - documented)
    assert missing == [], f"docs/API.md's error section lacks {missing}"


def test_api_docs_error_table_matches_the_declared_codes_and_statuses():
    """Each row of the table in docs/API.md's "Errors" names codes that exist and answer
    with the row's status, so the table cannot list a code the API no longer has."""
    codes = declared_errors()
    text = (ROOT / "docs" / "API.md").read_text()
    section = text[text.index("## Errors") :]
    rows = re.findall(r"^\| ([0-9, ]+) \| [^|]+ \| (.+) \|$", section, re.MULTILINE)
    assert len(rows) >= 10
    wrong = []
    for statuses, cell in rows:
        allowed = {int(status) for status in statuses.split(",")}
        for code in re.findall(r"`([a-z_]+)`", cell):
            if code not in codes:
                wrong.append(f"{code}: not declared")
            elif codes[code].status not in allowed:
                wrong.append(f"{code}: listed under {statuses}, answers {codes[code].status}")
    assert wrong == []
