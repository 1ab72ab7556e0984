"""Fuzzing the inputs: whatever a manifest or the command line says, `main` returns an exit code
(0 ok, 1 mismatch, 2 bad input, 3 runtime fault) and never raises or prints a traceback.

Generated launches are either small or beyond CUDA's limits: a huge but legal grid would run
(and allocate) for real.  Every run also gets low instruction and cycle limits, so a mutated loop
count ends in a quick exit 3.  Examples per test come from the Hypothesis profile (tests/conftest.py).
"""
import contextlib
import io
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import event, given
from hypothesis import strategies as st

from simt_sim.cli.main import main
from simt_sim.frontend.manifest import DTYPES, LAUNCH_SCHEMA, SCHEMA
from simt_sim.machine.config import DEFAULTS

ROOT = Path(__file__).resolve().parents[1]
RUN_LIMITS = ["--set", "limits.max_warp_instructions=20000", "--set", "limits.max_cycles=200000"]
EXIT_CODES = {0, 1, 2, 3}

# programs/examples/two-streams' kernels (saxpy, then ffma_loop in another stream), shrunk to a few warps
BASE_MANIFEST = {
    "description": "fuzz base: saxpy beside an FFMA loop",
    "kernel_file": "kernel.ptx",
    "kernel": "saxpy",
    "config": "h100",
    "set": ["num_sms=2"],
    "grid": 2,
    "block": 32,
    "dynamic_shared": 0,
    "registers": 16,
    "buffers": {"x": "f32[64]:range", "y": "f32[64]:fill(1)", "o": "f32[64]"},
    "args": [2.0, "x", "y", 64],
    "stream": 0,
    "expect": {"y": [2.0 * i + 1 for i in range(64)]},
    "more_launches": [{"kernel": "ffma_loop", "grid": 1, "block": 64, "args": ["o", 3], "stream": 1}],
}


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)                       # an exception here fails the test: main must not raise
    return rc, out.getvalue(), err.getvalue()


def assert_clean_exit(argv: list[str]) -> int:
    rc, _, err = run_main(argv)
    assert rc in EXIT_CODES, (argv, rc, err)
    event(f"exit {rc}")                        # --hypothesis-show-statistics: how far inputs got
    assert "Traceback" not in err, (argv, err)
    if rc == 2:
        assert "error: " in err, (argv, err)   # bad input always says what is wrong
    return rc


@pytest.fixture(scope="module")
def program_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz-program")
    shutil.copy(ROOT / "programs/examples/two-streams/kernel.ptx", folder / "kernel.ptx")
    return folder


def write_manifest(folder: Path, manifest) -> None:
    text = yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True)
    (folder / "manifest.yaml").write_text(text, encoding="utf-8")


# ---- values -------------------------------------------------------------------------------------

# beyond every launch limit, and beyond int64; nothing between 8 and 2**31 that a grid would accept
HUGE_INTS = st.sampled_from([2**31, 2**32, 2**40 + 1, 2**63 - 1, 2**63, 2**64, 10**30, -2**63, -2**31])
SMALL_INTS = st.integers(-3, 8)
# Launch shapes: small and legal, or wrong for a grid and a block alike.  A fresh list each time,
# so that mutations do not edit the strategy's own.
DIMS = st.sampled_from([[1], [2, 2], [4, 2, 1], [0], [-1], [], [1, 2, 3, 4], [2**31], [1, 65536], [1, 1, 65536],
                        [1.5], [True], ["2"], [None]]).map(list)
# wrong for a block only: as a grid each would be a legal launch of over a thousand blocks
BLOCK_ONLY_BEYOND = [[1025], [1, 1025], [1, 1, 65], [32, 32, 2], [64, 32]]
# no digits in free text that can land in a grid: "9999" would be a legal but huge one
FREE_TEXT = st.text(st.characters(blacklist_categories=("Nd", "Cs")), max_size=8)
BUFFER_SIZES = st.one_of(st.integers(0, 70), st.sampled_from([2**30 + 1, 2**31, 2**40, 10**20]))
INITS = st.one_of(
    st.sampled_from(["", "zeros", "range", "lane_id", "lane_id(0)", "lane_id(-3)", "random", "fill()", "values()",
                     "random(seed=x)", "random(low=5,high=1)", "random(low=nan)", "random(low=1,high=inf)",
                     "range(0,99999999999999999999)", "fill(1e400)", "fill(nan)", "nope(1)", "values(1,2"]),
    st.builds(lambda f, args: f"{f}({','.join(args)})",
              st.sampled_from(["fill", "range", "values", "random", "lane_id"]),
              st.lists(st.one_of(st.integers(-2**70, 2**70).map(str), st.floats().map(str),
                                 st.sampled_from(["seed=1", "low=-5", "high=10**9", "seed=-1", "x=1", "low=1e308"])),
                       max_size=4)))
