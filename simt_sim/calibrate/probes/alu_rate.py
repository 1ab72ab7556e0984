"""Which integer instructions share the H100's ALU pipe.  Each kernel of tools/kernels/alu_rate.cu
loops 256 times around 16 instructions of 8 independent chains; one block runs it with 1 to 8
warps on every sub-partition.  Figures: cycles per warp-iteration on the busiest sub-partition (the
span of its warps over the iterations they ran) and the slowest warp's loop, as control_rate's.

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

Recorded on an H200 (2026-12-02): SHF and LOP3 share the ALU at one per 2 cycles; where a loop
alternates between the ALU and the FMA-heavy pipe the GPU's warps fall out of step
(scheduler.greedy_cycles 2 comes closer there; h100.yaml keeps 1, so no --fit).  Nsight Compute's
per-pipe counts and stall reasons per warp-iteration, each row launched twice under ncu and the
second kept, are recorded beside (references/h200/alu_rate-ncu.json, `simt-sim probe alu_rate --ncu`)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import PIPE_METRIC, STALL_METRIC, busiest_loop_hooks

MEANING = "cycles per warp-iteration of SHF / LOP3 / IMAD loops of 8 chains, 1-8 warps per sub-partition"
KERNELS = "alu_rate"
STEPS = 256
FUNCTIONS = {"k_shf": "16 SHF", "k_lop": "18 LOP3", "k_imad": "16 IMAD", "k_shf_lop": "8 SHF, 10 LOP3",
             "k_shf_imad": "8 SHF, 8 IMAD", "k_lop_imad": "8 LOP3, 8 IMAD", "k_mix": "8 SHF, 8 LOP3, 8 IMAD"}
# label: (threads, sub-partitions whose warps run), as control_rate's
SETS = {"1/SMSP": (128, 4), "2/SMSP": (256, 4), "4/SMSP": (512, 4), "8/SMSP": (1024, 4)}
FIGURES, DECIMALS = "cycles_per_warp_iteration", 3
FIGURE_NAMES = ("cycles per warp-iteration, busiest sub-partition", "slowest warp's")
RECORDING = "h200/alu_rate.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS, "sets": SETS}
KEYS = ("scheduler.greedy_cycles",)
CHECKS = {f"{f} / {s}": 0.04 for f in ("k_shf", "k_lop", "k_shf_lop") for s in ("1/SMSP", "8/SMSP")}
K = np.uint32(0x2C1B3C6D)
BUFFERS = {"clk": ("int64", 64), "out": ("uint32", 1024)}

PIPES = ("alu", "fma", "fmaheavy", "fmalite", "uniform", "adu", "cbu")
REASONS = ("selected", "not_selected", "wait", "math_pipe_throttle", "dispatch_stall", "short_scoreboard",
           "branch_resolving", "no_instruction")
NCU = {"recording": "h200/alu_rate-ncu.json", "figures": "per_warp_iteration", "launches": 2,
       "metrics": ("smsp__inst_executed.sum", *[PIPE_METRIC.format(p) for p in PIPES],
                   *[STALL_METRIC.format(r) for r in REASONS])}


def launch_of(name: str, at: tuple[int, int]):
    return at[0], ["clk", "out", np.int32(at[1]), K]


# the busiest sub-partition's cycles per warp-iteration; ncu's second launch of a row; the model's stalls
figures, ncu_figures, ncu_model = busiest_loop_hooks(STEPS, PIPES, REASONS)
