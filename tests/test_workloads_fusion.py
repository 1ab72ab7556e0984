"""The kernel-fusion workloads (programs/workloads/w-fusion-*, studies/fusion.yaml, docs/workloads.md):
every variant computes exactly what the two unfused kernels compute (and what numpy computes, the
tensor-core arithmetic bit for bit through the H100 model in oracle/tensor_math), writes a clock
pair for each of its blocks, and the simulated overlap rates have the shape the seeds describe."""
import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.calibrate import fusion, study
from simt_sim.errors import InputError
from simt_sim.frontend.manifest import load_manifest
from simt_sim.oracle.tensor_math import mma_tile
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / "studies" / "fusion.yaml"
VARIANTS = ["tc-only", "cd-only", "serial", "streams", "inner-thread", "inner-block", "inter-block", "ptb"]
CD_BLOCK, CLASSES, TILE = 128, 10, 16
BLOCKS = {"tc-only": 528, "cd-only": 528, "serial": 1056, "streams": 1056, "inner-thread": 528,
          "inner-block": 528, "inter-block": 1056, "ptb": 264}      # blocks launched = clock pairs written


@pytest.fixture(scope="module")
def runs():
    """Every variant simulated once (timed: serial and streams have two launches)."""
    return {v: simt_sim.run_program(program_dir(f"w-fusion-{v}"), isa="ptx") for v in VARIANTS}   # PTX mma counts


@pytest.fixture(scope="module")
def inputs():
    m = load_manifest(str(program_dir("w-fusion-serial")))
    return {s.name: s.make() for s in m.buffers}


# ---- numpy references ------------------------------------------------------------------------------

def cd_reference(cd_in: np.ndarray) -> np.ndarray:
    """fusion_parts.cuh cd_unit, vectorised: every lane steps while k < its trip count."""
    x = cd_in.astype(np.uint32)
    i = np.arange(x.size)
    left = x[i - i % CD_BLOCK + (i % CD_BLOCK + CD_BLOCK - 1) % CD_BLOCK]
    v, acc = x ^ (left << np.uint32(7)), np.zeros_like(x)
    trips = 16 + (x & np.uint32(63)).astype(np.int64)
    for k in range(int(trips.max())):
        odd = (v & np.uint32(1)) == 1
        v_odd = np.uint32(3) * v + np.uint32(1)
        v_even = v >> np.uint32(1)
        new_acc = np.where(odd, acc + (v_odd >> np.uint32(5)), acc ^ (v_even * np.uint32(0x9E3779B9)))
        new_v = np.where(odd, v_odd, v_even) ^ np.uint32(k)
        live = k < trips
        v, acc = np.where(live, new_v, v), np.where(live, new_acc, acc)
    return acc ^ v


def weights_f16(w1: np.ndarray, w2: np.ndarray):
    """The kernel's f16 weights (__float2half_rn, W2's columns >= 10 zero) as bit patterns."""
    w2 = w2.reshape(32, 16).copy()
    w2[:, CLASSES:] = 0
    return (w1.reshape(16, 32).astype(np.float16).view(np.uint16),
            w2.astype(np.float16).view(np.uint16))


def tc_reference(x_bits: np.ndarray, w1: np.ndarray, w2: np.ndarray, chunk: int = 256):
    """tc_part.cuh bit for bit: hidden = relu(x W1) with f16 accumulation, logits = hidden W2 with
    f32 accumulation (two k-steps, in order), pred = first argmax of the 10 class logits."""
    b1, b2 = weights_f16(w1, w2)
    tiles = x_bits.reshape(-1, TILE, 16)
    z16, z32 = np.zeros((16, 16), np.uint16), np.zeros((16, 16), np.uint32)
    out = []
    for t in range(0, len(tiles), chunk):
        a = tiles[t:t + chunk]
        h = np.concatenate([mma_tile(a, b1[:, 16 * j:16 * j + 16], z16, "f16", "f16") for j in (0, 1)], axis=-1)
        h = np.where(h.view(np.float16) > 0, h, np.uint16(0))       # __hgt(h, 0) ? h : 0
        o = mma_tile(h[..., :16], b2[:16], z32, "f16", "f32")
        out.append(mma_tile(h[..., 16:], b2[16:], o, "f16", "f32"))
    logits = np.concatenate(out).view(np.float32).reshape(-1, 16)
    return logits, np.argmax(logits[:, :CLASSES], axis=1).astype(np.uint32)