PLAUSIBLE_SPECS = st.builds(lambda dtype, size, init: f"{dtype}[{size}]:{init}",
                            st.sampled_from(["i32", "u32", "f32", "i64", "u8", "f64"]), st.integers(0, 70),
                            st.sampled_from(["zeros", "range", "fill(3)", "random(seed=2)", "lane_id(4)",
                                             "range(1,2)"]))
BUFFER_SPECS = st.one_of(
    PLAUSIBLE_SPECS,
    st.builds(lambda dtype, size, init: f"{dtype}[{size}]" + (f":{init}" if init else ""),
              st.sampled_from([*DTYPES, "i33", "f16", "I32", ""]), BUFFER_SIZES, st.one_of(st.none(), INITS)),
    st.text(max_size=12))
# values a manifest might well hold (so that runs get past the checks), then anything at all
PLAUSIBLE = st.one_of(st.integers(1, 4), st.floats(-4, 4), DIMS, PLAUSIBLE_SPECS,
                      st.sampled_from(["x", "y", "o", "saxpy", "ffma_loop", "kernel.ptx", "h100", "teaching-w4"]))
SCALARS = st.one_of(SMALL_INTS, HUGE_INTS, st.floats(), st.booleans(), st.none(), st.text(max_size=10),
                    BUFFER_SPECS, DIMS)
WILD = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                    max_leaves=6)
VALUES = PLAUSIBLE | WILD
KEYS = st.one_of(st.sampled_from(sorted(set(SCHEMA) | set(LAUNCH_SCHEMA))), st.text(max_size=8), SMALL_INTS)


# ---- manifest mutations -------------------------------------------------------------------------

def children(node) -> list:
    return list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []


def draw_path(draw, doc) -> tuple:
    """A position in the manifest, top-level keys as likely as deep ones (not one in 64 `expect`
    elements): from a key, go one level deeper half of the time."""
    path, node = (), doc
    while children(node) and (not path or draw(st.booleans())):
        key = draw(st.sampled_from(children(node)))
        path, node = path + (key,), node[key]
    return path


def mutate(draw, doc: dict) -> None:
    path = draw_path(draw, doc)
    if not path:                                                # everything was deleted
        doc[draw(KEYS)] = draw(VALUES)
        return
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    target = parent[path[-1]]
    action = draw(st.sampled_from(["replace", "delete", "insert", "insert beside"]))
    if action == "replace":
        parent[path[-1]] = draw(VALUES)
    elif action == "delete":
        del parent[path[-1]]
    elif action == "insert" and isinstance(target, dict):
        target[draw(KEYS)] = draw(VALUES)
    elif action == "insert" and isinstance(target, list):
        target.insert(draw(st.integers(0, len(target))), draw(VALUES))
    elif isinstance(parent, dict):                              # a new key next to this one
        parent[draw(KEYS)] = draw(VALUES)
    else:
        parent.insert(draw(st.integers(0, len(parent))), draw(VALUES))


@st.composite
def mutated_manifests(draw):
    doc = yaml.safe_load(yaml.safe_dump(BASE_MANIFEST))          # a deep copy
    if draw(st.integers(0, 3)) == 0:
        launch = draw(st.sampled_from([doc, doc["more_launches"][0]]))
        launch["block"] = list(draw(st.sampled_from(BLOCK_ONLY_BEYOND)))
    for _ in range(draw(st.integers(1, 3))):
        mutate(draw, doc)
    return doc if draw(st.integers(0, 19)) else draw(WILD)       # now and then not a mapping at all


def test_base_manifest_runs_and_matches(program_dir):
    write_manifest(program_dir, BASE_MANIFEST)
    rc, _, err = run_main(["run", str(program_dir), "--quiet", *RUN_LIMITS])
    assert rc == 0, err


@given(mutated_manifests(), st.booleans())
def test_mutated_manifest_exits_cleanly(program_dir, manifest, functional):
    write_manifest(program_dir, manifest)
    assert_clean_exit(["run", str(program_dir), "--quiet", *RUN_LIMITS] + (["--functional"] if functional else []))


@given(st.data())
def test_manifest_text_edits_exit_cleanly(program_dir, data):
    """Raw edits of the YAML text: syntax errors, cut-off documents, odd characters."""
    text = yaml.safe_dump(BASE_MANIFEST, sort_keys=False)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 40)))
    insert = data.draw(st.one_of(FREE_TEXT, st.sampled_from(["[", "{", ":", "- ", "\t", "&a", "*a", "!!x", "'", '"',
                                                              "\n  ", "? ", "%YAML 1.1\n---\n"])))
    (program_dir / "manifest.yaml").write_text(text[:start] + insert + text[end:], encoding="utf-8")
    assert_clean_exit(["run", str(program_dir), "--quiet", *RUN_LIMITS])


# ---- command-line values ------------------------------------------------------------------------

