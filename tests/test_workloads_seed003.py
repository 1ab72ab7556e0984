"""Seed 003 and seed 001 workload programs (docs/workloads.md): outputs against numpy
references (bit-exact: IEEE float32 operations in the same order, or uint32 arithmetic), the
issue-slot-use metric ("GPU loading") on programs with known counts, and the `sorted` flag of
random(...) buffers."""
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.cli.main import main
from simt_sim.frontend.assembler import assemble_text, load_program
from simt_sim.frontend.manifest import load_manifest, parse_buffer_spec
from simt_sim.machine.config import load_config
from simt_sim.observe.metrics import active_smsps, hw_issue_slot_use, issue_slot_use
from simt_sim.run.functional import launch
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]
MIX = np.uint32(0x2C1B3C6D)


def run_functional(name: str) -> tuple[dict, dict]:
    """(manifest buffers as made, buffers after a functional run) of programs/PURPOSE/NAME."""
    m = load_manifest(str(program_dir(name)))
    program = load_program(str(program_dir(name) / "kernel.ptx"), m.kernel)
    inputs = {s.name: s.make() for s in m.buffers}
    res = launch(program, m.grid, m.block, list(m.args), {k: v.copy() for k, v in inputs.items()},
                 load_config(m.config, m.overrides).launch_config(), m.dynamic_shared)
    return inputs, res.buffers


def mix_rounds(h: np.ndarray, rounds: int) -> np.ndarray:
    for _ in range(rounds):
        h = (h ^ (h >> np.uint32(15))) * MIX
    return h


# ---- seed 003: recurrence filters, plain and C-slowed ---------------------------------------------

def biquad_reference(x: np.ndarray, n: int, m: int, b0, b1, b2, a1, a2) -> np.ndarray:
    """y[t] = ((b0*x[t] + b1*x[t-1]) + b2*x[t-2]) - a2*y[t-2] - a1*y[t-1], every operation rounded to
    float32 in this order (the kernel's __fmul_rn / __fadd_rn / __fsub_rn), all filters at once."""
    f = np.float32
    b0, b1, b2, a1, a2 = (f(v) for v in (b0, b1, b2, a1, a2))
    xs = x.reshape(m, n)
    y = np.zeros_like(xs)
    x1 = x2 = y1 = y2 = np.zeros(n, np.float32)
    for t in range(m):
        ff = (b0 * xs[t] + b1 * x1) + b2 * x2
        y[t] = (ff - a2 * y2) - a1 * y1
        x2, x1, y2, y1 = x1, xs[t], y1, y[t]
    return y.reshape(-1)


CSLOW = [f"w-cslow-c{c}{occ}" for occ in ("", "-w4") for c in (1, 2, 4)]
PIPE = [f"w-pipe-{v}{occ}" for occ in ("", "-w8") for v in ("plain", "double")]


@pytest.mark.parametrize("name", CSLOW)
def test_cslow_filters_match_numpy_bit_for_bit(name):
    m = load_manifest(str(program_dir(name)))
    x_name, y_name, _clk, n, steps, *coeffs = m.args
    inputs, out = run_functional(name)
    want = biquad_reference(inputs[x_name], n, steps, *coeffs)
    assert out[y_name].view(np.uint32).tolist() == want.view(np.uint32).tolist()
    assert np.abs(want).max() > 0.1          # the filters did something (not all zeros)


@pytest.mark.parametrize("occupancy", ["", "-w4"])
def test_cslow_variants_do_the_same_work(occupancy):
    """Within one occupancy the three variants launch the same threads on the same data; they
    differ by the kernel's C alone."""
    manifests = [load_manifest(str(program_dir(f"w-cslow-c{c}{occupancy}"))) for c in (1, 2, 4)]
    launches = {(str(m.grid), str(m.block), tuple(m.args), tuple((b.name, b.dtype, b.size, b.init) for b in m.buffers)) for m in manifests}
    assert len(launches) == 1


# ---- seed 003: software pipelining ----------------------------------------------------------------

@pytest.mark.parametrize("name", PIPE)
def test_pipelined_loop_matches_numpy(name):
    m = load_manifest(str(program_dir(name)))
    x_name, out_name, _clk, n, iters = m.args
    inputs, out = run_functional(name)
    x = inputs[x_name].reshape(iters, n)
    h = np.arange(n, dtype=np.uint32)
    for i in range(iters):
        h = mix_rounds(h + x[i], 8)
    assert out[out_name].tolist() == h.tolist()


# ---- seed 001: Figures 8-9, per-thread loop counts, unsorted and sorted ----------------------------

@pytest.mark.parametrize("name", ["w-loopsort-unsorted", "w-loopsort-sorted"])
def test_loop_counts_match_numpy(name):
    inputs, out = run_functional(name)
    counts = inputs["counts"]
    want = np.arange(len(counts), dtype=np.uint32)
    for i in range(int(counts.max())):            # lanes whose count is reached keep their value
        want = np.where(counts > i, mix_rounds(want, 4), want)
    assert out["out"].tolist() == want.tolist()


