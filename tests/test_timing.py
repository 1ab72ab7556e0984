"""Cycle-level timing: exact issue cycles of small hand-checked programs under each scheduler,
units (latency, initiation interval, pipes), memory (coalescing, caches, banks, atomics),
barriers, occupancy, sequential and concurrent kernels, limits and determinism.

Unless a test says otherwise the machine is h100 with one SM and one sub-partition and these
values pinned (PINNED):
fp32 latency 4 / 32 lanes (ii 1), int 4 / 16 lanes (ii 2), fp64 8 / 16 lanes (ii 2),
shared memory 23 cycles and 2 more per further pass through the banks, L1 34, L2 270, DRAM 520;
branch latency 2, barrier latency 4.
"""
import numpy as np
import pytest

import simt_sim
from simt_sim.machine.layout import STALL_NAMES, TR
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend.assembler import assemble_text

from pathlib import Path

ROOT_DIR = Path(__file__).resolve().parents[1]
HEAD = ".version 9.0\n.target sm_90\n.address_size 64\n"
# the values these hand-checked cycle counts assume (h100.yaml itself is calibrated from hardware)
PINNED = ["units.fp32.latency=4", "units.int.latency=4", "units.fp64.latency=8", "units.sfu.latency=17",
          "memory.shared.latency=23", "memory.l1.latency=34", "memory.l2.latency=270", "memory.dram.latency=520",
          "memory.l2.latency_ns=0", "memory.dram.latency_ns=0", "memory.l2.host_copy_latency=0",
          "memory.l2.latency_spread_ns=[]", "memory.shared.wavefront_latency=1",
          "sm.kernel_launch_latency=0"]
ONE_SCHEDULER = ["num_sms=1", "sm.sub_partitions=1"] + PINNED


def kernel(body, name="k", params="", shared=""):
    return (HEAD + f".visible .entry {name}({params})\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<16>;\n"
            f".reg .f32 %f<16>;\n.reg .b64 %rd<16>;\n.reg .f64 %fd<8>;\n{shared}\n{body}\n}}\n")


def run(body, block=32, grid=1, sets=(), params="", args=(), buffers=None, shared="", config="h100"):
    cfg = simt_sim.load_config(config, ONE_SCHEDULER + list(sets))
    prog = assemble_text(kernel(body, params=params, shared=shared))
    return simt_sim.simulate(simt_sim.Launch(prog, grid, block, list(args)), buffers or {}, cfg, trace=True)


def issues(res, gid=None):
    """[(cycle, pc)] of the issued instructions (of one warp)."""
    t = res.raw.trace
    if gid is not None:
        t = t[t[:, TR["gid"]] == gid]
    return [(int(c), int(p)) for c, p in zip(t[:, TR["cycle"]], t[:, TR["pc"]])]


def ready_delay(res, pc):
    t = res.raw.trace[res.raw.trace[:, TR["pc"]] == pc]
    return [int(r - c) for c, r in zip(t[:, TR["cycle"]], t[:, TR["ready"]])]


TWO_CHAINS = """
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f32 %f2, %f2, %f2, %f2;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f32 %f2, %f2, %f2, %f2;
  ret;"""


@pytest.mark.parametrize("policy", ["lrr", "gto", "oldest", "two-level"])
def test_two_independent_ffma_chains_one_warp(policy):
    # A1 @0, B1 @1 (independent), A2 waits for A1 (0 + 4), B2 for B1 (1 + 4), ret next cycle.
    res = run(TWO_CHAINS, sets=[f"scheduler.policy={policy}"])
    assert issues(res) == [(0, 0), (1, 1), (4, 2), (5, 3), (6, 4)]
    # the kernel ends when the last result is written: B2 issued at 5, ready at 9
    assert res.cycles == 9
    m = res.metrics[0]
    assert m["warp_instructions"] == 5
    assert m["stall_cycles"]["wait"] == 2          # A2 waited cycles 2 and 3 on A1
    assert m["stall_cycles"]["selected"] == 5


