"""The SASS differential-test programs programs/s-* (issue 12, points 3 and 7;
docs/sass-differential.md): each names in its manifest (`sass_families`) the opcode families it
exists to check, and ptxas really emits them; together they cover every family of isa/sass.yaml
but the commented exclusions; the operand files are what tools/make_sass_diff.py writes; every
program runs in PTX mode, and a few results are checked against numpy here so that a kernel bug
shows before the H100 reference does.

Tests that compile need ptxas and nvdisasm and are skipped where either is absent."""
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from simt_sim.api import run_program
from simt_sim.calibrate.record import FULL_RECORD_BYTES
from simt_sim.errors import InputError
from simt_sim.frontend import sass
from simt_sim.frontend.manifest import DTYPES, load_manifest
from simt_sim.frontend.sass import sass_listing
from simt_sim.isa.sass_table import sass_table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_sass_diff  # noqa: E402  (tools/ is not a package)

PROGRAMS = sorted(p.parent.name for p in (ROOT / "programs").glob("s-*/manifest.yaml"))

# Families of isa/sass.yaml that no s-* program checks, with the reason.
NOT_CHECKED = {
    "BPT": "BPT.TRAP (__trap, a failed assert) ends the kernel with an error: there are no results to compare",
}

# Families ptxas emits in s-* programs that isa/sass.yaml does not list yet.  A family leaves this set
# when the table gains it (test_emitted_families_are_known then still passes; keep the set short).
NOT_IN_TABLE_YET = {
    "ATOMS",      # s-atomic-shared: shared-memory atomics
    "CCTL",       # s-control: CCTL.IVALL, part of __threadfence()'s sequence
    "HSET2",      # s-half (__hb* comparisons), s-extra
    "P2R",        # s-isetp, s-memory: predicates packed into a register
    "FRND", "VIMNMX3", "IDP", "I2I", "BMSK",      # s-extra
}


def _have_tools() -> bool:
    if shutil.which("ptxas") is None:
        return False
    try:
        sass.tool_path("nvdisasm")
    except InputError:
        return False
    return True


