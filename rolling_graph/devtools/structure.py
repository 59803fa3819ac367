"""The house's structure rules, checked from the source with :mod:`ast` (nothing is imported).

- no module over :data:`MAX_MODULE_LINES` lines, no function over :data:`MAX_FUNCTION_LINES`;
- no import cycle among the package's modules at module level (imports inside functions, and
  modules loaded by name as plugins are, are lazy: their cycles are reported, not failed;
  ``if TYPE_CHECKING:`` imports are not imports);
- layers point down: the modules of :data:`LOW_LAYERS` never import :data:`ENGINE_LAYER`, not
  directly (at any level) and not through what they load at module level;
- the hook client (:data:`STDLIB_ONLY`) loads the standard library only: its own imports, and
  everything its module-level imports load in turn;
- each package states in its docstring what it may import (a ``May import: a, b.c, d.``
  sentence: packages or modules of this package, ``nothing`` or ``anything``); every import of
  its modules, at module level or inside a function, stays within the package or that list. A
  subpackage with its own sentence is governed by it; the root modules are not governed.

Run ``python -m rolling_graph.devtools.structure`` from the repository root: it prints every
violation and exits 1 if there is one; ``tests/test_structure.py`` asserts the same.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
#: what the installed hook runs on every event: the client, its wire protocol and its fallback
HOOK_CLIENT = (
    "rolling_graph.transport.stdlib_hook",
    "rolling_graph.transport.stdlib_client",
    "rolling_graph.transport.client",
    "rolling_graph.transport.protocol",
    "rolling_graph.transport.fallback",
)
LOW_LAYERS = ("rolling_graph.core.model", "rolling_graph.warm", *HOOK_CLIENT)
ENGINE_LAYER = (
    "rolling_graph.pipeline.engine",
    "rolling_graph.pipeline.plugins",
    "rolling_graph.pipeline.default_plugins",
)
STDLIB_ONLY = HOOK_CLIENT


@dataclass
class Module:
    """One source module: its lines, long functions and the package modules it imports."""

    name: str
    path: Path
    lines: int
    eager: set[str] = field(default_factory=set)  # package modules imported at module level
    lazy: set[str] = field(default_factory=set)  # ... imported inside a function only
    external: set[str] = field(default_factory=set)  # outside the package, at module level
    external_lazy: set[str] = field(default_factory=set)  # ... inside a function only
    functions: list[tuple[str, int, int]] = field(default_factory=list)  # (qualname, line, n)


@dataclass
class Report:
    long_modules: list[tuple[str, int]] = field(default_factory=list)
    long_functions: list[tuple[str, str, int]] = field(default_factory=list)
    cycles: list[list[str]] = field(default_factory=list)
    lazy_cycles: list[list[str]] = field(default_factory=list)
    layer_violations: list[str] = field(default_factory=list)
    rule_violations: list[str] = field(default_factory=list)
    non_stdlib: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (
            self.long_modules
            or self.long_functions
            or self.cycles
            or self.layer_violations
            or self.rule_violations
            or self.non_stdlib
        )


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every runtime import statement with whether it runs at import time (not in a function)."""

    def walk(
        node: ast.AST, in_function: bool
    ) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    yield from walk(sub, in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, not in_function
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            yield from walk(child, inner)

    yield from walk(tree, False)


def _targets(
    node: ast.Import | ast.ImportFrom, current: str, is_package: bool, known: set[str]
) -> Iterator[str]:
    """Absolute names of what an import statement loads (a submodule where one exists)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    base = node.module or ""
    if node.level:
        pkg = current.split(".") if is_package else current.split(".")[:-1]
        pkg = pkg[: len(pkg) - (node.level - 1)]
        base = ".".join([*pkg, base] if base else pkg)
    for alias in node.names:
        sub = f"{base}.{alias.name}" if base else alias.name
        yield sub if sub in known else base


def _by_name(tree: ast.Module, known: set[str]) -> Iterator[str]:
    """Modules loaded by name, as plugins are: the argument of ``import_module("…")``, and
    literal tuples or lists made only of module names (a registry looped over later)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            arg = node.args[0]
            by_name = called in ("import_module", "__import__")
            if by_name and isinstance(arg, ast.Constant) and arg.value in known:
                yield str(arg.value)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
            names = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if len(names) == len(node.elts) and all(n in known for n in names):
                yield from (str(n) for n in names)


def _functions(tree: ast.Module) -> Iterator[tuple[str, int, int]]:
    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qual = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    end = child.end_lineno or child.lineno
                    yield qual, child.lineno, end - child.lineno + 1
                yield from walk(child, qual + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def load_modules(root: Path) -> dict[str, Module]:
    """Parse every ``.py`` file of the package at ``root`` (its parent is the import root)."""
    paths = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    names = {module_name(p, root.parent): p for p in paths}
    known = set(names)
    package = root.name
    modules: dict[str, Module] = {}
    for name, path in names.items():
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        mod = Module(name, path, len(text.splitlines()), functions=list(_functions(tree)))
        is_package = path.name == "__init__.py"
        for node, eager in _imports(tree):
            for target in _targets(node, name, is_package, known):
                if target == package or target.startswith(package + "."):
                    if target != name:
                        (mod.eager if eager else mod.lazy).add(target)
                else:
                    (mod.external if eager else mod.external_lazy).add(target.split(".")[0])
        mod.lazy.update(n for n in _by_name(tree, known) if n != name)
        mod.lazy -= mod.eager
        mod.external_lazy -= mod.external
        modules[name] = mod
    return modules


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif child not in graph:
                continue
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(out)


def _within(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _chain(modules: dict[str, Module], start: str) -> dict[str, list[str]]:
    """Module-level import chains from ``start``: every module it loads -> the path to it."""
    paths = {start: [start]}
    queue = [start]
    while queue:
        cur = queue.pop(0)
        for nxt in sorted(modules[cur].eager):
            if nxt in modules and nxt not in paths:
                paths[nxt] = [*paths[cur], nxt]
                queue.append(nxt)
    return paths


def _layers(modules: dict[str, Module]) -> list[str]:
    out: list[str] = []
    for name in sorted(m for m in modules if _within(m, LOW_LAYERS)):
        mod = modules[name]
        for target in sorted(mod.eager | mod.lazy):
            if _within(target, ENGINE_LAYER):
                how = "at module level" if target in mod.eager else "inside a function"
                out.append(f"{name} imports {target} ({how})")
        for target, path in sorted(_chain(modules, name).items()):
            if len(path) > 2 and _within(target, ENGINE_LAYER):
                out.append(f"{name} loads {target} through {' -> '.join(path)}")
    return out


_RULE = re.compile(r"May import:\s*(.*?)\.\s*(?:\n\s*\n|$)", re.S)


def import_rules(modules: dict[str, Module], package: str) -> dict[str, tuple[str, ...] | None]:
    """Each package's "May import" list as absolute names (``None``: anything)."""
    rules: dict[str, tuple[str, ...] | None] = {}
    for name, mod in modules.items():
        if mod.path.name != "__init__.py" or name == package:
            continue
        doc = ast.get_docstring(ast.parse(mod.path.read_text(encoding="utf-8"))) or ""
        match = _RULE.search(doc)
        if match is None:
            continue
        text = re.sub(r"\([^)]*\)", "", match.group(1))
        items = [i.strip() for i in text.split(",") if i.strip()]
        if items == ["anything"]:
            rules[name] = None
        elif items == ["nothing"]:
            rules[name] = ()
        else:
            rules[name] = tuple(package if i == package else f"{package}.{i}" for i in items)
    return rules


def _rule_violations(modules: dict[str, Module], package: str) -> list[str]:
    rules = import_rules(modules, package)
    out: list[str] = []
    for name in sorted(modules):
        owners = [p for p in rules if _within(name, (p,))]
        if not owners:
            continue
        owner = max(owners, key=len)
        allowed = rules[owner]
        if allowed is None:
            continue
        mod = modules[name]
        for target in sorted(mod.eager | mod.lazy):
            if _within(target, (owner,)) or target in allowed or _within(target, allowed):
                continue
            how = "at module level" if target in mod.eager else "inside a function"
            out.append(f"{name} imports {target} ({how}): not in {owner}'s 'May import'")
    return out


def _stdlib_only(modules: dict[str, Module]) -> list[str]:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    out: list[str] = []
    for name in sorted(m for m in modules if _within(m, STDLIB_ONLY)):
        mod = modules[name]
        # A script run by path imports its sibling as a top-level module (no package, no site):
        # that sibling is one of ours, and it is checked under its own name.
        siblings = {p.stem for p in mod.path.parent.glob("*.py")}
        for ext in sorted((mod.external | mod.external_lazy) - stdlib - siblings):
            out.append(f"{name} imports {ext}")
        for target, path in sorted(_chain(modules, name).items()):
            if len(path) > 1 and not _within(target, STDLIB_ONLY):
                for ext in sorted(modules[target].external - stdlib):
                    out.append(f"{name} loads {ext} through {' -> '.join(path)}")
    return out


def check(root: Path) -> Report:
    """Every rule over the package at ``root`` (e.g. ``Path("rolling_graph")``)."""
    modules = load_modules(root)
    rep = Report()
    top = root.parent
    for mod in modules.values():
        where = str(mod.path.relative_to(top))
        if mod.lines > MAX_MODULE_LINES:
            rep.long_modules.append((where, mod.lines))
        for qual, line, n in mod.functions:
            if n > MAX_FUNCTION_LINES:
                rep.long_functions.append((f"{where}:{line}", qual, n))
    rep.long_modules.sort(key=lambda x: -x[1])
    rep.long_functions.sort(key=lambda x: -x[2])
    eager = {n: m.eager for n, m in modules.items()}
    every = {n: m.eager | m.lazy for n, m in modules.items()}
    rep.cycles = _strongly_connected(eager)
    rep.lazy_cycles = [c for c in _strongly_connected(every) if c not in rep.cycles]
    rep.layer_violations = _layers(modules)
    rep.rule_violations = _rule_violations(modules, root.name)
    rep.non_stdlib = _stdlib_only(modules)
    return rep


def format_report(rep: Report) -> str:
    lines = [f"modules over {MAX_MODULE_LINES} lines: {len(rep.long_modules)}"]
    lines += [f"  {where}  {n}" for where, n in rep.long_modules]
    lines.append(f"functions over {MAX_FUNCTION_LINES} lines: {len(rep.long_functions)}")
    lines += [f"  {where}  {qual}  {n}" for where, qual, n in rep.long_functions]
    lines.append(f"import cycles at module level: {len(rep.cycles)}")
    lines += [f"  {' <-> '.join(c)}" for c in rep.cycles]
    lines.append(
        f"import cycles through lazy imports (reported, not failed): {len(rep.lazy_cycles)}"
    )
    lines += [f"  {' <-> '.join(c)}" for c in rep.lazy_cycles]
    lines.append(f"layer violations: {len(rep.layer_violations)}")
    lines += [f"  {v}" for v in rep.layer_violations]
    lines.append(f"imports outside a package's 'May import': {len(rep.rule_violations)}")
    lines += [f"  {v}" for v in rep.rule_violations]
    lines.append(f"hook client beyond the standard library: {len(rep.non_stdlib)}")
    lines += [f"  {v}" for v in rep.non_stdlib]
    lines.append("ok" if rep.ok else "FAIL")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(__file__).resolve().parents[1]
    rep = check(root)
    print(format_report(rep))
    return 0 if rep.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
