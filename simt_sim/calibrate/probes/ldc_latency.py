"""How long an LDC takes where ptxas puts one.  One warp (tools/kernels/ldc_latency.cu) reads the
clock, makes its first store through a pointer, and reads the clock again.  k_lc_first forms the
pointer in the window from a kernel parameter (LDC.64 c[0x0][0x210], IMAD.WIDE), as every kernel's
prologue does; k_lc_none forms it before the window; k_lc_indexed stores a __constant__ array's
element read at a register index (LOP3, LDC c[0x3][R], the kernel's first read of that bank).
Each window's difference from k_lc_none's holds the LDC's latency (sass.latency_overrides LDC)
and, for the first reads, the constant caches' misses (sass.constants)."""
from __future__ import annotations

MEANING = "an LDC's window beside none: a parameter's LDC.64, a __constant__ array's first LDC"
KERNELS = "ldc_latency"
FUNCTIONS = {"k_lc_none": "the pointer formed before the window",
             "k_lc_first": "LDC.64 c[0x0][0x210] (a parameter), IMAD.WIDE",
             "k_lc_indexed": "LOP3, LDC c[0x3][R] (a __constant__ array's first read)"}
SETS = {"1 warp": None}
FIGURES, FIGURE_NAMES, DECIMALS = "window", ("cycles between the clock reads",), 1
RECORDING = "h100/ldc_latency.json"
HEADER = {"kernels": FUNCTIONS}
KEYS = ("sass.latency_overrides.LDC", "sass.constants.ldc_miss_ns")
FIT = {"sass.latency_overrides.LDC": (20, 30, 40)}
FIT_ROWS = ("k_lc_first / 1 warp",)
CHECKS = {"k_lc_none / 1 warp": 0.1, "k_lc_first / 1 warp": 0.1}
BUFFERS = {"clk": ("int64", 2), "out": ("float32", 64)}


def launch_of(name: str, _):
    return 32, ["out", "clk"]


def figures(out, name: str, _) -> list[float]:
    c = out["clk"]
    return [float(c[1] - c[0])]
