"""Which instructions share the H100's rate of control instructions.  Each kernel of
tools/kernels/control_rate.cu loops 256 times around one kind of instruction; one block runs it
with 1 to 8 warps on every sub-partition, or 8 on one or two sub-partitions alone (the others'
warps skip the loop).  Figures: cycles per warp-iteration on the busiest sub-partition (the span of
its warps over the iterations they ran) and the slowest warp's loop per iteration.

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

8 warps of every sub-partition load constants at one LDC per 2.0 cycles per SM and read %warpid at
one S2R per 2.0 (sass.sm_unit_cycles), pass a BSSY or BSYNC one per 10 cycles per sub-partition
(sass.convergence_unit_cycles).  Nsight Compute's view, recorded beside (references/h100/
control_rate-ncu.json): per-pipe counts and warp-cycles per warp-iteration by stall reason, each
row launched twice under ncu, the second kept (`simt-sim probe control_rate --ncu`)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import PIPE_METRIC, STALL_METRIC, busiest_loop_hooks

MEANING = "cycles per warp-iteration of loops of branches, BSSY/BSYNC, S2R, LDC, LDS, 1-8 warps per sub-partition"
KERNELS = "control_rate"
STEPS = 256
FUNCTIONS = {"k_loop": "1 BRA", "k_exits": "4 BRA", "k_uniform_if": "2.5 BRA", "k_lane_if": "2 BRA, BSSY, BSYNC",
             "k_lane_if_half": "3 BRA, BSSY, BSYNC", "k_s2r": "4 S2R, 1 BRA", "k_ldc": "4 LDC, 1 BRA",
             "k_ldc_s2r": "2 S2R, 2 LDC, 1 BRA", "k_ldc_lds": "2 LDS, 2 LDC, 1 BRA", "k_lds": "2 LDS, 1 BRA"}
# label: (threads, sub-partitions whose warps run)
SETS = {"1 warp": (32, 4), "1/SMSP": (128, 4), "2/SMSP": (256, 4), "4/SMSP": (512, 4), "8/SMSP": (1024, 4),
        "8 on 2 SMSPs": (1024, 2), "8 on 1 SMSP": (1024, 1)}
FIGURES, DECIMALS = "cycles_per_warp_iteration", 3
FIGURE_NAMES = ("cycles per warp-iteration, busiest sub-partition", "slowest warp's")
RECORDING = "h100/control_rate.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS, "sets": SETS}
KEYS = ("sass.sm_unit_cycles", "sass.convergence_unit_cycles", "sass.latency_overrides.LDC")
CHECKS = {"k_ldc / 8/SMSP": 0.03, "k_s2r / 8/SMSP": 0.03, "k_lane_if / 8/SMSP": 0.06, "k_lane_if_half / 8/SMSP": 0.06}
SPLIT = np.int32(32)
A, B = np.float32(0.999), np.float32(0.001)
BUFFERS = {"clk": ("int64", 64), "out": ("float32", 1024)}

PIPES = ("adu", "cbu", "lsu", "uniform", "alu", "fma")
REASONS = ("selected", "not_selected", "wait", "branch_resolving", "short_scoreboard", "long_scoreboard",
           "math_pipe_throttle", "mio_throttle", "dispatch_stall", "no_instruction", "misc")
NCU = {"recording": "h100/control_rate-ncu.json", "figures": "per_warp_iteration", "launches": 2,
       "metrics": ("smsp__inst_executed.sum", *[PIPE_METRIC.format(p) for p in PIPES],
                   *[STALL_METRIC.format(r) for r in REASONS])}


def launch_of(name: str, at: tuple[int, int]):
    return at[0], ["clk", "out", np.int32(at[1]), SPLIT, A, B]


# the busiest sub-partition's cycles per warp-iteration; ncu's second launch of a row; the model's stalls
figures, ncu_figures, ncu_model = busiest_loop_hooks(STEPS, PIPES, REASONS)