def config_keys(node=DEFAULTS, prefix="", sections=True):
    for key, value in node.items():
        if sections or not isinstance(value, dict):
            yield prefix + key
        if isinstance(value, dict):
            yield from config_keys(value, prefix + key + ".", sections)


SET_VALUES = st.one_of(SMALL_INTS.map(str), HUGE_INTS.map(str), st.floats().map(str), st.text(max_size=10),
                       st.sampled_from(["", "~", "true", "[1, 2]", "{a: 1}", ".nan", "-.inf", "1e400", "0x10",
                                        "!!python/object:os.system", "[", "gto", "taken-first", "'quoted'"]))
SET_KEYS = st.one_of(st.sampled_from(sorted(config_keys())), st.text(max_size=10),
                     st.sampled_from(["", ".", "a.b.c", "sm.", ".sm", "num_sms.x", "limits"]))
SETS = st.one_of(   # first a value that a config key could well take (1 to 4 fits most), then anything
    st.builds(lambda key, value: f"{key}={value}", st.sampled_from(sorted(config_keys(sections=False))),
              st.integers(1, 4)),
    st.builds(lambda key, value: f"{key}={value}", SET_KEYS, SET_VALUES), st.text(max_size=12))
GRID_BEYOND = ["2147483648", "1,65536", "1,1,65536", "9223372036854775808", "0"]      # beyond for blocks too
BLOCK_BEYOND = GRID_BEYOND + [",".join(map(str, d)) for d in BLOCK_ONLY_BEYOND]
ODD_DIMS = [" 2 ", "1,,1", "0x10", "4_0", "-1", "1e3", "", "1,2,3,4", "2.0"]
GRID_TEXTS = st.one_of(st.integers(1, 8).map(str), st.sampled_from(GRID_BEYOND + ODD_DIMS), FREE_TEXT)
BLOCK_TEXTS = st.one_of(st.integers(1, 64).map(str), st.sampled_from(BLOCK_BEYOND + ODD_DIMS), FREE_TEXT)
REGISTERS = st.one_of(st.integers(1, 255), st.integers(-2, 300), HUGE_INTS).map(str) | st.text(max_size=5)


def optional(flag: str, values) -> st.SearchStrategy:
    return st.one_of(st.just([]), values.map(lambda v: [f"{flag}={v}"]))


@given(st.lists(SETS, max_size=2), optional("--grid", GRID_TEXTS), optional("--block", BLOCK_TEXTS),
       optional("--registers", REGISTERS), st.booleans())
def test_manifest_run_options_exit_cleanly(program_dir, sets, grid, block, registers, functional):
    # functional runs take one launch: without more_launches they get past the checks and run
    write_manifest(program_dir, {k: v for k, v in BASE_MANIFEST.items()
                                 if not (functional and k == "more_launches")})
    argv = ["run", str(program_dir), "--quiet", *grid, *block, *registers]
    for item in sets:
        argv.append(f"--set={item}")
    argv += RUN_LIMITS + (["--functional"] if functional else [])
    rc = assert_clean_exit(argv)
    if {*grid, *block} & ({f"--grid={v}" for v in GRID_BEYOND} | {f"--block={v}" for v in BLOCK_BEYOND}):
        assert rc == 2


ARG_ITEMS = st.one_of(st.sampled_from(["a", "b", "c", "", " ", "nan", "inf", "-inf", "1e400", "0x", "0b101", "1_0"]),
                      st.integers(-2**70, 2**70).map(str), st.floats().map(str), st.text(max_size=6))
BUFFER_OPTIONS = st.one_of(
    st.lists(PLAUSIBLE_SPECS, min_size=3, max_size=3).map(lambda specs: [f"{n}={s}" for n, s in zip("abc", specs)]),
    st.lists(st.builds(lambda name, spec: f"{name}={spec}",
                       st.sampled_from(["a", "b", "c", "", " a"]) | st.text(max_size=4), BUFFER_SPECS)
             | st.text(max_size=10), max_size=4))
ARGS = st.one_of(st.none(), st.integers(0, 70).map(lambda n: ["a", "b", "c", str(n)]), st.lists(ARG_ITEMS, max_size=6))


@given(BUFFER_OPTIONS, ARGS, st.booleans(),
       st.sampled_from(["1", "2", "1,2"]) | st.sampled_from(GRID_BEYOND),
       st.sampled_from(["4", "32", "8,4"]) | st.sampled_from(BLOCK_BEYOND))
def test_ptx_run_buffers_and_args_exit_cleanly(buffers, args, functional, grid, block):
    argv = ["run", str(ROOT / "tests/cuda/vec_add_int.ptx"), "--quiet", f"--grid={grid}", f"--block={block}"]
    argv += [f"--buffer={b}" for b in buffers]
    if args is not None:
        argv.append(f"--args={','.join(args)}")
    rc = assert_clean_exit(argv + RUN_LIMITS + (["--functional"] if functional else []))
    if grid in GRID_BEYOND or block in BLOCK_BEYOND:
        assert rc == 2