# ---- outputs -------------------------------------------------------------------------------------

def test_tc_only_is_the_mlp_bit_for_bit(runs, inputs):
    out = runs["tc-only"].outputs
    logits, pred = tc_reference(inputs["x"], inputs["w1"], inputs["w2"])
    assert out["logits"].view(np.uint32).tolist() == logits.reshape(-1).view(np.uint32).tolist()
    assert np.array_equal(out["pred"], pred)
    assert len(np.unique(pred)) > 1                                     # the classes do differ
    # and it is the MLP in plain arithmetic, up to f16 rounding
    x = inputs["x"].view(np.float16).astype(np.float64).reshape(-1, 16)
    b1, b2 = (b.view(np.float16).astype(np.float64) for b in weights_f16(inputs["w1"], inputs["w2"]))
    approx = np.maximum(x @ b1, 0) @ b2
    assert np.allclose(out["logits"].reshape(-1, 16), approx, atol=0.05, rtol=0.01)


def test_cd_only_is_the_user_kernel(runs, inputs):
    assert np.array_equal(runs["cd-only"].outputs["cd_out"], cd_reference(inputs["cd_in"]))


def test_each_part_alone_leaves_the_other_parts_outputs_untouched(runs):
    assert not runs["tc-only"].outputs["cd_out"].any()
    assert not runs["cd-only"].outputs["logits"].any() and not runs["cd-only"].outputs["pred"].any()


@pytest.mark.parametrize("variant", VARIANTS[2:])
def test_every_variant_computes_what_the_unfused_kernels_compute(runs, variant):
    out = runs[variant].outputs
    tc, cd = runs["tc-only"].outputs, runs["cd-only"].outputs
    assert out["logits"].tobytes() == tc["logits"].tobytes()
    assert np.array_equal(out["pred"], tc["pred"])
    assert np.array_equal(out["cd_out"], cd["cd_out"])


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_block_writes_one_clock_pair(runs, variant):
    clk = runs[variant].outputs["clk"].reshape(-1, 2)
    written = clk[(clk != 0).any(axis=1)]
    assert len(written) == BLOCKS[variant]
    assert (written[:, 1] > written[:, 0]).all()


# ---- the programs' shape -------------------------------------------------------------------------

def test_fused_blocks_synchronise_each_part_with_its_own_named_barrier():
    for v in ("inner-block", "ptb"):
        ptx = (program_dir(f"w-fusion-{v}") / "kernel.ptx").read_text()
        assert re.search(r"bar\.sync\s+1,\s*128;", ptx) and re.search(r"bar\.sync\s+2,\s*128;", ptx), v
    unfused = (program_dir("w-fusion-serial") / "kernel.ptx").read_text()
    assert not re.search(r"bar\.sync\s+[12],", unfused)                 # the kernels as written: bar.sync 0


def test_the_parts_run_on_their_units(runs):
    tc, cd = runs["tc-only"].metrics[0], runs["cd-only"].metrics[0]
    assert tc["unit_instructions"]["tensor"] == 528 * 4 * 2 * 4          # 4 mma per tile, 2 tiles per warp
    assert cd["unit_instructions"]["tensor"] == 0
    assert cd["cfe"] < 0.6                                               # the loop diverges


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
@pytest.mark.parametrize("variant", VARIANTS)
def test_registers_are_what_ptxas_allocates(variant):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from set_registers import ptxas_registers
    finally:
        sys.path.pop(0)
    d = program_dir(f"w-fusion-{variant}")
    for shape in fusion.launch_shapes(load_manifest(str(d))):
        assert shape["registers"] == ptxas_registers(d / "kernel.ptx", shape["kernel"]), shape


