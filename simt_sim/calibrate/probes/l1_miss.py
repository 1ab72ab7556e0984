"""What a load that allocates in L1 pays when it misses L1 and hits L2, beside one that goes to L2
only.  tools/kernels/l1_miss.cu: one warp chases 64 lines 64 KiB apart, first with ld.global.cg
(the lines into L2, not L1), then timed with the same LDG.E.STRONG.GPU (k_chase_cg) or with a plain
LDG.E, which allocates in L1 (k_chase_ca).  The figure: cycles per step of the timed chase (the
median of 8 launches after one).  The tile loop staged from L2 with one warp per sub-partition
(probe tile_loop) is 34-43 cycles a tile longer on the H100 than in the model."""
from __future__ import annotations

import numpy as np

STEPS, STRIDE = 64, 1 << 14             # lines 64 KiB (16 Ki words) apart
MEANING = "cycles per step of an L2-hit chase, L1-allocating (plain LDG) against not (.cg): the L1 miss's cost"
KERNELS = "l1_miss"
FUNCTIONS = {"k_chase_cg": "LDG.E.STRONG.GPU (.cg)", "k_chase_ca": "LDG.E (allocates in L1)"}
SETS = {"1 warp": 1}
FIGURES, FIGURE_NAMES, DECIMALS = "runs", ("cycles per step",), 1
RECORDING = "h200/l1_miss.json"
HEADER = {"steps": STEPS}
CHECKS = {"k_chase_cg / 1 warp": 0.01, "k_chase_ca / 1 warp": 0.01}


def chain() -> np.ndarray:
    """x[k * STRIDE] = (k + 1) * STRIDE: each line holds the next one's offset."""
    x = np.zeros(STEPS * STRIDE + 32, np.uint32)
    x[np.arange(STEPS) * STRIDE] = (np.arange(STEPS) + 1) * STRIDE
    return x


BUFFERS = {"x": chain(), "clk": ("int64", 2), "out": ("uint32", 64)}


def launch_of(name: str, _):
    return 32, ["x", "clk", "out", np.int32(STEPS)]


def figures(out, name: str, _) -> list[float]:
    clk = out["clk"]
    return [round(float(clk[1] - clk[0]) / STEPS, 1)]