def test_two_warps_gto_stays_greedy_lrr_alternates():
    per_warp = {
        # GTO: warp 0 issues A1, B1, then waits; warp 1 fills cycles 2-3; warp 0 (oldest) again at 4.
        "gto": {0: [0, 1, 4, 5, 6], 1: [2, 3, 7, 8, 9]},
        "oldest": {0: [0, 1, 4, 5, 6], 1: [2, 3, 7, 8, 9]},
        # LRR: one instruction per warp in turn.
        "lrr": {0: [0, 2, 4, 6, 8], 1: [1, 3, 5, 7, 9]},
        # two-level with both warps in the active pool (no memory waits): round robin in the pool
        "two-level": {0: [0, 2, 4, 6, 8], 1: [1, 3, 5, 7, 9]},
    }
    for policy, want in per_warp.items():
        res = run(TWO_CHAINS, block=64, sets=[f"scheduler.policy={policy}"])
        got = {g: [c for c, _ in issues(res, g)] for g in (0, 1)}
        assert got == want, policy
    # GTO's last FFMA issues at 8 (ready 12), LRR's at 7 (ready 11)
    assert run(TWO_CHAINS, block=64, sets=["scheduler.policy=gto"]).cycles == 12
    assert run(TWO_CHAINS, block=64, sets=["scheduler.policy=lrr"]).cycles == 11


def test_gto_keeps_a_younger_warp_oldest_switches_back():
    # warp 0 waits on an SFU result while warp 1 streams independent adds.  When the result
    # arrives, oldest-first switches to warp 0 at once; GTO stays with warp 1 until it stalls.
    adds = "\n".join(f"  add.f32 %f{2 + i % 8}, %f{2 + i % 8}, 0f3F800000;" for i in range(24))
    body = f"""
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra W1;
  rcp.approx.f32 %f1, %f1;
  add.f32 %f10, %f1, %f1;
  ret;
W1:
{adds}
  ret;"""
    rcp_pc, dep_pc = 3, 4
    for policy in ("gto", "oldest"):
        res = run(body, block=64, sets=[f"scheduler.policy={policy}"])
        w0 = dict((p, c) for c, p in issues(res, 0))
        w1_cycles = [c for c, _ in issues(res, 1)]
        ready = w0[rcp_pc] + 17
        if policy == "oldest":
            assert w0[dep_pc] == ready
        else:
            assert w0[dep_pc] > ready
            assert w0[dep_pc] > w1_cycles[-2]     # after warp 1's adds
            assert all(c + 1 == d for c, d in zip(w1_cycles[3:-1], w1_cycles[4:]))


def test_issue_width_two_from_different_warps_or_same_warp():
    # two warps, issue width 2, two fp32 pipes: both warps' A1 issue at cycle 0
    res = run(TWO_CHAINS, block=64, sets=["scheduler.issue_width=2", "scheduler.policy=lrr", "units.fp32.pipes=2"])
    assert [c for c, _ in issues(res, 0)][:2] == [0, 1]
    assert [c for c, _ in issues(res, 1)][:2] == [0, 1]
    # one warp may dual-issue independent instructions when max_issue_per_warp allows it;
    # fp32 has one pipe, so give it two
    res = run(TWO_CHAINS, sets=["scheduler.issue_width=2", "scheduler.max_issue_per_warp=2", "units.fp32.pipes=2"])
    assert issues(res) == [(0, 0), (0, 1), (4, 2), (4, 3), (5, 4)]
    # with one fp32 pipe the second FFMA waits for the unit
    res = run(TWO_CHAINS, sets=["scheduler.issue_width=2", "scheduler.max_issue_per_warp=2"])
    assert issues(res) == [(0, 0), (1, 1), (4, 2), (5, 3), (5, 4)]


