"""What FP64 adds, widening conversions and exponentials cost among FP32 multiplies.  One block of
1 or 8 warps per sub-partition runs 128 steps of 8 independent FMUL chains plus 0, 1, 2 or 4 added
chains (DADD, F2F.F64.F32 + DADD, MUFU.EX2 + FADD) that never feed the multiplies
(tools/kernels/dispatch_stall.cu).  With 8 warps per sub-partition the scheduler is the limit, so
the cycles a step adds over the plain one are the added issue slots plus what the H100 loses to
them (Nsight Compute: dispatch stall): XU results take the register-file write port as FMA and
FP64 ones do (sass.write_port_units includes sfu)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import span_per_warp_step

STEPS = 128
MEANING = "cycles per warp-step of 8 FMUL chains plus DADD, F2F.F64.F32 or MUFU.EX2 chains, 1 or 8 warps per sub-partition"
KERNELS = "dispatch_stall"
FUNCTIONS = {"k_none": "8 FMUL chains", "k_dadd1": "+ 1 DADD chain", "k_dadd4": "+ 4 DADD chains",
             "k_f2f1": "+ 1 F2F.F64.F32 + DADD", "k_f2f2": "+ 2 F2F.F64.F32 + DADD", "k_f2f4": "+ 4 F2F.F64.F32 + DADD",
             "k_ex2_1": "+ 1 MUFU.EX2 + FADD", "k_ex2_2": "+ 2 MUFU.EX2 + FADD", "k_ex2_4": "+ 4 MUFU.EX2 + FADD"}
SETS = {"1 warp/SMSP": 128, "8 warps/SMSP": 1024}
FIGURES, FIGURE_NAMES, DECIMALS = "cycles_per_step", ("cycles per warp-step",), 3
RECORDING = "h100/dispatch_stall.json"
HEADER = {"steps": STEPS, "kernels": FUNCTIONS, "threads": SETS}
KEYS = ("sass.write_port_units",)
CHECKS = {f"{f} / 8 warps/SMSP": 0.05 for f in ("k_none", "k_f2f1", "k_ex2_1")}
BUFFERS = {"clk": ("int64", 64), "out": ("float32", 1024)}


def launch_of(name: str, threads: int):
    return threads, ["clk", "out", np.float32(0.999), np.float64(1.0e-3)]


def figures(out, name: str, threads: int) -> list[float]:
    return span_per_warp_step(out["clk"], threads, STEPS)