needs_tools = pytest.mark.skipif(not _have_tools(), reason="needs ptxas and nvdisasm")


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Cubins go to a cache shared by this module's tests, never the user's."""
    monkeypatch.setenv("SIMT_SIM_CACHE", str(tmp_path_factory.getbasetemp() / "sass-cache"))


def manifest(name: str):
    return load_manifest(str(ROOT / "programs" / name))


def emitted_families(name: str) -> set[str]:
    listing = sass_listing(str(ROOT / "programs" / name))
    return {inst.family for kernel in listing.kernels for inst in kernel.instructions}


# ---- manifests and operands (no tools needed) ---------------------------------------------------

def test_programs_exist():
    assert len(PROGRAMS) >= 20
    assert set(PROGRAMS) == set(make_sass_diff.PROGRAMS), "every s-* program has an operand recipe"


@pytest.mark.parametrize("name", PROGRAMS)
def test_manifest_is_a_differential_test(name):
    m = manifest(name)
    assert m.sass_families, f"{name}: no sass_families"
    assert not m.expect, f"{name}: the H100 reference is the oracle, no `expect`"
    assert m.config == "h100"
    n = make_sass_diff.PROGRAMS[name][0]
    assert n in m.args, f"{name}: the operand count {n} of tools/make_sass_diff.py is not an argument"


@pytest.mark.parametrize("name", PROGRAMS)
def test_operand_files_are_current(name):
    """The committed .npy files are byte for byte what the generator writes (fixed seed)."""
    for array_name, values in make_sass_diff.operands(name).items():
        committed = np.load(ROOT / "programs" / name / f"{array_name}.npy")
        assert committed.dtype == values.dtype and committed.shape == values.shape, (name, array_name)
        assert committed.tobytes() == values.tobytes(), f"{name}/{array_name}.npy: run tools/make_sass_diff.py"


@pytest.mark.parametrize("name", PROGRAMS)
def test_outputs_are_recorded_whole(name):
    """Every buffer fits the recorder's whole-buffer limit, so a reference keeps each result and a
    mismatch can be traced to its operation and operands."""
    for spec in manifest(name).buffers:
        assert spec.size * np.dtype(DTYPES[spec.dtype]).itemsize <= FULL_RECORD_BYTES, (name, spec.name)


def test_operands_start_with_edge_cases():
    ops = make_sass_diff.operands("s-fp32")
    pairs = set(zip(ops["a"][:256].tolist(), ops["b"][:256].tolist()))
    assert (0x7f800000, 0xff800000) in pairs and (0x80000000, 0x00000000) in pairs   # inf-inf, -0+0
    assert 0x7fc12345 in ops["a"][:256]                                               # NaN payload
    counts = make_sass_diff.operands("s-shift")["c"]
    assert {32, 33, 64, 0xffffffff} <= set(counts[:64].tolist())


def test_operands_are_deterministic():
    first = make_sass_diff.operands("s-atomic")
    again = make_sass_diff.operands("s-atomic")
    assert all(first[k].tobytes() == again[k].tobytes() for k in first)


def test_atomic_operands_make_both_outcomes():
    """atomicCAS succeeds on every other slot; the float maximum has one winner (+inf)."""
    ops = make_sass_diff.operands("s-atomic")
    n = 512
    cas = ops["slot"][3 * n:4 * n]
    assert np.array_equal(cas[::2], ops["b"][::2]) and np.mean(cas[1::2] == ops["b"][1::2]) < 0.1
    assert 0x7f800000 in ops["b"]


def test_union_covers_the_table():
    table = {op.name for op in sass_table().ops}
    assert set(NOT_CHECKED) <= table, "an exclusion names a family the table does not have"
    listed = set().union(*(manifest(n).sass_families for n in PROGRAMS))
    missing = table - listed - set(NOT_CHECKED)
    assert not missing, f"families of isa/sass.yaml no s-* program checks: {sorted(missing)}"
    unknown = listed - table - NOT_IN_TABLE_YET
    assert not unknown, f"sass_families outside isa/sass.yaml and NOT_IN_TABLE_YET: {sorted(unknown)}"


def test_manifest_rejects_a_bad_family(tmp_path):
    text = (ROOT / "programs/s-iadd3/manifest.yaml").read_text()
    for npy in (ROOT / "programs/s-iadd3").glob("*.npy"):
        (tmp_path / npy.name).write_bytes(npy.read_bytes())
    (tmp_path / "kernel.ptx").write_text((ROOT / "programs/s-iadd3/kernel.ptx").read_text())
    (tmp_path / "manifest.yaml").write_text(text.replace("sass_families: [IADD3, VIADD]",
                                                         "sass_families: [IADD3, iadd3.x]"))
    with pytest.raises(InputError) as e:
        load_manifest(str(tmp_path))
    assert "iadd3.x" in str(e.value) and "manifest.yaml:" in str(e.value)


# ---- what ptxas emits ----------------------------------------------------------------------------

@needs_tools
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_emits_its_families(name):
    emitted = emitted_families(name)
    missing = set(manifest(name).sass_families) - emitted
    assert not missing, f"{name}: ptxas emits no {sorted(missing)}"


@needs_tools
@pytest.mark.parametrize("name", PROGRAMS)
def test_emitted_families_are_known(name):
    """Whatever else ptxas emits is in the table or in NOT_IN_TABLE_YET (a new family shows here)."""
    table = {op.name for op in sass_table().ops}
    unknown = emitted_families(name) - table - NOT_IN_TABLE_YET
    assert not unknown, f"{name}: families in neither isa/sass.yaml nor NOT_IN_TABLE_YET: {sorted(unknown)}"


# ---- PTX mode: every program runs; a few results against numpy -----------------------------------

def results(name: str) -> tuple[dict, dict, int]:
    """(outputs, operands, n) of a functional PTX-mode run."""
    n = make_sass_diff.PROGRAMS[name][0]
    return run_program(ROOT / "programs" / name, functional=True).outputs, make_sass_diff.operands(name), n


@pytest.mark.parametrize("name", PROGRAMS)
def test_runs_in_ptx_mode(name):
    outputs, _, _ = results(name)
    assert outputs


def test_iadd3_results_match_numpy():
    out, ops, n = results("s-iadd3")
    a, b, c = (ops[k].astype(np.uint64) for k in "abc")
    row = out["out"].reshape(-1, n).astype(np.uint64)
    mask = np.uint64(0xffffffff)
    assert np.array_equal(row[0], (a + b + c) & mask)
    assert np.array_equal(row[1], (a - b - c) & mask)
    p = ((a << np.uint64(32)) | b) + ((c << np.uint64(32)) | a)
    assert np.array_equal(row[4], p & mask) and np.array_equal(row[5], p >> np.uint64(32))


def test_shift_results_clamp_counts():
    out, ops, n = results("s-shift")
    a, s = ops["a"].astype(np.uint64), ops["c"].astype(np.uint64)
    row = out["out"].reshape(-1, n)
    want_shl = np.where(s >= 32, 0, (a << np.minimum(s, 31)) & np.uint64(0xffffffff))
    assert np.array_equal(row[0], want_shl.astype(np.uint32))


def test_special_registers_name_each_thread():
    out, _, n = results("s-special")
    row = out["out"].reshape(-1, n)
    tid = row[0]
    assert sorted(set((tid & 0xff).tolist())) == list(range(16))
    assert sorted(set(((tid >> 16) & 0xff).tolist())) == [0, 1]
    assert set(row[2].tolist()) == {16 | 4 << 8 | 2 << 16} and set(row[3].tolist()) == {2 | 2 << 8 | 1 << 16}
    lane = row[4]
    assert np.array_equal(row[5], (np.uint32(1) << lane).astype(np.uint32))
    assert np.array_equal(row[6], ((np.uint64(1) << lane.astype(np.uint64)) - np.uint64(1)).astype(np.uint32))