def test_dfma_ffma_mix_overlaps_only_independent_work():
    body = """
  fma.rn.f64 %fd1, %fd1, %fd1, %fd1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f64 %fd1, %fd1, %fd1, %fd1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f64 %fd1, %fd1, %fd1, %fd1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  ret;"""
    res = run(body)
    # DFMA latency 8 (ii 2), FFMA 4: in-order issue, so each DFMA waits for the previous one
    assert issues(res) == [(0, 0), (1, 1), (8, 2), (9, 3), (16, 4), (17, 5), (18, 6)]
    assert res.cycles == 24
    assert res.metrics[0]["unit_busy"]["fp64"] == pytest.approx(3 * 2 / 24)
    assert res.metrics[0]["unit_busy"]["fp32"] == pytest.approx(3 / 24)


def test_throughput_limited_by_lanes():
    # 4 warps of independent DFMAs on one sub-partition: 16 lanes -> one every 2 cycles
    body = "\n".join("  fma.rn.f64 %fd{0}, %fd{0}, %fd{0}, %fd{0};".format(i % 4 + 1) for i in range(8)) + "\n  ret;"
    res = run(body, block=128)
    dfma = res.raw.trace[res.raw.trace[:, TR["unit"]] == 2]
    assert list(np.diff(dfma[:, TR["cycle"]])) == [2] * (len(dfma) - 1)
    assert res.metrics[0]["stall_cycles"]["math_pipe_throttle"] > 0


SHARED = ".shared .align 4 .b8 buf[8192];"


@pytest.mark.parametrize("shift,ways", [(2, 1), (3, 2), (4, 4), (7, 32), (0, 1)])
def test_shared_bank_conflicts(shift, ways):
    # lane i loads word (i << shift) / 4: stride 4 B conflict-free, 8 B two-way, 128 B 32-way;
    # shift 0 gives addresses 0..31: 8 lanes per word -> broadcast, no conflict; each pass after the
    # first costs the shared port's cycle and memory.shared.wavefront_latency's
    body = f"""
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, {shift};
  and.b32 %r2, %r2, -4;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  ld.shared.u32 %r5, [%r4];
  ret;"""
    res = run(body, shared=SHARED)
    assert ready_delay(res, 5) == [23 + 2 * (ways - 1)]


def test_shared_atomics_serialise_per_address():
    same = """
  mov.u32 %r3, buf;
  atom.shared.add.u32 %r5, [%r3], 1;
  ret;"""
    res = run(same, shared=SHARED)
    assert ready_delay(res, 1) == [23 + 31 * 2]
    distinct = """
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  atom.shared.add.u32 %r5, [%r4], 1;
  ret;"""
    res = run(distinct, shared=SHARED)
    assert ready_delay(res, 4) == [23]


GLOBAL_LOAD = """
  ld.param.u64 %rd1, [k_param_0];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, {stride};
  add.s64 %rd3, %rd1, %rd2;
  ld.global{cache}.u32 %r2, [%rd3];
  add.u32 %r5, %r2, 1;
  ld.global{cache}.u32 %r3, [%rd3];
  add.u32 %r4, %r2, %r3;
  ret;"""


