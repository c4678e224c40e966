"""Domain modules import downward only, and the apps' import graph has no cycle.

The rule is written in docs/design/README.md ("Layers"). Bottom up:

    gitloom (the ground: gitloom.core) <- accounts <- namespaces <- namespaces.memory_format
        <- retrieval <- memories <- server (the shell)

A domain module is any module of those packages except the top of the house: apis,
views, admin, urls (``urls*.py``), forms, management commands (everything under
``management/``, the evaluation harnesses included), migrations, and the process entry
points (settings, wsgi, gunicorn's config). A domain module may import its own layer
and the layers below it; imports inside functions count too. The file format is a leaf:
it imports nothing of the project but the core and its own error class (declared in
namespaces/errors.py, which imports only the core). The ground imports no app, and no
module of an app (the top of its house included) imports the shell: both hold for
every module, not only domain ones. The pipeline imports no engine's internals.

``python tests/test_layers.py`` prints the app graph (with ``--all``: every module,
the top of the house included) and each import behind an edge (``-v``).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = (
    "gitloom",
    "accounts",
    "namespaces",
    "namespaces.memory_format",
    "retrieval",
    "memories",
    "server",
)
APPS = ("gitloom", "server", "accounts", "namespaces", "retrieval", "memories")
TOP_MODULES = {"apis", "views", "admin", "forms"}
ENTRY_POINTS = {"server.settings", "server.wsgi", "server.gunicorn_conf"}


def modules() -> dict[str, Path]:
    """Every module of the apps: dotted name -> file."""
    found = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def is_domain(module: str) -> bool:
    parts = module.split(".")
    if module in ENTRY_POINTS or "management" in parts or "migrations" in parts:
        return False
    return not (parts[-1] in TOP_MODULES or parts[-1].startswith("urls"))


def layer(module: str) -> str:
    for name in sorted(LAYERS, key=len, reverse=True):
        if module == name or module.startswith(name + "."):
            return name
    raise ValueError(module)


def imports(module: str, path: Path, known: dict[str, Path]) -> list[tuple[int, str]]:
    """(line, imported project module) for every import in the file, nested ones too."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from namespaces import memory_format` imports a module, not a name.
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for name in dict.fromkeys(names):
            if name.split(".")[0] in APPS:
                found.append((node.lineno, name))
    return found


def edges(*, domain_only: bool = True) -> dict[tuple[str, str], list[str]]:
    """(from layer, to layer) -> the imports behind it, between different layers."""
    known = modules()
    graph: dict[tuple[str, str], list[str]] = defaultdict(list)
    for module, path in known.items():
        if domain_only and not is_domain(module):
            continue
        for line, target in imports(module, path, known):
            source_layer, target_layer = layer(module), layer(target)
            if source_layer != target_layer:
                graph[(source_layer, target_layer)].append(f"{module}:{line} -> {target}")
    return graph


