"""The habits that keep the code readable: no import circles, a run's configuration never
written into the process environment, the replay server off the runtime import path, and the
slow libraries loaded by the steps that use them, not with the graph."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "scholargraph"


def module_files() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


class _Imports(ast.NodeVisitor):
    """The package modules one module imports, anywhere in it (functions included), except in
    ``if TYPE_CHECKING:`` blocks; importing a submodule is not importing its parent."""

    def __init__(self, modules: dict[str, Path]) -> None:
        self.modules = modules
        self.found: set[str] = set()

    def _known(self, name: str) -> str | None:
        while name and name not in self.modules:
            name = name.rpartition(".")[0]
        return name or None

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.update(filter(None, (self._known(alias.name) for alias in node.names)))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not node.module:
            return
        submodules = [f"{node.module}.{a.name}" for a in node.names
                      if f"{node.module}.{a.name}" in self.modules]
        if submodules and len(submodules) == len(node.names):
            self.found.update(submodules)
        elif (known := self._known(node.module)) is not None:
            self.found.add(known)


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        visitor = _Imports(modules)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        graph[name] = visitor.found - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), or a module importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_circle() -> None:
    graph = import_graph()
    assert len(graph) > 50
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_writes_the_environment_outside_the_testing_kit() -> None:
    offenders = []
    for name, path in module_files().items():
        if name.startswith("scholargraph.testing"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = ast.unparse(node) if isinstance(node, ast.Assign | ast.Call) else ""
            if isinstance(node, ast.Assign) and "os.environ[" in text.split("=")[0]:
                offenders.append(f"{name}: {text}")
            if isinstance(node, ast.Call) and any(
                    call in ast.unparse(node.func) for call in
                    ("os.environ.update", "os.environ.setdefault", "os.putenv",
                     "temporary_environment")):
                offenders.append(f"{name}: {text}")
    assert offenders == []


def test_the_replay_server_is_off_the_runtime_import_path() -> None:
    """Only --offline loads scholargraph.testing; running the CLI's and the graph's modules does
    not."""
    code = ("import sys, scholargraph, scholargraph.cli, scholargraph.graph, scholargraph.webapp; "
            "print(sorted(m for m in sys.modules if m.startswith('scholargraph.testing')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=120).stdout.strip()
    assert loaded == "[]"


SLOW_IMPORTS = ("sklearn", "chromadb", "pypdf", "wordfreq", "ftfy", "pandas", "onnxruntime",
                "tokenizers", "sentence_transformers", "torch", "playwright", "trafilatura")
"""Libraries a run needs only in the step that uses them; together they made loading the graph
take 10-16 s instead of about 3 (scikit-learn with SciPy and pandas about 4.5 s, Chroma 1.7 s)."""


def test_loading_the_graph_leaves_the_slow_libraries_for_the_steps_that_use_them() -> None:
    """What LangGraph Studio loads (``langgraph.json``'s ``scholargraph/graph.py:graph``) and the
    CLI's own module import none of the libraries only some steps use."""
    code = ("import sys, scholargraph.graph, scholargraph.cli; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({SLOW_IMPORTS!r})))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=120).stdout.strip()
    assert loaded == "[]"

