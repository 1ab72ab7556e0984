"""Whether what a DMUL costs 8 warps per sub-partition among FMULs depends on the warps' phase.
One block of 1 to 8 warps per sub-partition runs 256 steps of 8 independent multiplies, 0, 1, 2 or
4 of them DMUL (the t-fp64-issue-f0/d1/d2/d4 loop); before the loop the warp in slot s of its
sub-partition runs s x PAD steps of an FMUL chain, so each PAD starts the warps in another phase
(tools/kernels/dmul_phase.cu).  Figure: cycles per warp-step on the busiest sub-partition.

Recorded on the H100: a lone warp's loop costs 1.00 / 1.05 / 1.12 cycles more than the FMUL loop
with 1 / 2 / 4 DMULs (sass.write_port_latency: a DMUL books the register file's write port 6
cycles after issue), 8 warps 0.84-0.91 / 1.12-1.19 whatever their phase.  Where the warps wait
(Nsight Compute's issue-stall reasons per warp-iteration, the median of each row's eight profiled
launches after the first) is recorded beside, references/h100/dmul_phase-ncu.json
(`simt-sim probe dmul_phase --ncu`): a lone warp's FMUL loop's 3.1 branch_resolving
(sass.branch_resolve_cycles)."""
from __future__ import annotations

import statistics

import numpy as np

from simt_sim.calibrate.probes.base import STALL_METRIC, ncu_stall_cycles, span_per_warp_step, stalls_per

MEANING = "cycles per warp-step of 8 multiplies, 0-4 of them DMUL, 1-8 warps per sub-partition in several phases"
KERNELS = "dmul_phase"
STEPS = 256
FUNCTIONS = {"k_f0": "8 FMUL", "k_d1": "1 DMUL + 7 FMUL", "k_d2": "2 DMUL + 6 FMUL", "k_d4": "4 DMUL + 4 FMUL"}
# (threads, PAD): 1, 2 and 4 warps per sub-partition, and 8 in several phases
SETS = {"1 warp/SMSP": (128, 0), "2 warps/SMSP": (256, 0), "4 warps/SMSP": (512, 0),
        **{f"8 warps/SMSP, pad {p}": (1024, p) for p in (0, 1, 2, 3, 5, 7)}}
FIGURES, FIGURE_NAMES, DECIMALS = "cycles_per_warp_iteration", ("cycles per warp-step, busiest sub-partition",), 3
RECORDING = "h100/dmul_phase.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS, "sets": SETS}
KEYS = ("sass.write_port_units", "sass.write_port_latency", "sass.branch_resolve_cycles")
CHECKS = {f"{f} / {s}": 0.02 for f in FUNCTIONS for s in ("1 warp/SMSP", "2 warps/SMSP")}
M, MD = np.float32(0.9999), np.float64(0.9999)

REASONS = ("dispatch_stall", "not_selected", "math_pipe_throttle", "wait", "selected", "no_instruction",
           "branch_resolving")
NCU = {"recording": "h100/dmul_phase-ncu.json", "figures": "stalls_per_warp_iteration", "launches": 9,
       "metrics": ("smsp__inst_executed.sum", *[STALL_METRIC.format(r) for r in REASONS])}


def BUFFERS(name: str, at: tuple[int, int]) -> dict:
    return {"clk": ("int64", 64), "out": ("float32", at[0])}


def launch_of(name: str, at: tuple[int, int]):
    threads, pad = at
    return threads, ["clk", "out", M, MD, np.int32(pad)]


def figures(out, name: str, at: tuple[int, int]) -> list[float]:
    return span_per_warp_step(out["clk"], at[0], STEPS)


def ncu_figures(launches, name: str, at: tuple[int, int]) -> dict:
    """Per stall reason, the median over the launches after the first of its warp-cycles per
    warp-iteration."""
    iterations = at[0] // 32 * STEPS
    return {r: round(statistics.median(ncu_stall_cycles(m, r) for m in launches[1:]) / iterations, 3)
            for r in REASONS}


def ncu_model(metrics: dict, name: str, at: tuple[int, int]) -> dict:
    return stalls_per(metrics, REASONS, at[0] // 32 * STEPS)


def extra_per_dmul_kernel(per: dict[str, dict[str, float]]) -> dict[str, list[float]]:
    """Per DMUL kernel, the cycles a warp-iteration costs beyond the FMUL loop's in each set `per`
    ({function: {set: cycles}}) has."""
    return {name: [round(per[name][s] - per["k_f0"][s], 3) for s in per["k_f0"]] for name in FUNCTIONS if name != "k_f0"}
