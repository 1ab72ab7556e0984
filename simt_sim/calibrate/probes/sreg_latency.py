"""How long an S2R special-register read takes, and how many an SM reads per cycle.  One warp
(tools/kernels/sreg_latency.cu) reads a register between two clock reads and runs the same 256
dependent IMADs on it; ptxas has read %tid.x before the first clock already (k_sr_tid_x), so each
span's difference from that kernel's is the S2R's latency; the same after four global loads issued
between the clock and the S2R (k_loads_*), and two reads in the window (k_sr_pair, spans only).
k_sr14 has every warp of one block (1, 4 or 32 warps) read 14 different special registers between
two clock reads: reads per cycle per SM.  The recording's s2r_latency holds the span differences
(the H100's S2R after four loads adds 15 cycles; the model's, with its S2R's 23, too)."""
from __future__ import annotations

import numpy as np

from simt_sim.calibrate.probes.base import warp_rate

READS = 14                      # k_sr14: special registers each warp reads
MEANING = "cycles of 256 IMADs on an S2R'd register beside %tid.x read before the clock; SM S2R reads a cycle"
KERNELS = "sreg_latency"
# kernel: what it reads (the kernel with the same instructions but the register read before the clock)
FUNCTIONS = {"k_sr_tid_x": "%tid.x read before the clock", "k_loads_sr_tid_x": "4 LDG, %tid.x read before",
             "k_sr_laneid": ("S2R SR_LANEID", "k_sr_tid_x"), "k_sr_ctaid_x": ("S2R SR_CTAID.X", "k_sr_tid_x"),
             "k_loads_sr_laneid": ("S2R SR_LANEID after 4 LDG", "k_loads_sr_tid_x"),
             "k_sr_pair": "S2R SR_LANEID + S2UR SR_CTAID.X (its IMAD chain its own: span only)",
             "k_sr14": "14 special-register reads a warp"}
SETS = {"1 warp": 1, "4 warps": 4, "32 warps": 32}
ROWS = (*(f"{f} / 1 warp" for f in FUNCTIONS if f != "k_sr14"), *(f"k_sr14 / {s}" for s in SETS))
FIGURES, DECIMALS = "figures", 4
FIGURE_NAMES = ("span in cycles (k_sr14: S2R reads per cycle per SM)",)
RECORDING = "h100/sreg_latency.json"
HEADER = {"kernels": FUNCTIONS}
KEYS = ("sass.latency_overrides.S2R",)
CHECKS = {"k_sr_tid_x / 1 warp": 0.05, "k_sr_laneid / 1 warp": 0.05, "k_loads_sr_laneid / 1 warp": 0.02}


def BUFFERS(name: str, warps: int) -> dict:
    if name == "k_sr14":
        return {"clk": ("int64", 64), "out": ("uint32", 1024)}
    return {"clk": ("int64", 2), "out": ("uint32", 32), "data": np.arange(1024, dtype=np.uint32)}


def launch_of(name: str, warps: int):
    if name == "k_sr14":
        return 32 * warps, ["clk", "out"]
    return 32, ["clk", "out", "data"] if name.startswith("k_loads") else ["clk", "out"]


def figures(out, name: str, warps: int) -> list[float]:
    c = out["clk"]
    if name == "k_sr14":
        return [round(warp_rate(c, warps, READS), 4)]
    return [float(c[1] - c[0])]


def s2r_latency(spans: dict) -> dict:
    """{kernel: its span less its base kernel's} from {"KERNEL / 1 warp": [span]} (the recording's
    figures or the model's)."""
    return {f: spans[f"{f} / 1 warp"][0] - spans[f"{w[1]} / 1 warp"][0]
            for f, w in FUNCTIONS.items() if isinstance(w, tuple)}