def cycles(adjacent: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of a directed graph (each found once, from where a DFS first meets it)."""
    found, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(adjacent.get(node, ())):
            if state.get(nxt) == "open":
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = "done"

    for node in sorted(adjacent):
        if node not in state:
            visit(node, [node])
    return found


def layer_graph(edges_: dict[tuple[str, str], list[str]]) -> dict[str, set[str]]:
    adjacent: dict[str, set[str]] = defaultdict(set)
    for source, target in edges_:
        adjacent[source].add(target)
    return adjacent


def module_graph() -> dict[str, set[str]]:
    """Domain module -> the project modules it imports (a package is its ``__init__``)."""
    known = modules()
    return {
        module: {target for _, target in imports(module, path, known) if target != module}
        for module, path in known.items()
        if is_domain(module)
    }


def test_domain_modules_import_only_their_own_layer_or_below():
    rank = {name: i for i, name in enumerate(LAYERS)}
    upward = [
        line
        for (source, target), lines in sorted(edges().items())
        if rank[target] > rank[source]
        for line in lines
    ]
    assert upward == [], "upward imports (see docs/design/README.md, Layers):\n" + "\n".join(upward)


def test_the_apps_import_graph_has_no_cycle():
    assert cycles(layer_graph(edges())) == []


def test_domain_modules_import_each_other_without_a_cycle():
    # Within an app too: an import cycle "broken" by a function-level import is still one
    # (the write path's queue and services, the pipeline and its offline extractor were).
    assert cycles(module_graph()) == []


def test_the_memory_file_format_is_a_leaf_on_the_core():
    # Its one error class is declared with the namespaces app's (namespaces/errors.py),
    # a module that itself imports only the core.
    reached = {target for (source, target) in edges() if source == "namespaces.memory_format"}
    assert reached <= {"gitloom", "namespaces"}
    known = modules()
    into_namespaces = {
        target
        for module, path in known.items()
        if layer(module) == "namespaces.memory_format"
        for _, target in imports(module, path, known)
        if layer(target) == "namespaces"
    }
    assert into_namespaces <= {"namespaces.errors"}
    errors_imports = imports("namespaces.errors", known["namespaces.errors"], known)
    assert {layer(target) for _, target in errors_imports} <= {"gitloom"}


def test_the_ground_imports_no_app():
    # Every module of gitloom/ (the core, its app config and migrations), not only domain ones.
    graph = edges(domain_only=False)
    reached = [
        line
        for (source, _), lines in sorted(graph.items())
        if source == "gitloom"
        for line in lines
    ]
    assert reached == [], "\n".join(reached)


def test_no_app_imports_the_project_shell():
    # Settings, urls, commands and the MCP server sit above every app: an app that
    # imported one would stand on the top of the house.
    into_shell = [
        line
        for (source, target), lines in sorted(edges(domain_only=False).items())
        if target == "server" and source != "server"
        for line in lines
    ]
    assert into_shell == [], "\n".join(into_shell)


# The write path's engines: the one name the pipeline may take from each engine's front
# (the stage that picks the engine), and the modules that are an engine's internals.
ENGINE_FRONTS = {
    "memories.offline": {"OfflineExtractor"},
    "memories.model_extractor": {"ModelExtractor"},
}
ENGINE_PACKAGES = ("memories.offline",)  # each module under it is internal
ENGINE_MODULES = ("memories.prompts", "memories.model_output")


def _internal(module: str) -> bool:
    return module in ENGINE_MODULES or any(module.startswith(f"{p}.") for p in ENGINE_PACKAGES)


def engine_internals_imported(path: Path) -> list[str]:
    """``line: module.name`` for each import of an engine's internals in the file: a
    module inside an engine, or from an engine's front anything but the engine."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            pairs = [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            pairs = [(node.module or "", alias.name) for alias in node.names]
        else:
            continue
        for module, name in pairs:
            dotted = f"{module}.{name}" if name else module
            if module in ENGINE_FRONTS:
                bad = name not in ENGINE_FRONTS[module]
            else:  # `from memories.offline.words import X`, `from memories import prompts`
                bad = _internal(module) or bool(name) and _internal(dotted)
            if bad:
                found.append((node.lineno, dotted))
    return [f"{line}: {dotted}" for line, dotted in sorted(found)]


def test_the_pipeline_imports_no_engines_internals():
    # The pipeline's stages call an engine through the Extractor interface
    # (memories.pipeline_types); what an engine needs inside (the offline extractor's
    # word lists, the model's prompts and output schemas) stays inside it.
    found = engine_internals_imported(ROOT / "memories" / "pipeline.py")
    assert found == [], "memories/pipeline.py imports an engine's internals:\n" + "\n".join(found)


def test_the_engine_check_sees_an_internal_import(tmp_path):
    sample = tmp_path / "pipeline.py"
    sample.write_text(
        "from memories.offline import OfflineExtractor\n"
        "from memories.model_extractor import ModelExtractor\n"
        "from memories.offline import STOPWORDS\n"
        "def f():\n    from memories.offline.words import STOPWORDS\n"
        "from memories import prompts\n"
    )
    assert engine_internals_imported(sample) == [
        "3: memories.offline.STOPWORDS",
        "5: memories.offline.words.STOPWORDS",
        "6: memories.prompts",
    ]


def test_the_layer_check_sees_an_upward_import(tmp_path, monkeypatch):
    # The check itself must be able to fail: a namespaces module importing retrieval.
    fake = tmp_path / "namespaces"
    fake.mkdir()
    (fake / "oops.py").write_text("def f():\n    from retrieval.services import x\n")
    for app in APPS:
        if app != "namespaces":
            (tmp_path / app).symlink_to(ROOT / app)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    graph = edges()
    assert graph[("namespaces", "retrieval")] == ["namespaces.oops:2 -> retrieval.services"]
    assert cycles(layer_graph(graph)) == [["namespaces", "retrieval", "namespaces"]]


if __name__ == "__main__":
    for (source, target), lines in sorted(edges(domain_only="--all" not in sys.argv).items()):
        print(f"{source} -> {target}")
        if "-v" in sys.argv:
            for line in lines:
                print(f"    {line}")
    print("cycles:", cycles(layer_graph(edges(domain_only="--all" not in sys.argv))) or "none")
    print("module cycles:", cycles(module_graph()) or "none")
