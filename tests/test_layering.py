"""The package reads as the flow of data: each layer imports only from the layers before it
(docs/architecture.md).  A module importing from a later layer, or two folders importing each
other, fails here."""
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "simt_sim"
# earlier layers first; modules in one layer may import each other
LAYERS = [
    ["errors", "files"],
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
