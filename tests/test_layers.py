"""Domain modules import downward only, and the apps' import graph has no cycle.

The rule is written in docs/design/README.md ("Layers"). Bottom up:

    gitloom (the ground: gitloom.core) <- accounts <- namespaces <- namespaces.memory_format
        <- retrieval <- memories <- evaluation <- server (the shell)

A domain module is any module of those packages except the top of the house: apis,
views, admin, urls (``urls*.py``), forms, management commands (everything under
``management/``), migrations, and the process entry
points (settings, wsgi, gunicorn's config). A domain module may import its own layer
and the layers below it; imports inside functions count too. The file format is a leaf:
it imports nothing of the project but the core and its own error class (declared in
namespaces/errors.py, which imports only the core). The ground imports no app, and no
module of an app (the top of its house included) imports the shell: both hold for
every module, not only domain ones. Of the write path's two engines
(memories/extraction/model/, memories/extraction/offline/) a module outside
memories/extraction imports only what the engine's package exports, and the pipeline
imports neither.

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
    "evaluation",
    "server",
)
APPS = ("gitloom", "server", "accounts", "namespaces", "retrieval", "memories", "evaluation")
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


# The write path's two engines. Outside memories.extraction a module may take from an
# engine only the names its package exports (its __all__), never a module inside it; the
# pipeline takes nothing from either: the engine is picked in memories/extraction/__init__.py.
EXTRACTION = "memories.extraction"
ENGINES = ("memories.extraction.model", "memories.extraction.offline")
PIPELINE = "memories.extraction.pipeline"


def _engine_of(module: str) -> str | None:
    return next((e for e in ENGINES if module == e or module.startswith(f"{e}.")), None)


def _front(engine: str, root: Path) -> set[str]:
    """The names an engine's package exports: its ``__all__``."""
    init = root.joinpath(*engine.split("."), "__init__.py")
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def engine_imports(module: str, path: Path) -> list[tuple[int, str, bool]]:
    """(line, dotted name, inside?) for each import from an engine in the file, nested
    ones too; ``inside`` when it names a module inside the engine or a name its package
    does not export."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            pairs = [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            pairs = [(base, alias.name) for alias in node.names]
        else:
            continue
        for imported, name in pairs:
            engine = _engine_of(imported)
            if engine is None:
                # `from memories.extraction import model` imports the engine's package
                engine = _engine_of(f"{imported}.{name}") if name else None
                if engine is None:
                    continue
                found.append((node.lineno, f"{imported}.{name}", False))
                continue
            dotted = f"{imported}.{name}" if name else imported
            inside = imported != engine or bool(name) and name not in _front(engine, ROOT)
            found.append((node.lineno, dotted, inside))
    return found


def engine_internals_outside() -> list[str]:
    """``module:line -> name`` for each module outside memories.extraction that imports
    an engine's internals."""
    return [
        f"{module}:{line} -> {dotted}"
        for module, path in modules().items()
        if not (module == EXTRACTION or module.startswith(f"{EXTRACTION}."))
        for line, dotted, inside in engine_imports(module, path)
        if inside
    ]


def test_no_module_outside_extraction_imports_an_engines_internals():
    # The jobs, the evaluations and the shell call an engine by what its package
    # exports (ModelExtractor, ModelClient, the prompts' identity, OfflineExtractor):
    # its prompts, output schemas and word lists stay inside it.
    found = engine_internals_outside()
    assert found == [], "an engine's internals imported from outside it:\n" + "\n".join(found)


def test_the_pipeline_imports_no_engine():
    # The stages call an engine through the Extractor protocol (memories.extraction.types);
    # which engine runs is chosen in memories/extraction/__init__.py, not here.
    path = modules()[PIPELINE]
    found = [f"{line}: {dotted}" for line, dotted, _ in engine_imports(PIPELINE, path)]
    assert found == [], "memories/extraction/pipeline.py imports an engine:\n" + "\n".join(found)


def test_the_engine_checks_see_an_engine_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from memories.extraction.offline import OfflineExtractor\n"
        "from memories.extraction.model import ModelExtractor, prompts\n"
        "from memories.extraction.offline import NAME, statements\n"
        "def f():\n    from memories.extraction.offline.words import STOPWORDS\n"
        "import memories.extraction.model.output\n"
        "from memories.extraction import model\n"
        "from memories.extraction import run_pipeline\n"
    )
    assert engine_imports("memories.sample", sample) == [
        (1, "memories.extraction.offline.OfflineExtractor", False),
        (2, "memories.extraction.model.ModelExtractor", False),
        (2, "memories.extraction.model.prompts", True),
        (3, "memories.extraction.offline.NAME", False),
        (3, "memories.extraction.offline.statements", True),
        (6, "memories.extraction.model.output", True),
        (7, "memories.extraction.model", False),
        (5, "memories.extraction.offline.words.STOPWORDS", True),
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
