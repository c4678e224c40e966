"""Settings come from the environment in one place, server/settings.py, and the README
lists every one of them. A source scan: it needs no database."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "server" / "settings.py"
# The test harness has knobs of its own (GITLOOM_TEST_DATA_DIR ...), read before Django.
NOT_SERVICE_CODE = {"tests", ".venv", ".gitloom", ".git", "node_modules"}
ENVIRON_READS = {"get", "pop", "__getitem__"}


def service_sources() -> list[Path]:
    return [
        path
        for path in sorted(ROOT.rglob("*.py"))
        if not NOT_SERVICE_CODE.intersection(path.relative_to(ROOT).parts)
        and not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
        and path != SETTINGS
    ]


def is_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def reads_a_gitloom_variable(key: ast.AST | None) -> bool:
    """A literal GITLOOM_* key, or a computed one (a helper that reads any name it is given)."""
    if isinstance(key, ast.Constant):
        return isinstance(key.value, str) and key.value.startswith("GITLOOM_")
    return True


def environment_key(node: ast.AST) -> tuple[bool, ast.AST | None]:
    """(True, the key) when ``node`` reads the environment, else (False, None)."""
    if isinstance(node, ast.Call):
        first = node.args[0] if node.args else None
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ENVIRON_READS:
            return is_environ(func.value), first
        if isinstance(func, ast.Attribute | ast.Name):
            name = func.attr if isinstance(func, ast.Attribute) else func.id
            return name == "getenv", first
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return is_environ(node.value), node.slice
    if isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
        return True, node.left
    return False, None


def environment_reads(source: str) -> list[tuple[int, str]]:
    """(line, code) of each place that reads a GITLOOM_* variable from the environment."""
    found = []
    for node in ast.walk(ast.parse(source)):
        reads, key = environment_key(node)
        if reads and reads_a_gitloom_variable(key):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_only_settings_reads_gitloom_variables_from_the_environment():
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {code}"
        for path in service_sources()
        for line, code in environment_reads(path.read_text())
    ]
    assert offenders == [], (
        "Read these in server/settings.py and use django.conf.settings:\n" + "\n".join(offenders)
    )


def test_the_scan_sees_the_ways_code_reads_the_environment():
    reads = environment_reads(
        "import os\nfrom os import environ, getenv\n"
        "a = os.environ.get('GITLOOM_A')\n"
        "b = os.environ['GITLOOM_B']\n"
        "c = os.getenv('GITLOOM_C', '1')\n"
        "d = getenv('GITLOOM_D')\n"
        "e = 'GITLOOM_E' in os.environ\n"
        "def setting(name):\n    return environ.get(name)\n"
        # not reads of a GITLOOM_* variable: a library's own variable, and writes
        "f = os.environ.get('PATH')\n"
        "os.environ.setdefault('HF_HUB_OFFLINE', '1')\n"
        "child = dict(os.environ, GITLOOM_SERVE_READY_DIR='/tmp/x')\n"
    )
    assert [line for line, _ in reads] == [3, 4, 5, 6, 7, 9]


def settings_variables() -> set[str]:
    """Every variable server/settings.py reads: env_str("NAME"), env_int("NAME") ..., and
    any other quoted GITLOOM_* name in it."""
    source = SETTINGS.read_text()
    names = set(re.findall(r'"(GITLOOM_[A-Z0-9_]+)"', source))
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.startswith("env_")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(node.args[0].value)
    return names


def test_every_setting_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", readme))
    variables = settings_variables()
    assert {"GITLOOM_DATA_DIR", "GITLOOM_LLM_TIMEOUT", "DATABASE_URL"} <= variables
    missing = sorted(variables - documented)
    assert missing == [], f"README.md's configuration table lacks {missing}"