# ---- overlap -------------------------------------------------------------------------------------

def test_overlap_rate():
    assert fusion.overlap_rate(100, 100, 200) == 0.0                     # one after the other
    assert fusion.overlap_rate(100, 100, 100) == 0.5                     # the whole of the shorter hidden
    assert fusion.overlap_rate(300, 100, 300) == 0.25
    assert fusion.overlap_rate(100, 100, 250) == -0.25                   # slower than serial
    for bad in (0, -1, float("nan"), float("inf"), "12", True, None):
        with pytest.raises(InputError, match="positive finite time"):
            fusion.overlap_rate(100, bad, 100)


def test_table2_from_given_cycles():
    cycles = {"w-fusion-tc-only": 1000, "w-fusion-cd-only": 3000, "w-fusion-serial": 4000}
    rows = fusion.table2(STUDY, ROOT, cycles=lambda d: cycles.get(d.name, 3000))
    by = {r["name"]: r for r in rows}
    assert [r["name"] for r in rows][:3] == ["serial", "tc only", "cd only"]
    assert by["serial"]["sim_overlap"] == 0.0 and by["ptb"]["sim_overlap"] == 0.25
    assert by["tc only"]["sim_overlap"] is None                          # a part has no overlap of its own
    assert [(s["kernel"], s["grid"], s["block"], s["stream"]) for s in by["streams"]["launches"]] == [
        ("tc_kernel", "(528,1,1)", "(128,1,1)", 0), ("cd_kernel", "(528,1,1)", "(128,1,1)", 1)]
    assert by["inner-block"]["launches"][0]["block"] == "(256,1,1)"
    text = fusion.format_table2(rows)
    assert "inner-block" in text and "25.0%" in text


def test_table2_times_the_simulation_as_the_h100_is_timed():
    """The H100's times are CUDA-event times of the launch sequence; the simulated ones get the
    config's event overhead (t-launch-1), so that both overlap rates count the same things."""
    from simt_sim.machine.config import load_config
    from simt_sim.run.timed import simulate_manifest
    pdir = program_dir("w-fusion-tc-only")
    cycles = simulate_manifest(load_manifest(str(pdir))).cycles
    assert fusion.simulated_cycles(pdir) == cycles + load_config("h100").get("host.event_overhead")


def test_study_must_name_its_parts(tmp_path):
    (tmp_path / "programs").symlink_to(ROOT / "programs")
    (tmp_path / "studies").mkdir()
    bad = tmp_path / "studies" / "s.yaml"
    bad.write_text(STUDY.read_text().replace('t_tc: "tc only"', 't_tc: "tc alone"'))
    with pytest.raises(InputError, match="overlap.t_tc must name one of the variants"):
        study.load_study(bad)


def test_simulated_overlap_has_the_seeds_shape(runs):
    t = {v: r.cycles for v, r in runs.items()}
    rate = {v: fusion.overlap_rate(t["cd-only"], t["tc-only"], t[v]) for v in VARIANTS[2:]}
    gap = simt_sim.load_config("h100").get("sm.stream_kernel_gap")    # the second kernel of a stream waits it
    assert abs(fusion.overlap_rate(t["cd-only"], t["tc-only"], t["serial"] - gap)) < 0.01   # one stream: no overlap
    for v in ("streams", "inner-block", "inter-block", "ptb"):            # SMs shared by both parts
        assert 0.25 < rate[v] < 0.5, (v, rate)
    assert 0.05 < rate["inner-thread"] < rate["inner-block"] - 0.1      # each thread serialises its parts


@pytest.mark.parametrize("variant", VARIANTS)
def test_outputs_identical_to_the_h100(runs, variant):
    """The recorded H100 run of the same PTX gives the same bytes (clock buffers aside)."""
    from simt_sim.calibrate.compare import compare_outputs
    pdir = program_dir(f"w-fusion-{variant}")
    ref = json.loads((pdir / "reference" / "h100.json").read_text())
    ok, notes = compare_outputs(runs[variant].outputs, ref["outputs"], False, ("clk",))
    assert ok, notes
