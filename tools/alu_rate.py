#!/usr/bin/env python
"""Which integer instructions share the H100's ALU pipe: on the GPU (--gpu) and in the simulator
(default).  Each kernel of tools/kernels/alu_rate.cu (its PTX and the committed cubin beside it)
loops STEPS times around 16 instructions of 8 independent chains; one block runs it with 1 to 8
warps on every sub-partition.  Figures: cycles per warp-iteration on the busiest sub-partition (the
span of its warps over the iterations they ran), as tools/control_rate.py's.

What ptxas 13.0 makes of each loop (sm_90), per iteration (the counter's VIADD takes the FMA
pipes, its IADD3 and ISETP the ALU; BRA the branch unit):

    k_shf       16 SHF.R.W.U32 (funnel shifts), VIADD, ISETP, BRA          ALU 17
    k_lop       18 LOP3.LUT, VIADD, ISETP, BRA                              ALU 19
    k_imad      16 IMAD, IADD3, ISETP, BRA                                  ALU 2, FMA-heavy 16
    k_shf_lop   8 SHF.R.W.U32, 10 LOP3.LUT, VIADD, ISETP, BRA               ALU 19
    k_shf_imad  8 SHF.R.W.U32, 8 IMAD, IADD3, ISETP, BRA                    ALU 10, FMA-heavy 8
    k_lop_imad  8 LOP3.LUT, 8 IMAD, IADD3, ISETP, BRA                       ALU 10, FMA-heavy 8
    k_mix       8 x seed 003's round (SHF.R.U32.HI, LOP3.LUT, IMAD), VIADD, ISETP, BRA
                                                                            ALU 17, FMA-heavy 8

    python tools/alu_rate.py --gpu --out programs/workloads/w-pipe-plain-w8/reference/h100-alu-rate.json
    python tools/alu_rate.py            # the simulator beside the recorded figures
    python tools/alu_rate.py --set sass.greedy_cycles=2

Nsight Compute's per-pipe counts (each (kernel, set) launched twice under ncu, the second kept):

    ncu --csv --log-file ncu.csv --metrics "$(python tools/alu_rate.py --ncu-metrics)" \\
        python tools/alu_rate.py --gpu --ncu-launches
    python tools/alu_rate.py --ncu-csv ncu.csv --out programs/workloads/w-pipe-plain-w8/reference/h100-alu-rate-ncu.json
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from control_rate import cycles_per_warp_iteration, running_warps  # noqa: E402  (tools/, beside this file)
from probe_output import (PIPE_METRIC, STALL_METRIC, gpu_medians, ncu_launch_sets, ncu_option_done,  # noqa: E402
                          ncu_probe_parser, ncu_rows_per_set, print_stalls_beside, recorded, simulate_block,  # noqa: E402
                          write_result)  # noqa: E402
PTX = ROOT / "tools" / "kernels" / "alu_rate.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-pipe-plain-w8" / "reference" / "h100-alu-rate.json"
RECORDED_NCU = RECORDED.with_name("h100-alu-rate-ncu.json")
STEPS = 256
KERNELS = {"k_shf": "16 SHF", "k_lop": "18 LOP3", "k_imad": "16 IMAD", "k_shf_lop": "8 SHF, 10 LOP3",
           "k_shf_imad": "8 SHF, 8 IMAD", "k_lop_imad": "8 LOP3, 8 IMAD", "k_mix": "8 SHF, 8 LOP3, 8 IMAD"}
# label: (threads, sub-partitions whose warps run), as control_rate's
SETS = {"1/SMSP": (128, 4), "2/SMSP": (256, 4), "4/SMSP": (512, 4), "8/SMSP": (1024, 4)}
K = np.uint32(0x2C1B3C6D)
PIPES = ("alu", "fma", "fmaheavy", "fmalite", "uniform", "adu", "cbu")
REASONS = ("selected", "not_selected", "wait", "math_pipe_throttle", "dispatch_stall", "short_scoreboard",
           "branch_resolving", "no_instruction")
NCU_LAUNCHES = 2


def args_for(at: tuple[int, int]) -> list:
    return [np.int32(at[1]), K]


def launch(cp, f, name: str, at: tuple[int, int]) -> list[float]:
    clk, out = cp.zeros(64, cp.int64), cp.zeros(1024, cp.uint32)
    f((1,), (at[0],), (clk, out, *args_for(at)))
    cp.cuda.runtime.deviceSynchronize()
    return cycles_per_warp_iteration(clk.get(), at)


def run_block(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()):
    bufs = {"clk": np.zeros(64, np.int64), "out": np.zeros(1024, np.uint32)}
    return simulate_block(PTX, name, at[0], ["clk", "out", *args_for(at)], bufs, overrides)


def simulated(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()) -> list[float]:
    return cycles_per_warp_iteration(run_block(name, at, overrides).outputs["clk"], at)


def ncu_metrics() -> list[str]:
    return ["smsp__inst_executed.sum", *[PIPE_METRIC.format(p) for p in PIPES],
            *[STALL_METRIC.format(r) for r in REASONS]]


def ncu_launches() -> None:
    """Each (kernel, set) launched NCU_LAUNCHES times, in KERNELS x SETS order, for ncu to profile."""
    ncu_launch_sets(PTX, KERNELS, SETS, launch, NCU_LAUNCHES)


def warp_iterations(at: tuple[int, int]) -> int:
    return len(running_warps(at)) * STEPS


def from_ncu_csv(path: str) -> dict[str, dict[str, float]]:
    """Per "KERNEL / SET" (the last launch of each): per-pipe instruction counts, and warp-cycles
    per warp-iteration in each stall reason."""
    return ncu_rows_per_set(path, KERNELS, SETS, NCU_LAUNCHES, PIPES, REASONS, warp_iterations)


def simulated_stalls(name: str, at: tuple[int, int], overrides: tuple[str, ...] = ()) -> dict[str, float]:
    stalls = run_block(name, at, overrides).raw.kernels[0]["stall_cycles"]
    return {r: round(stalls.get(r, 0) / warp_iterations(at), 3) for r in REASONS}


def print_stalls(overrides: tuple[str, ...]) -> None:
    rec = recorded(RECORDED_NCU, "per_warp_iteration")
    print_stalls_beside(REASONS, ((f"{name} / {label}", rec.get(f"{name} / {label}", {}),
                                   simulated_stalls(name, at, overrides))
                                  for name in KERNELS for label, at in SETS.items()), 24)


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
    print(f"{'kernel':<12} {'per iteration':<22}" + "".join(f"{s:>16}" for s in SETS))
    for name, what in KERNELS.items():
        cells = []
        for label, at in SETS.items():
            hw = rec.get(f"{name} / {label}", [float("nan")])[0]
            cells.append(f"{hw:7.2f}/{simulated(name, at, tuple(args.set))[0]:<7.2f}")
        print(f"{name:<12} {what:<22}" + "".join(f"{c:>16}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
