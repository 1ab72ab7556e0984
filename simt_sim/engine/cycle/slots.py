"""Where a warp slot sits: warp w of SM sm runs on sub-partition (w - first warp of sm) mod
n_sp (blocks.py fills an SM's slots in order, so consecutive warps go round the schedulers)."""
from __future__ import annotations

from simt_sim.engine.jit import compiled_inline
from simt_sim.machine.layout import TC

T_NSP, T_WPSM = TC["n_sp"], TC["warps_per_sm"]


@compiled_inline
def sub_partition(tc, w, sm):
    """The sub-partition (scheduler) of global warp slot w on SM sm."""
    return (w - sm * tc[T_WPSM]) % tc[T_NSP]
