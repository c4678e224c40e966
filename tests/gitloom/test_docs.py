"""The project's docs stand alone in a clone, and docs/API.md lists every error code the
code can answer. Source scans: no database."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_SERVICE_CODE = {"tests", "migrations"}
LINK = re.compile(r"\]\(([^)\s]+)\)")


def service_sources() -> list[Path]:
    return [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if not NOT_SERVICE_CODE.intersection(path.relative_to(ROOT).parts)
        and not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
    ]


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


def error_codes(source: str) -> set[str]:
    """Codes a module declares (``code = ...`` on an error class) or passes (``code=...``,
    ``error_body("...")``, the DRF code table)."""
    codes = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg == "code":
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                codes.add(node.value.value)
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                if not isinstance(statement, ast.Assign):
                    continue
                target, value = statement.targets[0], statement.value
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                    pairs = zip(target.elts, value.elts, strict=False)
                else:
                    pairs = [(target, value)]
                codes.update(
                    constant.value
                    for name, constant in pairs
                    if isinstance(name, ast.Name)
                    and name.id == "code"
                    and isinstance(constant, ast.Constant)
                )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "error_body"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            codes.add(node.args[0].value)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_DRF_CODES" for t in node.targets
        ):
            codes.update(pair.elts[0].value for pair in node.value.values)
    return codes


def test_the_scan_finds_codes_however_they_are_declared():
    assert error_codes(
        "class A(E):\n    code = 'a'\n"
        "class B(E):\n    code, status, message = 'b', 400, 'B.'\n"
        "raise E('x', code='c')\n"
        "body = error_body('d', 'D.')\n"
        "_DRF_CODES = {X: ('e', 'E.')}\n"
    ) == {"a", "b", "c", "d", "e"}


def test_api_docs_list_every_error_code():
    documented = set(re.findall(r"`([a-z_]+)`", (ROOT / "docs" / "API.md").read_text()))
    codes = {code for path in service_sources() for code in error_codes(path.read_text())}
    assert {"namespace_not_found", "dashboard_only", "malformed_json"} <= codes
    missing = sorted(codes - documented)
    assert missing == [], f"docs/API.md's error section lacks {missing}"