def test_sorted_and_unsorted_counts_are_the_same_values():
    unsorted, _ = run_functional("w-loopsort-unsorted")
    sorted_, _ = run_functional("w-loopsort-sorted")
    assert not np.all(np.diff(unsorted["counts"].astype(np.int64)) >= 0)
    assert sorted_["counts"].tolist() == sorted(unsorted["counts"].tolist())
    assert {int(c) for c in unsorted["counts"]} <= set(range(1, 65))


# ---- random(..., sorted=true) ---------------------------------------------------------------------

def test_random_sorted_flag():
    plain = parse_buffer_spec("c", "u32[100]:random(seed=8,low=1,high=64)").make()
    ordered = parse_buffer_spec("c", "u32[100]:random(seed=8,low=1,high=64,sorted=true)").make()
    assert ordered.tolist() == sorted(plain.tolist())
    assert parse_buffer_spec("c", "u32[100]:random(seed=8,low=1,high=64,sorted=0)").make().tolist() == plain.tolist()
    floats = parse_buffer_spec("f", "f32[50]:random(seed=2,low=-1,high=1,sorted=1)").make()
    assert np.all(np.diff(floats) >= 0) and floats.dtype == np.float32


@pytest.mark.parametrize("spec,message", [
    ("u32[4]:random(seed=1,sorted=yes)", "sorted must be true or false, found 'yes'"),
    ("u32[4]:random(seed=1,sortd=1)", "random() takes high, low, seed, sorted; found 'sortd'"),
])
def test_random_bad_arguments_are_input_errors(capsys, spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_buffer_spec("a", spec)
    argv = ["run", "tests/cuda/vec_add_int.ptx", "--grid", "1", "--block", "4", "--buffer", f"a={spec}"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# ---- issue-slot use ("GPU loading") ---------------------------------------------------------------

HEAD = ".version 9.0\n.target sm_90\n.address_size 64\n"
STRAIGHT = 16        # independent fp32 adds per thread in the known-count kernel


def straight_line_kernel() -> str:
    body = "\n".join(f"  add.f32 %f{i % 8 + 1}, %f0, 0f3F800000;" for i in range(STRAIGHT))
    return HEAD + (".visible .entry straight()\n{\n.reg .f32 %f<9>;\n  mov.f32 %f0, 0f00000000;\n"
                   f"{body}\n  ret;\n}}\n")


@pytest.mark.parametrize("grid,block,sets,smsps", [
    (1, 32, [], 1),                   # one warp: one SMSP of one SM
    (1, 64, [], 2),
    (1, 256, [], 4),                  # 8 warps: all four SMSPs
    (3, 32, [], 3),                   # three SMs, one warp each
    (2, 32, ["num_sms=1"], 2),        # two one-warp blocks resident on one SM at once: two SMSPs
])
def test_issue_slot_use_on_known_counts(grid, block, sets, smsps):
    cfg = simt_sim.load_config("h100", list(sets))
    res = simt_sim.simulate(simt_sim.Launch(assemble_text(straight_line_kernel()), grid, block, []), {}, cfg)
    k = res.metrics[0]
    warps = grid * (block // 32)
    assert k["warp_instructions"] == warps * (STRAIGHT + 2)            # the mov, the adds, the ret
    assert k["active_smsps"] == smsps
    assert k["issue_slot_use"] == pytest.approx(k["warp_instructions"] / (k["cycles"] * smsps), rel=1e-12)
    assert 0 < k["issue_slot_use"] <= 1


def test_active_smsps_rule():
    cfg = load_config("h100")
    assert active_smsps(cfg, blocks=4, threads_per_block=128, blocks_per_sm=16) == 16
    assert active_smsps(cfg, blocks=1, threads_per_block=1024, blocks_per_sm=2) == 4
    assert active_smsps(cfg, blocks=500, threads_per_block=32, blocks_per_sm=32) == 132 * 4   # 4 blocks per SM at once
    assert active_smsps(cfg, blocks=264, threads_per_block=32, blocks_per_sm=1) == 132         # one at a time


def test_hw_issue_slot_use_from_nsight_counters():
    counters = {"smsp__inst_executed.sum": 12000.0, "sm__cycles_elapsed.max": 5000.0}
    assert hw_issue_slot_use(counters, 4) == pytest.approx(0.6)
    assert hw_issue_slot_use(counters, 16) == pytest.approx(0.15)
    assert hw_issue_slot_use({"smsp__inst_executed.sum": None, "sm__cycles_elapsed.max": 5000.0}, 4) is None
    assert issue_slot_use(100, 50, 1, issue_width=2) == pytest.approx(1.0)


def test_cslow_raises_gpu_loading_in_the_simulator():
    """The study's claim as the simulator predicts it today: interleaving C chains per thread raises
    the issue-slot use and shortens the kernel (cycles and loading pinned loosely, by ordering)."""
    runs = {c: simt_sim.run_program(str(program_dir(f"w-cslow-c{c}")), isa="ptx").metrics[0] for c in (1, 2, 4)}
    assert runs[1]["cycles"] > runs[2]["cycles"] > runs[4]["cycles"]
    assert runs[1]["issue_slot_use"] < runs[2]["issue_slot_use"] < runs[4]["issue_slot_use"]
    assert all(r["active_smsps"] == 16 for r in runs.values())
