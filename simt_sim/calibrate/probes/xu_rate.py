"""How long a conversion or special-function instruction holds a sub-partition's XU pipe.  One
block of 1 to 32 warps runs 128 steps of 8 independent conversions each (tools/kernels/xu_rate.cu);
with 8 warps per sub-partition the XU pipe is the bottleneck, so the cycles per conversion per
sub-partition are the pipe's time for one warp-instruction (units.sfu.lanes: 32 / 4 lanes = 8),
and the 64-bit conversions' 9 are sass.interval_overrides F2F.f64 / F2F.f32."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import span_per_warp_step

MEANING = "cycles a conversion / MUFU holds a sub-partition's XU pipe, 1 warp to 8 per sub-partition"
KERNELS = "xu_rate"
STEPS, CHAINS = 128, 8
FUNCTIONS = {"k_f2f_f64_f32": "F2F.F64.F32 (+ DADD, FMUL)", "k_f2f_f32_f64": "F2F.F32.F64 (+ FADD, DMUL)",
             "k_mufu_ex2": "MUFU.EX2 (+ FADD, FMUL)", "k_i2f_f32_s32": "I2FP.F32.S32 (+ FADD, FMUL)"}
SETS = {"1 warp": 32, "1 warp/SMSP": 128, "4 warps/SMSP": 512, "8 warps/SMSP": 1024}
FIGURES, FIGURE_NAMES, DECIMALS = "cycles_per_conversion", ("cycles per conversion per sub-partition",), 3
RECORDING = "h100/xu_rate.json"
HEADER = {"steps": STEPS, "chains": CHAINS, "kernels": FUNCTIONS, "threads": SETS}
KEYS = ("units.sfu.lanes", "sass.interval_overrides")
FIT = {"units.sfu.lanes": (2, 4, 8)}
FIT_ROWS = ("k_mufu_ex2 / 8 warps/SMSP",)
CHECKS = {f"{f} / 8 warps/SMSP": 0.06 for f in ("k_f2f_f64_f32", "k_f2f_f32_f64", "k_mufu_ex2")}


def factor(name: str):
    """The kernel's multiplier c, in its chains' type (double for the narrowing conversion)."""
    return np.float64(0.999) if name == "k_f2f_f32_f64" else np.float32(0.999)


BUFFERS = {"clk": ("int64", 64), "out": ("float32", 1024)}


def launch_of(name: str, threads: int):
    return threads, ["clk", "out", factor(name)]


def figures(out, name: str, threads: int) -> list[float]:
    return span_per_warp_step(out["clk"], threads, STEPS * CHAINS)