@pytest.mark.parametrize("stride,sectors", [(4, 4), (128, 32)])
def test_global_coalescing_and_cache_levels(stride, sectors):
    buf = np.zeros(32 * stride // 4, np.uint32)
    res = run(GLOBAL_LOAD.format(stride=stride, cache=""), params=".param .u64 k_param_0",
              args=["buf"], buffers={"buf": buf})
    first, second = ready_delay(res, 4)[0], ready_delay(res, 6)[0]
    # cold: DRAM latency plus the time the sectors take through L1 (4/cycle), L2 (88/cycle),
    # DRAM (1690 B/cycle = 52.8 sectors); warm: L1 hit plus the L1 transfer
    l1_wait = (sectors - 1) / 4
    assert second == int(np.ceil(34 + l1_wait))
    l2_wait = l1_wait + (sectors - 1) / 88
    dram_wait = l2_wait + (sectors - 1) / (1690 / 32)
    assert first == int(np.ceil(520 + dram_wait))
    # .cg skips L1: the second load is an L2 hit
    res = run(GLOBAL_LOAD.format(stride=stride, cache=".cg"), params=".param .u64 k_param_0",
              args=["buf"], buffers={"buf": buf})
    assert ready_delay(res, 6)[0] == int(np.ceil(270 + l1_wait + (sectors - 1) / 88))
    assert res.metrics[0]["stall_cycles"]["long_scoreboard"] > 500


def test_stalls_by_pc_put_a_loads_wait_on_the_instruction_that_reads_it():
    """Result.stalls_by_pc: the add after the cold load (pc 5) waits its DRAM latency as
    long_scoreboard, and every instruction's issue counts once as `selected`; the per-pc figures
    sum to the kernel's stall cycles."""
    res = run(GLOBAL_LOAD.format(stride=4, cache=""), params=".param .u64 k_param_0", args=["buf"],
              buffers={"buf": np.zeros(32, np.uint32)})
    rows = res.stalls_by_pc()
    assert rows[0]["pc"] == 5 and rows[0]["instruction"].startswith("add.u32")
    latency = ready_delay(res, 4)[0]                   # the load's, the add waiting from right behind it
    assert latency - 8 <= rows[0]["stalls"]["long_scoreboard"] < latency and latency > 500
    assert all(r["stalls"].get("selected") == 1 for r in rows)          # one warp, each pc once
    # one warp alone on its SM: every cycle is a sample
    assert all(r["sample_share"] == pytest.approx(r["cycles"] / sum(q["cycles"] for q in rows)) for r in rows)
    totals = res.metrics[0]["stall_cycles"]
    for name, cycles in totals.items():
        assert sum(r["stalls"].get(name, 0) for r in rows) == cycles, name


def test_hit_on_a_line_still_being_filled_waits_for_the_fill():
    body = GLOBAL_LOAD.format(stride=4, cache="").replace("  add.u32 %r5, %r2, 1;\n", "")
    res = run(body, params=".param .u64 k_param_0", args=["buf"], buffers={"buf": np.zeros(32, np.uint32)})
    t = res.raw.trace
    first = t[t[:, TR["pc"]] == 4][0]
    second = t[t[:, TR["pc"]] == 5][0]
    assert second[TR["cycle"]] == first[TR["cycle"]] + 4        # issued right behind (LD/ST ii 4)
    assert second[TR["ready"]] == first[TR["ready"]]             # but its data comes with the fill


def test_global_atomics_serialise_per_address():
    body = """
  ld.param.u64 %rd1, [k_param_0];
  atom.global.add.u32 %r2, [%rd1], 1;
  ret;"""
    res = run(body, params=".param .u64 k_param_0", args=["c"], buffers={"c": np.zeros(1, np.uint32)})
    assert res.outputs["c"][0] == 32
    # one sector from DRAM through L2, then 31 more same-address updates at 2 cycles each
    assert ready_delay(res, 1) == [520 + 31 * 2]


def test_barrier_releases_all_warps_after_last_arrival():
    body = """
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra SKIP;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  mov.f32 %f2, %f1;
SKIP:
  bar.sync 0;
  add.f32 %f3, %f3, 0f3F800000;
  ret;"""
    res = run(body, block=64, sets=["scheduler.policy=lrr"])
    bar_pc = 7
    add_pc = 8
    w0 = dict((p, c) for c, p in issues(res, 0))
    w1 = dict((p, c) for c, p in issues(res, 1))
    last_arrival = max(w0[bar_pc], w1[bar_pc])
    assert w0[add_pc] == last_arrival + 4 or w1[add_pc] == last_arrival + 4
    assert min(w0[add_pc], w1[add_pc]) >= last_arrival + 4
    assert w1[bar_pc] < w0[bar_pc]                     # warp 1 skipped the work and waited
    assert res.metrics[0]["stall_cycles"]["barrier"] >= w0[bar_pc] - w1[bar_pc]


def test_branch_latency_and_divergence_histogram():
    body = """
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra THEN;
  add.u32 %r2, %r1, 1;
  bra.uni JOIN;
THEN:
  add.u32 %r2, %r1, 2;
JOIN:
  ret;"""
    res = run(body)
    cyc = issues(res)
    # the taken side (8 lanes, fewer) runs first; each branch delays the warp by 2 cycles
    assert [p for _, p in cyc] == [0, 1, 2, 5, 3, 4, 6]
    assert cyc[3][0] - cyc[2][0] == 2
    h = res.metrics[0]["warp_histogram"]
    assert (h["W32"], h["W8"], h["W24"]) == (4, 1, 2)
    # thread instructions: mov 32, setp 32, bra 8 (guard true), add 8, add 24, bra.uni 24, ret 32
    assert res.metrics[0]["cfe"] == pytest.approx(160 / (7 * 32))


def test_two_level_pool_demotes_warps_waiting_on_memory():
    body = """
  ld.param.u64 %rd1, [k_param_0];
  ld.global.u32 %r2, [%rd1];
  add.u32 %r3, %r2, 1;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  ret;"""
    res = run(body, block=128, params=".param .u64 k_param_0", args=["b"], buffers={"b": np.zeros(4, np.uint32)},
              sets=["scheduler.policy=two-level", "scheduler.active_pool=2"])
    # with a pool of two, warps 2 and 3 issue their first instruction only after warps 0 and 1
    # wait on their loads and leave the pool
    first = {g: issues(res, g)[0][0] for g in range(4)}
    assert first[0] < first[2] and first[1] < first[2]
    assert first[2] >= max(issues(res, 0)[1][0], issues(res, 1)[1][0])


def test_occupancy_limits_resident_blocks():
    body = """
  mov.u32 %r1, buf;
  ld.shared.u32 %r2, [%r1];
  ret;"""
    big = ".shared .align 4 .b8 buf[131072];"     # 128 KB: one block per SM (228 KB)
    one = run(body, grid=1, shared=big)
    four = run(body, grid=4, shared=big)
    occ = four.metrics[0]["occupancy"]
    assert occ["blocks_per_sm"] == 1 and occ["limiter"] == "shared memory"
    assert four.cycles >= 4 * (one.cycles - 1)
    # registers: .reg declarations give the count; a manifest-style override changes it
    cfg = simt_sim.load_config("h100", ONE_SCHEDULER)
    prog = assemble_text(kernel(body, shared=".shared .align 4 .b8 buf[64];"))
    res = simt_sim.simulate(simt_sim.Launch(prog, 1, 1024, [], registers=64), {}, cfg)
    assert res.metrics[0]["occupancy"]["blocks_per_sm"] == 1
    assert res.metrics[0]["occupancy"]["limiter"] == "registers"
    with pytest.raises(InputError, match="does not fit on an SM"):
        simt_sim.simulate(simt_sim.Launch(prog, 1, 1024, [], registers=128), {}, cfg)


def saxpy_launch(n, stream, y="y"):
    prog = simt_sim.load_program("tests/cuda/saxpy.ptx")
    return simt_sim.Launch(prog, n // 256, 256, [2.0, "x", y, n], stream=stream)


def test_sequential_and_concurrent_kernels():
    n = 2048
    cfg = simt_sim.load_config("h100", ["num_sms=2"])
    bufs = {"x": np.ones(n, np.float32), "y": np.ones(n, np.float32)}
    single = simt_sim.simulate([saxpy_launch(n, 0)], dict(bufs), cfg)
    seq = simt_sim.simulate([saxpy_launch(n, 0), saxpy_launch(n, 0)], dict(bufs), cfg)
    conc = simt_sim.simulate([saxpy_launch(n, 0), saxpy_launch(n, 1, "y2")], dict(bufs, y2=np.ones(n, np.float32)),
                             cfg)
    # in sequence the second launch sees the first one's y: y = 2x + (2x + y)
    assert np.all(seq.outputs["y"] == 5.0)
    assert np.all(conc.outputs["y"] == 3.0) and np.all(conc.outputs["y2"] == 3.0)
    k0, k1 = seq.metrics
    assert seq.raw.launches[0].program.isa == "sass"    # nvcc's PTX runs as SASS: sass.stream_kernel_gap
    gap = cfg.for_sass().get("sm.stream_kernel_gap")    # the next kernel of a stream waits it (tools/launch_sequence.py)
    assert gap > 0 and k1["first_cycle"] == k0["end_cycle"] + gap    # same stream: one after the other
    assert seq.cycles == k0["cycles"] + gap + k1["cycles"]
    assert conc.metrics[1]["first_cycle"] < conc.metrics[0]["end_cycle"]   # blocks fill in beside
    assert conc.cycles < seq.cycles
    assert single.cycles == k0["cycles"]


def test_timing_outputs_equal_functional_outputs():
    for name, args, bufs in [
        ("while_loop", lambda n: ["t", "o", n], lambda n: {"t": (np.arange(n) % 37).astype(np.int32),
                                                            "o": np.zeros(n, np.int32)}),
        ("saxpy", lambda n: [2.0, "x", "y", n], lambda n: {"x": np.arange(n, dtype=np.float32),
                                                           "y": np.ones(n, np.float32)}),
    ]:
        prog = simt_sim.load_program(f"tests/cuda/{name}.ptx")
        n = 1000
        f = simt_sim.run_functional(prog, 4, 256, args(n), bufs(n))
        t = simt_sim.simulate(simt_sim.Launch(prog, 4, 256, args(n)), bufs(n),
                              simt_sim.load_config("h100", ["num_sms=2"]))
        for k in f.outputs:
            assert np.array_equal(f.outputs[k], t.outputs[k]), name


def test_clock_reads_the_issue_cycle():
    body = """
  mov.u64 %rd2, %clock64;
  fma.rn.f32 %f1, %f1, %f1, %f1;
  add.f32 %f2, %f1, %f1;
  mov.u64 %rd3, %clock64;
  sub.s64 %rd4, %rd3, %rd2;
  ld.param.u64 %rd1, [k_param_0];
  st.global.u64 [%rd1], %rd4;
  ret;"""
    res = run(body, block=1, params=".param .u64 k_param_0", args=["o"], buffers={"o": np.zeros(1, np.int64)})
    # mov @0; fma @1 (int pipe free, no deps); add waits for fma until 5; clock read @6
    assert res.outputs["o"][0] == 6


def test_deterministic_and_cycle_limit():
    n = 2048
    cfg = simt_sim.load_config("h100", ["num_sms=2"])
    bufs = {"x": np.ones(n, np.float32), "y": np.ones(n, np.float32)}
    a = simt_sim.simulate([saxpy_launch(n, 0)], dict(bufs), cfg, trace=True)
    b = simt_sim.simulate([saxpy_launch(n, 0)], dict(bufs), cfg, trace=True)
    assert a.metrics == b.metrics and np.array_equal(a.raw.trace, b.raw.trace) \
        and np.array_equal(a.raw.stall_log, b.raw.stall_log)
    with pytest.raises(RuntimeFault, match=r"cycle limit of 100 cycles reached; kernel saxpy, block \(\d+,0,0\), warp \d+"):
        simt_sim.simulate(saxpy_launch(n, 0), dict(bufs), cfg.with_overrides(["limits.max_cycles=100"]))


def test_interrupt_keeps_statistics_so_far(monkeypatch):
    import simt_sim.run.timed as S
    monkeypatch.setattr(S, "SLICE_INSTS", 50)
    seen = []

    def progress(cycle, insts, seconds):
        seen.append((cycle, insts))
        raise KeyboardInterrupt

    n = 4096
    # Ctrl-C raises Interrupted (a KeyboardInterrupt) carrying the statistics so far
    with pytest.raises(simt_sim.Interrupted) as stopped:
        simt_sim.simulate(saxpy_launch(n, 0), {"x": np.ones(n, np.float32), "y": np.ones(n, np.float32)},
                          simt_sim.load_config("h100", ["num_sms=2"]), progress=progress)
    res = stopped.value.result
    assert res.raw.interrupted and res.interrupted and seen
    assert res.to_json()["complete"] is False and res.to_json()["outputs"] == {}
    m = res.metrics[0]
    assert not m["finished"]
    assert 50 <= m["warp_instructions"] < 512 and m["cycles"] > 0


def test_stall_reasons_are_nsight_names():
    assert {"long_scoreboard", "short_scoreboard", "math_pipe_throttle", "barrier", "branch_resolving",
            "not_selected", "no_instruction", "wait", "selected", "lg_throttle", "mio_throttle",
            "drain", "dispatch_stall", "imc_miss"} == set(STALL_NAMES)


@pytest.mark.parametrize("override,message", [
    ("units.fp32.lanse=3", "unknown key 'units.fp32.lanse'"),
    ("units.fp32.lanes=0", "units.fp32.lanes must be positive"),
    ("scheduler.policy=fifo", "scheduler.policy must be one of lrr, gto, two-level, oldest"),
    ("memory.l1.latency=fast", "memory.l1.latency: expected int"),
    ("latency_overrides={frob: 3}", "not an opcode"),
])
def test_config_errors_are_reported(override, message):
    with pytest.raises(InputError, match=message):
        simt_sim.load_config("h100", [override])


def test_config_errors_name_file_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("name: bad\nwarp_size: 32\nunits:\n  fp32: {pipes: 1, lanes: 32, latency: -4}\n")
    with pytest.raises(InputError) as e:
        simt_sim.load_config(str(p))
    assert str(e.value).startswith(f"{p}:4:")
    assert "units.fp32.latency must be positive" in str(e.value)


def test_cli_prints_metrics_and_writes_json(tmp_path, capsys):
    from simt_sim.cli.main import Progress, main
    import json
    out = tmp_path / "m.json"
    assert main(["run", "programs/examples/data-loop", "--scheduler", "lrr", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    for label in ("cycles, launch to end", "IPC, warp-instr/cycle, all SMs", "CFE, share of lanes", "issue-slot use",
                  "stall reasons, warp-cycles per issue\n  selected", "scheduler lrr"):
        assert label in text
    doc = json.loads(out.read_text())
    m = doc["metrics"]["kernels"][0]
    assert m["cycles"] == doc["metrics"]["cycles"] > 0
    assert sum(m["warp_histogram"].values()) == m["warp_instructions"]
    assert doc["metrics"]["summary"]["W0"] >= 0
    # the progress line shows cycles and rates
    import io
    import sys
    err = io.StringIO()
    old, sys.stderr = sys.stderr, err
    try:
        p = Progress(True)
        p(1000, 5000, 0.5)
        p.close()
    finally:
        sys.stderr = old
    assert "cycle 1,000" in err.getvalue() and "10,000/s" in err.getvalue()
    assert main(["configs", "--show", "teaching-w8"]) == 0
    assert "sub_partitions: 1" in capsys.readouterr().out


def test_register_override_from_the_command_line_changes_occupancy(tmp_path, capsys):
    from simt_sim.cli.main import main
    import json
    out = tmp_path / "m.json"
    assert main(["run", "programs/examples/data-loop", "--quiet", "--registers", "255", "--json", str(out)]) == 0
    occ = json.loads(out.read_text())["metrics"]["kernels"][0]["occupancy"]
    assert occ["registers_per_thread"] == 255
    assert main(["run", "programs/examples/data-loop", "--quiet", "--registers", "0"]) == 2


def test_manifest_more_launches_run_concurrently(tmp_path):
    from simt_sim.cli.main import main
    import json
    out = tmp_path / "m.json"
    assert main(["run", "programs/examples/two-streams", "--quiet", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    k0, k1 = doc["metrics"]["kernels"]
    assert (k0["kernel"], k1["kernel"]) == ("saxpy", "ffma_loop")
    assert k0["first_cycle"] == k1["first_cycle"] == 0                 # different streams
    assert doc["metrics"]["cycles"] == max(k0["end_cycle"], k1["end_cycle"])
    y = np.array(doc["outputs"]["y"][:4])
    assert list(y) == [1.0, 3.0, 5.0, 7.0]
    # the same launches in one stream run one after the other
    text = (ROOT_DIR / "programs/examples/two-streams/manifest.yaml").read_text().replace("    stream: 1", "    stream: 0")
    (tmp_path / "kernel.ptx").write_text((ROOT_DIR / "programs/examples/two-streams/kernel.ptx").read_text())
    (tmp_path / "manifest.yaml").write_text(text)
    assert main(["run", str(tmp_path), "--quiet", "--json", str(out)]) == 0
    k0, k1 = json.loads(out.read_text())["metrics"]["kernels"]
    assert k1["first_cycle"] == k0["end_cycle"] + simt_sim.load_config("h100").get("sm.stream_kernel_gap")


def test_manifest_more_launches_errors(tmp_path):
    from simt_sim.frontend.manifest import load_manifest
    (tmp_path / "kernel.ptx").write_text((ROOT_DIR / "programs/examples/two-streams/kernel.ptx").read_text())
    base = (ROOT_DIR / "programs/examples/two-streams/manifest.yaml").read_text()
    (tmp_path / "manifest.yaml").write_text(base.replace("    grid: 16\n    block: 256\n    args: [o, 20]",
                                                         "    block: 256\n    args: [o, 20]"))
    with pytest.raises(InputError, match="missing required key 'more_launches.0.grid'") as e:
        load_manifest(str(tmp_path))
    assert ":16:5:" in str(e.value)
    (tmp_path / "manifest.yaml").write_text(base.replace("args: [o, 20]", "args: [q, 20]"))
    with pytest.raises(InputError, match="argument 'q' is not a buffer"):
        load_manifest(str(tmp_path))


def test_the_shared_port_calendar_lets_a_later_issued_access_take_an_earlier_gap():
    """caches.book_port: accesses booked in cycle order get the port's first free cycle, as a queue
    would; an access issued later but entering its pipe sooner (sass.memory_queue) takes a free gap
    before an earlier-issued one's passes instead of waiting behind them, and one that does not fit
    in the gap goes past the booking."""
    import numpy as np
    from simt_sim.engine.cycle.caches import SHARED_CALENDAR, book_port
    booked = np.zeros((1, SHARED_CALENDAR), np.int64)
    end = np.zeros((1, SHARED_CALENDAR), np.int64)
    assert book_port(booked, end, 0, 10, 4) == 10         # 10..13
    assert book_port(booked, end, 0, 10, 2) == 14         # in cycle order: behind it
    assert book_port(booked, end, 0, 40, 4) == 40         # a queued access, 40..43
    assert book_port(booked, end, 0, 20, 8) == 20         # issued later, enters sooner: 20..27
    assert book_port(booked, end, 0, 30, 12) == 44        # 30..41 would overlap 40..43
    assert book_port(booked, end, 0, 28, 12) == 28        # 28..39 fits before 40
