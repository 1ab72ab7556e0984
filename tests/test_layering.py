"""The package reads as the flow of data: each layer imports only from the layers before it
(docs/architecture.md).  A module importing from a later layer, or two folders importing each
other, fails here; so does a circle of modules inside one folder (a imports b, b imports a,
however deep the import sits: at the bottom of a file or inside a function)."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "simt_sim"
# earlier layers first; modules in one layer may import each other
LAYERS = [
    ["errors", "files", "programs"],
    ["isa"],
    ["frontend"],
    ["machine"],
    ["engine"],
    ["run"],
    ["oracle", "observe"],
    ["workloads"],
    ["calibrate"],
    ["api", "__init__"],
    ["sweep"],
    ["cli", "__main__"],
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("simt_sim"):
            yield node.module if node.module != "simt_sim" else "simt_sim." + node.names[0].name
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("simt_sim"):
                    yield a.name


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts)


def test_every_module_has_a_layer():
    for path in PACKAGE.rglob("*.py"):
        assert layer_of(module_name(path)) in RANK, f"{path}: add its folder to LAYERS"


def test_imports_point_one_way():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = layer_of(module_name(path))
        for target in imports_of(path):
            there = layer_of(target)
            if RANK[there] > RANK[here]:
                wrong.append(f"{module_name(path)} imports {target}")
    assert not wrong, "imports against the flow of data:\n" + "\n".join(wrong)


def test_engine_functional_does_not_import_cycle():
    for path in (PACKAGE / "engine" / "functional").glob("*.py"):
        assert not any(t.startswith("simt_sim.engine.cycle") for t in imports_of(path)), path


# Circles inside a folder known today, each to be removed (then delete its line here).
KNOWN_CIRCLES: list[set[str]] = []


def module_targets(path: Path, known: set[str]):
    """The modules of the package this file imports anywhere in it (top level, inside functions,
    at the bottom), `from pkg import mod` resolved to the module `pkg.mod`; a package stands for
    its __init__."""
    def resolve(name):
        return name if name in known else (name + ".__init__" if name + ".__init__" in known else None)
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("simt_sim"):
            for a in node.names:
                sub = resolve(f"{node.module}.{a.name}")
                if sub:
                    yield sub
                elif resolve(node.module):
                    yield resolve(node.module)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("simt_sim") and resolve(a.name):
                    yield resolve(a.name)


def folder_graph() -> dict[str, set[str]]:
    """module -> the modules of its own folder it imports."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    folder = {m: p.parent for m, p in paths.items()}
    return {m: {t for t in module_targets(p, set(paths)) if t != m and folder[t] == folder[m]}
            for m, p in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_circles_are_found():
    """The check sees a circle closed by a function-level import and by `from pkg import mod`."""
    import textwrap
    g = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}, "p.e": set()}
    assert circles(g) == [{"p.a", "p.b", "p.c"}]
    src = textwrap.dedent("""
        from simt_sim.frontend import sass as S
        def f():
            from simt_sim.frontend.manifest import load_manifest
            import simt_sim.frontend.dims
    """)
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(src)
    try:
        known = {"simt_sim.frontend.sass", "simt_sim.frontend.manifest", "simt_sim.frontend.dims",
                 "simt_sim.frontend.__init__"}
        assert set(module_targets(Path(fh.name), known)) == {"simt_sim.frontend.sass", "simt_sim.frontend.manifest",
                                                              "simt_sim.frontend.dims"}
    finally:
        Path(fh.name).unlink()


def test_no_import_circles_inside_a_folder():
    found = circles(folder_graph())
    new = [sorted(c) for c in found if c not in KNOWN_CIRCLES]
    assert not new, "modules of one folder importing each other (move what they share into one of them " \
                    "or a module below both):\n" + "\n".join(" <-> ".join(c) for c in new)
    fixed = [sorted(c) for c in KNOWN_CIRCLES if c not in found]
    assert not fixed, f"no longer a circle, remove from KNOWN_CIRCLES: {fixed}"
