"""Program probes: what the t-* microbenchmark programs measure, on the H100 and in the simulator.

Each probe names its programs (programs/probes/t-*/, CUDA with an H100 reference recorded by
`simt-sim hw record`) and a derivation from their clock buffers (or, for launch costs, from the
kernel's elapsed cycles: Nsight Compute's sm__cycles_elapsed.max on the H100, the simulated
cycles in the model; for event-timed launches, the CUDA-event time).  The same derivation runs on
the recorded H100 clocks and on a simulator run of the same cubin, so the table says how far the
timing model is from the hardware on each element that the SASS control codes do not describe
(issue 13, point 2):

    python -m simt_sim.calibrate.probes [--isa sass|ptx] [--json FILE] [PROBE ...]

(the kernel probes with their own CUDA files and recordings are the registry of this package:
`simt-sim probe --list`).

The values are measurements of the H100, never fitted to the workload programs.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from simt_sim.files import write_atomic
from simt_sim.calibrate.compare import recorded_array, simulated_elapsed
from simt_sim.errors import InputError
from simt_sim.frontend.manifest import load_manifest
from simt_sim.frontend.sass_lower import load_kernel
from simt_sim.machine.config import load_config
from simt_sim.run.timed import manifest_launches, simulate
from simt_sim.isa.table import ISAS
from simt_sim.calibrate.reference import load_reference
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[3]
PROGRAMS = ROOT / "programs"


@dataclass(frozen=True)
class Probe:
    name: str
    programs: tuple[str, ...]
    unit: str
    derive: Callable[[list[dict]], float]      # one {"clk": int64 array, "cycles": int} per program
    meaning: str
    modelled: bool = True                      # False: measured, not in the model yet
    abs_tolerance: float = 0.0                 # the model's allowance beside 10%, in the probe's unit
    profiled: bool = False                     # derives from ncu's cycles: simulated under ncu's conditions


def per_read(m):
    c = m[0]["clk"]
    return (c[1] - c[0]) / 33


def iteration(k):
    """t-diverge and t-diverge-w*: the slowest warp's run k (0 converged, 1 divergent) over its 64
    iterations (clk[4 * warp + 2 * k] = start, + 1 = end)."""
    def derive(m):
        c = m[0]["clk"].reshape(-1, 4)
        return float(np.max(c[:, 2 * k + 1] - c[:, 2 * k])) / 64
    return derive


def pass_cycles(n, k):
    return lambda m: (m[0]["clk"][2 * k + 1] - m[0]["clk"][2 * k]) / n


def loads_per_cycle(warps_per_sp, per_warp=256):
    """Warp-instructions per cycle per SM of a t-*-tput program: 4 sub-partitions x warps_per_sp
    warps x per_warp each, over the span from the first warp's start to the last one's end."""
    def derive(m):
        c = m[0]["clk"]
        return 4 * warps_per_sp * per_warp / (c[1::2].max() - c[0::2].min())
    return derive


def burst_cycles(first, last, per):
    """t-mio-*: cycles between the clock reads after the `first`-th and `last`-th clock point of
    the second pass (clk[12 * warp + 6 + j]: after 0, 4, 8, 16, 32 loads and after their use),
    divided by `per`; the slowest warp."""
    def derive(m):
        c = m[0]["clk"].reshape(-1, 2, 6)[:, 1]
        return float(np.max(c[:, last] - c[:, first])) / per
    return derive


def store_burst(first, last):
    """t-stg-burst-*: cycles between the clock reads after the `first`-th and `last`-th clock point
    (clk[8 * warp + j]: after 0, 1, 2, 4, 8, 16, 32 and 64 stores), the slowest warp."""
    def derive(m):
        c = m[0]["clk"].reshape(-1, 8)
        return float(np.max(c[:, last] - c[:, first]))
    return derive


def store_step_cost(m):
    """t-opread, warm round: cycles per step that a loop of (STS x; FFMA x <- x) takes beyond
    the same loop of FFMAs alone: the FFMA waits for the store to read x (its read barrier)."""
    c = m[0]["clk"]
    return ((c[5] - c[4]) - (c[7] - c[6])) / 64


def shared_issue(m):
    """Span of the two warps sharing sub-partition 0 over the mean span of the warps alone."""
    c = m[0]["clk"].reshape(5, 9)
    together = max(c[0, 8], c[4, 8]) - min(c[0, 0], c[4, 0])
    alone = np.mean([c[w, 8] - c[w, 0] for w in (1, 2, 3)])
    return together / alone


def interleaved(m):
    """Fraction of warp 4's checkpoints that fall before warp 0 finishes (1: fully interleaved
    issue, 0: warp 0 ran to its end first)."""
    c = m[0]["clk"].reshape(5, 9)
    return float(np.mean(c[4, 1:] < c[0, 8]))


def chase_latency(pass_index, first, last):
    """Median latency of loads first..last-1 of one t-tlb pass (clk[k + 1] - clk[k] is load k's)."""
    def derive(m):
        lat = np.diff(m[0]["clk"].reshape(3, 33)[pass_index])
        return float(np.median(lat[first:last]))
    return derive


def warp_iteration(warps_per_sp=8, iters=256):
    """t-fp64-issue-*: a sub-partition's cycles per warp-iteration (the span of all the block's
    warps over iterations x the warps that share each scheduler)."""
    def derive(m):
        c = m[0]["clk"].reshape(-1, 2)
        return (c[:, 1].max() - c[:, 0].min()) / (iters * warps_per_sp)
    return derive


def extra_per_iteration(warps_per_sp=8):
    """t-fp64-issue-X against its -f0 twin: the cycles a warp-iteration of X costs beyond 8 FMULs."""
    per = warp_iteration(warps_per_sp)
    return lambda m: per(m[1:]) - per(m[:1])


def warp_span_spread(m):
    """t-fp64-issue-f0: the longest warp's span over the shortest's (1: the scheduler shares issue
    evenly, every warp ends together; a greedy scheduler runs some warps to their end first)."""
    c = m[0]["clk"].reshape(-1, 2)
    spans = c[:, 1] - c[:, 0]
    return spans.max() / spans.min()


LDG_FORMS = ("cg", "ca", "plain", "nc")


def chase_steps(clocks):
    """A chase's step latencies from the clock read before it and after each load (last axis):
    step 0 left out, as it also waits for whatever came before the chase."""
    return np.diff(clocks, axis=-1)[..., 1:]


def first_touches(m, form):
    """t-ldg-path: the first pass's latencies of one load form."""
    return chase_steps(m[0]["clk"].reshape(4, 2, 33)[LDG_FORMS.index(form), 0])


def first_touch_mean(forms):
    return lambda m: float(np.mean([first_touches(m, f) for f in forms]))


def l1_hit_mean(m):
    """t-ldg-path: the second pass of the three forms that allocate in L1 (.ca, plain, .nc): a
    dependent LDG's step through lines in L1."""
    second = m[0]["clk"].reshape(4, 2, 33)[[LDG_FORMS.index(f) for f in ("ca", "plain", "nc")], 1]
    return float(np.mean(chase_steps(second)))


def lane_chase(part):
    """t-chase-lanes: the mean step of one of its four chains (0 LDS lane 0, 1 LDS 32 lanes, 2 LDG
    lane 0, 3 LDG 32 lanes)."""
    return lambda m: float(np.mean(chase_steps(m[0]["clk"].reshape(4, 33)[part])))


def chase_growth(chain):
    """t-chase-warps-N against -1: how much longer a step of one chain (0 LDS, 1 LDG hitting L1,
    32 lanes each) gets when N warps per sub-partition chase at once."""
    def step(m):
        return float(np.mean(chase_steps(m["clk"].reshape(-1, 2, 33)[:, chain])))
    return lambda m: step(m[1]) - step(m[0])


def first_touch_side(far):
    """Median first touch of the lines in the far (above 380 cycles) or near L2 partition, all four
    forms together; where nothing falls on one side (the model has one latency), all of them."""
    def derive(m):
        lat = np.concatenate([first_touches(m, f) for f in LDG_FORMS])
        side = lat[lat > 380] if far else lat[lat <= 380]
        return float(np.median(side if side.size else lat))
    return derive


def block_cost(m):
    """Extra cycles per block per SM between 8 and 64 blocks per SM (132 SMs)."""
    return (m[1]["cycles"] - m[0]["cycles"]) / ((8448 - 1056) / 132)


# t-regbank-*: 256 independent FFMAs, second pass (warm); sources renumbered by each program's
# kernel.sass-patch.yaml (residues are register numbers mod 4)
REGBANK_VARIANTS = (
    ("ptxas", "FFMA as ptxas allocates: one register read, two operands from the reuse cache"),
    ("noreuse", "ptxas's registers with the reuse flags cleared: three reads"),
    ("same3", "three reads, residues (0,0,0) (1,1,1) (2,2,2) (3,3,3)"),
    ("same2", "three reads, residues (0,0,1) (1,1,0) (2,2,3) (3,3,2)"),
    ("parity3", "three reads, residues (0,2,0) (1,3,1) (2,0,2) (3,1,3)"),
    ("distinct4", "three reads, residues (0,1,2) (1,2,3) (2,3,0) (3,0,1)"),
    ("same3-reuse", "one read, two reused operands that 2 of 16 FFMAs overwrite (refills: partly modelled)"),
)

PROBES = [
    Probe("clock_read", ("t-clock-read",), "cycles", per_read, "one CS2R SR_CLOCKLO read, back to back"),
    Probe("loop_iteration_converged", ("t-diverge",), "cycles", iteration(0),
          "if/else loop iteration, 8 dependent FFMAs a side, all lanes on one side"),
    Probe("loop_iteration_divergent", ("t-diverge",), "cycles", iteration(1),
          "the same iteration with lanes split 16/16 (both sides, BSSY/BSYNC)"),
    # measured, not modelled: one control instruction per 5 cycles per sub-partition gives them
    # (sass.units.control.lanes: 7), but moves the studies off (docs/timing.md)
    *(Probe(f"loop_iteration_{kind}_w{w}", (f"t-diverge-w{w}",), "cycles", iteration(k),
            f"the same iteration, {kind}, with {w} warps per sub-partition running it", modelled=False)
      for w in (4, 8) for k, kind in ((0, "converged"), (1, "divergent"))),
    Probe("two_warps_one_subpartition", ("t-sched-5w",), "x lone span", shared_issue,
          "span of 2 warps on one sub-partition over a lone warp's (512 independent FFMAs each)"),
    Probe("issue_interleaving", ("t-sched-5w",), "fraction", interleaved,
          "warp 4's progress points before warp 0 ends (1 = round-robin-like sharing)"),
    Probe("fetch_512_cold", ("t-icache-512",), "cycles/inst", pass_cycles(512, 0), "8 KiB straight-line block, first pass"),
    Probe("fetch_512_warm", ("t-icache-512",), "cycles/inst", pass_cycles(512, 1), "8 KiB block, second pass"),
    Probe("fetch_4096_warm", ("t-icache-4096",), "cycles/inst", pass_cycles(4096, 1), "64 KiB block, second pass"),
    Probe("fetch_16384_warm", ("t-icache-16384",), "cycles/inst", pass_cycles(16384, 1), "256 KiB block, second pass"),
    Probe("lds_per_cycle_w1", ("t-lds-tput-w1",), "warp-inst/cycle/SM", loads_per_cycle(1),
          "conflict-free LDS.32, 1 warp per sub-partition"),
    Probe("lds_per_cycle_w8", ("t-lds-tput-w8",), "warp-inst/cycle/SM", loads_per_cycle(8),
          "conflict-free LDS.32, 8 warps per sub-partition"),
    Probe("ldg_l1_per_cycle_w1", ("t-ldg-tput-w1",), "warp-inst/cycle/SM", loads_per_cycle(1),
          "L1-hit LDG.32, 1 warp per sub-partition"),
    Probe("ldg_l1_per_cycle_w8", ("t-ldg-tput-w8",), "warp-inst/cycle/SM", loads_per_cycle(8),
          "L1-hit LDG.32, 8 warps per sub-partition"),
    # the model's 4 warps reach the store port's steady rate sooner than the H100's (docs/timing.md)
    *(Probe(f"stg_per_cycle_w{w}", (f"t-stg-tput-w{w}",), "warp-inst/cycle/SM", loads_per_cycle(w, 128),
            f"back-to-back STG.32 of 32 lanes on one line each, {w} warp(s) per sub-partition",
            abs_tolerance=0.035 if w == 1 else 0.0) for w in (1, 8)),
    *(Probe(name, (program,), "cycles", store_burst(first, last), meaning,
            abs_tolerance=130.0 if name == "stg_burst_w4_32_64" else 0.0)
      for name, program, first, last, meaning in (
        ("stg_burst_lone_16_32", "t-stg-burst-1", 5, 6,
         "a lone warp's back-to-back line stores 16 to 32 (the 1st to 16th at 4 cycles each)"),
        ("stg_burst_lone_32_64", "t-stg-burst-1", 6, 7, "the same warp's stores 32 to 64"),
        ("stg_burst_w4_16_32", "t-stg-burst-4", 5, 6, "stores 16 to 32 with a warp on each sub-partition"),
        ("stg_burst_w4_32_64", "t-stg-burst-4", 6, 7, "stores 32 to 64 with a warp on each sub-partition"),
        ("stg_burst_sector_w4_32_64", "t-stg-burst-4-sector", 6, 7,
         "the same with one-sector STG.U8 of 32 lanes"))),
    Probe("lds_burst_first4", ("t-mio-w1",), "cycles", burst_cycles(0, 1, 1),
          "a clock read and the first 4 of a burst of independent LDS.32 (1 warp)"),
    Probe("lds_burst_issue_w1", ("t-mio-w1",), "cycles/LDS", burst_cycles(1, 4, 28),
          "LDS 5 to 32 of the burst: issue interval (1 warp)"),
    Probe("lds_burst_issue_w4", ("t-mio-w4",), "cycles/LDS", burst_cycles(1, 4, 28),
          "the same with a warp on each of the 4 sub-partitions (the slowest)"),
    Probe("l2_hit_chase", ("t-tlb",), "cycles", chase_latency(1, 1, 32),
          "ld.global.cg chase over lines already read once (L2 hits), 2 MiB apart"),
    Probe("first_touch_dram", ("t-tlb",), "cycles", chase_latency(0, 1, 9),
          "the first ld.global.cg into each of 8 fresh 2 MiB regions of a freshly copied buffer", modelled=False),
    Probe("ldg_first_touch", ("t-ldg-path",), "cycles", first_touch_mean(LDG_FORMS),
          "mean first touch of host-copied lines 256 B apart, the four forms' chains (.cg, .ca, plain, .nc: "
          "33 KiB, blocks of both L2 partitions)"),
    Probe("ldg_first_touch_nc", ("t-ldg-path",), "cycles", first_touch_mean(("nc",)),
          "the same, ld.global.nc's chain alone (LDG.E.CONSTANT): its mean is where its 8 KiB fall between "
          "the partitions, on the H100 11 near lines and 20 far", modelled=False),
    Probe("l1_hit_chase", ("t-ldg-path",), "cycles", l1_hit_mean,
          "the same chains again (.ca, plain, .nc): each dependent load hits L1"),
    *(Probe(name, ("t-chase-lanes",), "cycles", lane_chase(part), meaning) for name, part, meaning in (
        ("lds_chase", 0, "dependent LDS, lane 0 alone, a clock read after each"),
        ("lds_chase_32_lanes", 1, "the same with 32 lanes, conflict-free: the lanes add nothing"),
        ("l1_hit_chase_32_lanes", 3,
         "dependent LDG.E.CONSTANT hitting L1, 32 lanes on 32 words of one line (lane 0 alone: 38 too)"))),
    *(Probe(f"{kind}_chase_{n}_warps", ("t-chase-warps-1", f"t-chase-warps-{n}"), "cycles", chase_growth(chain),
            f"what {n} warps per sub-partition chasing at once add to a step of the 32-lane {what} chain "
            f"(t-chase-lanes' pattern) over one warp" + ("" if n == 2 else ": not modelled"),
            modelled=n == 2, abs_tolerance=0.5)
      for n in (2, 4) for kind, chain, what in (("lds", 0, "LDS"), ("ldg", 1, "L1-hit LDG"))),
    Probe("l2_near_first_touch", ("t-ldg-path",), "cycles", first_touch_side(False),
          "first touches of lines in the SM's own L2 partition (every second 8 KiB of the buffer)"),
    Probe("l2_far_first_touch", ("t-ldg-path",), "cycles", first_touch_side(True),
          "first touches of lines in the other L2 partition; a second touch costs a near one's"),
    # the scheduler (h100.yaml's grr): 1, 2, 4 and 8 warps per sub-partition run the same FMUL loop
    *(Probe(f"issue_fp32_loop{sfx.replace('-', '_')}", (f"t-fp64-issue-f0{sfx}",), "cycles/warp-iter", warp_iteration(w),
            f"{w} warp{'s' if w > 1 else ''} per sub-partition, each iteration 8 independent FMULs and 3 loop "
            f"instructions (stall counts 24: one warp alone is latency-bound, 8 are issue-bound)")
      for sfx, w in (("-w1", 1), ("-w2", 2), ("-w4", 4), ("", 8))),
    Probe("issue_warp_span_spread", ("t-fp64-issue-f0",), "longest / shortest", warp_span_spread,
          "8 warps per sub-partition: how evenly the scheduler shares issue (1 = all end together; gto 2.4)"),
    Probe("issue_fp32_loop_u2", ("t-fp64-issue-f0-u2",), "cycles/warp-iter", warp_iteration(),
          "the same with two iterations per loop trip (one loop branch per 16 FMULs)"),
    *(Probe(f"issue_extra_{v.replace('-', '_')}", (f"t-fp64-issue-{twin}", f"t-fp64-issue-{v}"), "cycles/warp-iter",
            extra_per_iteration(w), meaning, modelled=modelled, abs_tolerance=0.25 if w > 4 else 0.0)
      for v, twin, w, meaning, modelled in (
        ("d1", "f0", 8, "one FMUL of the 8 a DMUL: issue cycles added (Nsight Compute: dispatch stalls)", True),
        ("d2", "f0", 8, "two DMULs instead of FMULs: the H100's 8 warps lose 0.73 cycles, the model's 1.05, "
                        "which moves by 0.3 with a cycle more or less before the loop (the H100's 8-warp cost "
                        "does not: probe dmul_phase)", False),
        ("d4", "f0", 8, "four DMULs instead of FMULs (the FP64 pipe then busy 8 of every ~12 cycles)", True),
        ("i1", "f0", 8, "one IMAD instead of an FMUL (FMA-heavy pipe only: math-pipe throttle)", True),
        ("cvt", "f0", 8, "F2F.F64.F32 and a DMUL of the last FP32 chain added to the 8 FMULs (XU results "
                         "take the register-file write port too)", True),
        ("d1-w1", "f0-w1", 1, "one DMUL, one warp per sub-partition (latency-bound): the warp's own cost", True),
        ("d2-w1", "f0-w1", 1, "two DMULs, one warp: no more than one", True),
        ("d4-w1", "f0-w1", 1, "four DMULs, one warp: no more than one", True),
        ("i1-w1", "f0-w1", 1, "one IMAD, one warp (Nsight Compute: math-pipe throttle)", True),
        ("cvt-w1", "f0-w1", 1, "F2F.F64.F32 then a dependent DMUL, one warp: conversion and DMUL latency", True),
        ("cvt2-w1", "f0-w1", 1, "F2F.F64.F32, DMUL and F2F.F32.F64 dependent, one warp: both conversions", True),
        ("d1-w2", "f0-w2", 2, "one DMUL, two warps per sub-partition", True),
        ("d1-w4", "f0-w4", 4, "one DMUL, four warps per sub-partition", True),
        ("d1-u2", "f0-u2", 8, "one DMUL per iteration, two iterations per loop trip", True),
        ("d1-vr", "f0", 8, "one DMUL with its factor in vector registers (DMUL R, R, R): 0.91 before grr let a "
                           "warp passed over for its pipe go first, 0.55 since", False))),
    # t-fmul*: UIADD3, k FMULs and an IMAD in ptxas's order (loop stall counts 24), against the
    # 8-FMUL loop: the IMAD waits a cycle for the FMA-heavy pipe when the FMUL before it took it
    *(Probe(f"imad_after_{k}_fmuls_w1", ("t-fp64-issue-f0-w1", f"t-fmul{k}-imad-w1"), "cycles/warp-iter",
            extra_per_iteration(1), f"{k} FMUL{'s' if k > 1 else ''} then an IMAD, one warp: " + meaning,
            modelled=k != 5, abs_tolerance=0.25)
      for k, meaning in ((1, "the FMUL took the lite pipe"), (2, "the second FMUL took the heavy pipe"),
                         (3, "lite, heavy, lite"), (4, "the fourth took the heavy pipe"),
                         (5, "ISETP between: the heavy pipe free, yet a cycle (the loop's target is 7th of its "
                             "line: sass.fetch.redirect_next_line_cycles)"),
                         (6, "5 FMULs, ISETP, FMUL (lite)"), (7, "5 FMULs, ISETP, 2 FMULs (lite, heavy)"))),
    *(Probe(f"issue_fmul{k}_imad", (f"t-fmul{k}-imad",), "cycles/warp-iter", warp_iteration(),
            f"8 warps per sub-partition: {k} FMUL{'s' if k > 1 else ''}, an IMAD and 3 loop instructions "
            f"({k + 4} issue slots)") for k in range(1, 8)),
    *(Probe(f"fmul_loop_{k}_w1", (f"t-fmul{k}-w1",), "cycles/warp-iter", warp_iteration(1),
            f"{k} FMULs, ISETP right before the branch, one warp: 2 cycles over the 8-FMUL loop (the loop's "
            f"target is the last of its line: sass.fetch.redirect_next_line_cycles)") for k in (1, 5)),
    *(Probe(f"loop_target_slot{k}", (f"t-fetch-slot{k}",), "cycles/warp-iter", warp_iteration(1),
            f"a lone warp's one-FMUL loop (UIADD3, FMUL, ISETP, BRA) whose first instruction is slot {k} of its "
            f"128-byte line" + (": 2 cycles a trip more than in any other slot" if k == 7 else ""))
      for k in range(8)),
    Probe("loop_target_last_in_line", tuple(f"t-fetch-slot{k}" for k in range(8)), "cycles/warp-iter",
          lambda m: warp_iteration(1)(m[7:]) - float(np.mean([warp_iteration(1)([x]) for x in m[:7]])),
          "what slot 7 adds to a trip of that loop over the mean of slots 0-6 (sass.fetch.redirect_next_line_cycles)",
          abs_tolerance=0.25),
    *(Probe(f"regbank_{v.replace('-', '_')}", (f"t-regbank-{v}",), "cycles/inst", pass_cycles(256, 1), meaning,
            modelled=v != "same3-reuse") for v, meaning in REGBANK_VARIANTS),
    Probe("store_operand_read", ("t-opread",), "cycles/step", store_step_cost,
          "what an STS of x adds to each step of an FFMA chain that then overwrites x (write after read)"),
    Probe("launch_empty", ("launch-empty",), "cycles", lambda m: m[0]["median_cycles"],
          "an empty kernel (one warp reading %tid.x), launch to end: the median profiled launch",
          profiled=True),
    Probe("launch_one_block", ("t-launch-1",), "cycles", lambda m: m[0]["cycles"],
          "a kernel of one nearly empty 128-thread block, launch to end", profiled=True),
    Probe("block_cost", ("t-launch-1056", "t-launch-8448"), "cycles/block/SM", block_cost,
          "each further nearly empty block on an SM (8 to 64 blocks per SM)", profiled=True),
    Probe("launch_one_block_events", ("t-launch-1",), "cycles", lambda m: m[0]["elapsed"],
          "the same launch timed by CUDA events around it (the model: its cycles + host.event_overhead)"),
]


def h100_measurement(name: str) -> dict:
    path = program_dir(name) / "reference" / "h100.json"
    if not path.exists():
        raise InputError(f"{path}: not recorded (simt-sim hw record {name})")
    ref = load_reference(path)
    clk = recorded_array(ref["outputs"]["clk"]).view(np.int64) if "clk" in ref["outputs"] else None
    profiled = [n["sm__cycles_elapsed.max"] for n in ref.get("ncu") or []]
    return {"clk": clk, "cycles": profiled[0] if profiled else None,
            "median_cycles": float(np.median(profiled)) if profiled else None,
            "elapsed": (ref.get("elapsed") or {}).get("cycles")}


def simulated_measurement(name: str, isa: str | None, sets: list[str] | None = None,
                          profiled: bool = False) -> dict:
    """The program as its manifest says, on its config (plus `--set` items), timed (isa: its
    kernel's PTX or SASS) as a plain launch, or with `profiled` under ncu's conditions
    (GPUConfig.under_profiler), as the H100 cycles a Probe.profiled compares with were."""
    m = load_manifest(str(program_dir(name)))
    prog = load_kernel(str(m.kernel_file), m.kernel, isa)
    cfg = load_config(m.config, (m.overrides or []) + (sets or []))
    res = simulate(manifest_launches(m, prog, isa), {s.name: s.make() for s in m.buffers},
                   cfg.under_profiler() if profiled else cfg)
    clk = np.ascontiguousarray(res.buffers["clk"]).view(np.int64) if "clk" in res.buffers else None
    return {"clk": clk, "cycles": res.cycles, "median_cycles": res.cycles,
            "elapsed": simulated_elapsed(res)}


def probe(name: str) -> Probe:
    found = [p for p in PROBES if p.name == name]
    if not found:
        raise InputError(f"unknown probe {name!r}; known: {', '.join(p.name for p in PROBES)}")
    return found[0]


def h100_value(p: Probe) -> float:
    return float(p.derive([h100_measurement(n) for n in p.programs]))


def simulated_value(p: Probe, isa: str | None = "sass", sets: list[str] | None = None) -> float:
    return float(p.derive([simulated_measurement(n, isa, sets, p.profiled) for n in p.programs]))


def probe_table(names: list[str] | None = None, isa: str | None = "sass") -> list[dict]:
    """One row per probe: H100 value, simulated value and their ratio."""
    chosen = [p for p in PROBES if not names or p.name in names]
    unknown = set(names or []) - {p.name for p in PROBES}
    if unknown:
        raise InputError(f"unknown probe(s): {', '.join(sorted(unknown))}; known: {', '.join(p.name for p in PROBES)}")
    sim_cache: dict[tuple[str, bool], dict] = {}
    rows = []
    for p in chosen:
        hw = p.derive([h100_measurement(n) for n in p.programs])
        for n in p.programs:
            if (n, p.profiled) not in sim_cache:
                sim_cache[n, p.profiled] = simulated_measurement(n, isa, profiled=p.profiled)
        sim = p.derive([sim_cache[n, p.profiled] for n in p.programs])
        rows.append({"probe": p.name, "unit": p.unit, "h100": round(float(hw), 3), "simulated": round(float(sim), 3),
                     "sim_over_h100": round(float(sim) / float(hw), 3) if hw else None, "programs": list(p.programs),
                     "meaning": p.meaning})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simt_sim.calibrate.probes", description=__doc__.splitlines()[0])
    ap.add_argument("probes", nargs="*", help="probe names (default: all)")
    ap.add_argument("--isa", choices=ISAS, default="sass")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    ns = ap.parse_args(argv)
    try:
        rows = probe_table(ns.probes, ns.isa)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{'probe':30} {'unit':20} {'H100':>10} {'simulated':>10} {'sim/H100':>9}")
    for r in rows:
        print(f"{r['probe']:30} {r['unit']:20} {r['h100']:>10} {r['simulated']:>10} {str(r['sim_over_h100']):>9}")
    if ns.json:
        write_atomic(ns.json, json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
