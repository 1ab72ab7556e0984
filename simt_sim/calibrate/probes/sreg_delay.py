"""An S2R's latency by when the warp issues it.  One warp (tools/kernels/sreg_delay.cu) spins 0 to
6,400 cycles, then times one special-register read and the add that uses it (SR_LANEID or
SR_CTAID.X, the warp's first special-register read, or SR_LANEID after an S2R SR_TID.X) against the
same window without the read (k_sd_none).  Each window's difference from k_sd_none's at the same
spin is the S2R's latency (sass.latency_overrides S2R); on the H100 23 cycles (SR_CTAID.X 25) at
every spin: no slow first read, no warming."""
from __future__ import annotations

import numpy as np

SPINS = (0, 100, 200, 400, 800, 1600, 3200, 6400)      # cycles the warp spins before the window
MEANING = "an S2R's window beside none after a warp spins 0-6,400 cycles: its latency by when it issues"
KERNELS = "sreg_delay"
# kernel: what its window holds beyond k_sd_none's (an add of a value the warp holds)
FUNCTIONS = {"k_sd_none": "nothing", "k_sd_laneid": "the warp's first S2R, SR_LANEID",
             "k_sd_ctaid_x": "the warp's first S2R, SR_CTAID.X",
             "k_sd_second": "S2R SR_LANEID after an S2R SR_TID.X"}
SETS = {str(spin): spin for spin in SPINS}
FIGURES, FIGURE_NAMES, DECIMALS = "window", ("cycles between the clock reads around the read",), 1
RECORDING = "h100/sreg_delay.json"
HEADER = {"kernels": FUNCTIONS, "spins": SPINS}
KEYS = ("sass.latency_overrides.S2R",)
FIT = {"sass.latency_overrides.S2R": (4, 23, 40)}
FIT_ROWS = ("k_sd_none / 0", "k_sd_laneid / 0", "k_sd_laneid / 6400", "k_sd_second / 6400")
CHECKS = {f"{f} / {s}": 0.01 for f in ("k_sd_none", "k_sd_laneid", "k_sd_second") for s in (0, 6400)}
BUFFERS = {"clk": ("int64", 3), "out": ("uint32", 32)}


def launch_of(name: str, spin: int):
    return 32, ["clk", "out", np.int32(spin)]


def figures(out, name: str, spin: int) -> list[float]:
    c = out["clk"]
    return [float(c[2] - c[1])]
