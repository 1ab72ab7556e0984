#!/usr/bin/env python
"""Which instructions share the H100's rate of control instructions: on the GPU (--gpu) and in the
simulator (default).  Each kernel of tools/kernels/control_rate.cu (its PTX and the committed cubin
beside it) loops STEPS times around one kind of instruction; one block runs it with 1 to 8 warps on
every sub-partition, or 8 on one or two sub-partitions alone.  Figures: cycles per warp-iteration on
the busiest sub-partition (the span of its warps over the iterations they ran).

What ptxas 13.0 makes of each loop (sm_90), per iteration:

    k_loop          FFMA, IADD3, ISETP, BRA                                     1 BRA
    k_exits         3 x (ISETP, FFMA, @!P BRA), IMAD.SHL, IADD3, FFMA,           4 BRA
                    2 ISETP, @!P BRA P  (4 uniform exits that are never taken, the last the loop's)
    k_uniform_if    LOP3, IADD3, 2 ISETP, @P BRA, 8 FFMA, (BRA), @P BRA          2.5 BRA
    k_lane_if       IADD3, ISETP, BSSY, @P BRA, 8 FFMA, BSYNC, @P BRA            2 BRA, BSSY, BSYNC
    k_lane_if_half  the same, half the lanes on each side (both sides run)     3 BRA, BSSY, BSYNC
    k_s2r           4 x (S2R SR_VIRTID, SHF, SGXT), VIADD, ISETP, 2 LOP3, IADD3  4 S2R, 1 BRA
    k_ldc           4 x (LDC c[0x3][R]), 8 integer ops, 2 FFMA, ISETP           4 LDC, 1 BRA
    k_ldc_s2r       2 x (S2R, SHF, SGXT), 2 LDC, 6 integer ops, FFMA, ISETP      2 S2R, 2 LDC, 1 BRA
    k_ldc_lds       2 LDS, 2 LDC, 9 integer ops, 2 FFMA, ISETP                   2 LDS, 2 LDC, 1 BRA
    k_lds           2 LDS, 7 integer ops, 2 FFMA, ISETP                          2 LDS, 1 BRA

    python tools/control_rate.py --gpu --out programs/probes/t-diverge-w8/reference/h100-control-rate.json
    python tools/control_rate.py            # the simulator beside the recorded figures
    python tools/control_rate.py --set sass.units.control.lanes=7

Nsight Compute's view (per-pipe counts and issue-stall reasons per warp-iteration; each (kernel,
set) launched twice under ncu, the second kept):

    ncu --csv --log-file ncu.csv --metrics "$(python tools/control_rate.py --ncu-metrics)" \\
        python tools/control_rate.py --gpu --ncu-launches
    python tools/control_rate.py --ncu-csv ncu.csv --out programs/probes/t-diverge-w8/reference/h100-control-rate-ncu.json
    python tools/control_rate.py --stalls   # recorded beside the model
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import (PIPE_METRIC, STALL_METRIC, gpu_medians, ncu_launch_sets, ncu_option_done,  # noqa: E402  (tools/, beside this file)
                          ncu_probe_parser, ncu_rows_per_set, print_stalls_beside, recorded, simulate_block,  # noqa: E402
                          write_result)  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "control_rate.ptx"
RECORDED = ROOT / "programs" / "probes" / "t-diverge-w8" / "reference" / "h100-control-rate.json"
RECORDED_NCU = RECORDED.with_name("h100-control-rate-ncu.json")
STEPS = 256
KERNELS = {"k_loop": "1 BRA", "k_exits": "4 BRA", "k_uniform_if": "2.5 BRA", "k_lane_if": "2 BRA, BSSY, BSYNC",
           "k_lane_if_half": "3 BRA, BSSY, BSYNC", "k_s2r": "4 S2R, 1 BRA", "k_ldc": "4 LDC, 1 BRA",
           "k_ldc_s2r": "2 S2R, 2 LDC, 1 BRA", "k_ldc_lds": "2 LDS, 2 LDC, 1 BRA", "k_lds": "2 LDS, 1 BRA"}
# label: (threads, sub-partitions whose warps run)
SETS = {"1 warp": (32, 4), "1/SMSP": (128, 4), "2/SMSP": (256, 4), "4/SMSP": (512, 4), "8/SMSP": (1024, 4),
        "8 on 2 SMSPs": (1024, 2), "8 on 1 SMSP": (1024, 1)}
SPLIT = np.int32(32)
A, B = np.float32(0.999), np.float32(0.001)
PIPES = ("adu", "cbu", "lsu", "uniform", "alu", "fma")
REASONS = ("selected", "not_selected", "wait", "branch_resolving", "short_scoreboard", "long_scoreboard",
           "math_pipe_throttle", "mio_throttle", "dispatch_stall", "no_instruction", "misc")
NCU_LAUNCHES = 2


def running_warps(at: tuple[int, int]) -> list[int]:
    threads, sps = at
    return [w for w in range(threads // 32) if w % 4 < sps]


def cycles_per_warp_iteration(clk: np.ndarray, at: tuple[int, int]) -> list[float]:
    """[busiest sub-partition's span / (its warps x STEPS), the slowest warp's loop / STEPS]."""
    warps = running_warps(at)
    c = np.asarray(clk, np.int64).reshape(-1, 2)[warps]
    per_sp = max(sum(1 for w in warps if w % 4 == sp) for sp in range(4))
    span = float(c[:, 1].max() - c[:, 0].min())
    return [round(span / (per_sp * STEPS), 3), round(float((c[:, 1] - c[:, 0]).max()) / STEPS, 3)]


def args_for(at: tuple[int, int]) -> list:
    return [np.int32(at[1]), SPLIT, A, B]


def launch(cp, f, name: str, at: tuple[int, int]) -> list[float]:
    clk, out = cp.zeros(64, cp.int64), cp.zeros(1024, cp.float32)
    f((1,), (at[0],), (clk, out, *args_for(at)))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_warp_iteration(clk.get(), at)


def run_block(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()):
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.float32)}
    return simulate_block(PTX, name, at[0], ["clk", "out", *args_for(at)], bufs, overrides)


def simulated(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()) -> list[float]:
    return cycles_per_warp_iteration(run_block(name, at, overrides).outputs["clk"], at)


def ncu_metrics() -> list[str]:
    return ["smsp__inst_executed.sum", *[PIPE_METRIC.format(p) for p in PIPES],
            *[STALL_METRIC.format(r) for r in REASONS]]


def ncu_launches() -> None:
    """Each (kernel, set) launched NCU_LAUNCHES times, in KERNELS x SETS order, for ncu to profile."""
    ncu_launch_sets(PTX, KERNELS, SETS, launch, NCU_LAUNCHES)


def from_ncu_csv(path: str) -> dict[str, dict[str, float]]:
    """Per "KERNEL / SET", from ncu's CSV of --ncu-launches (the last launch of each): per-pipe
    instruction counts, and warp-cycles per warp-iteration in each stall reason."""
    return ncu_rows_per_set(path, KERNELS, SETS, NCU_LAUNCHES, PIPES, REASONS,
                            lambda at: len(running_warps(at)) * STEPS)


def simulated_stalls(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()) -> dict[str, float]:
    stalls = run_block(name, at, overrides).raw.kernels[0]["stall_cycles"]
    return {r: round(stalls.get(r, 0) / (len(running_warps(at)) * STEPS), 3) for r in REASONS}


def print_stalls(overrides: tuple[str, ...]) -> None:
    rec = recorded(RECORDED_NCU, "per_warp_iteration")
    shown = ("selected", "not_selected", "wait", "branch_resolving", "short_scoreboard", "no_instruction",
             "dispatch_stall", "math_pipe_throttle", "mio_throttle")
    print_stalls_beside(shown, ((f"{name} / {label}", rec.get(f"{name} / {label}", {}),
                                 simulated_stalls(name, at, overrides))
                                for name in KERNELS for label, at in SETS.items()), 30)


def main() -> int:
    ap = ncu_probe_parser(__doc__)
    ap.add_argument("--ncu-launches", action="store_true", help="with --gpu: the launches for ncu to profile")
    args = ap.parse_args()
    header = {"tool": os.path.basename(__file__), "steps": STEPS, "kernels": KERNELS, "sets": SETS}
    if ncu_option_done(args, header, ncu_metrics(), "per_warp_iteration", from_ncu_csv, print_stalls):
        return 0
    if args.gpu and args.ncu_launches:
        ncu_launches()
        return 0
    if args.gpu:
        write_result({**header, "cycles_per_warp_iteration": gpu_medians(PTX, KERNELS, SETS, launch, 3)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_warp_iteration")
    print("cycles per warp-iteration on the busiest sub-partition, H100 / model")
    print(f"{'kernel':<16} {'per iteration':<20}" + "".join(f"{s:>15}" for s in SETS))
    for name, what in KERNELS.items():
        cells = []
        for label, at in SETS.items():
            hw = rec.get(f"{name} / {label}", [float("nan")])[0]
            cells.append(f"{hw:7.1f}/{simulated(name, at, tuple(args.set))[0]:<7.1f}")
        print(f"{name:<16} {what:<20}" + "".join(f"{c:>15}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
