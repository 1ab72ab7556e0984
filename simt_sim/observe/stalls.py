"""Where a kernel's warps wait: the warp-cycles each instruction's warps spent waiting to issue it,
by stall reason (engine/cycle/stalls.py `account` attributes every cycle between two issues of a
warp to the instruction it then issued; `selected` counts the issues themselves).  Nsight
Compute's PC sampling gives the H100's figure for the same SASS (calibrate/pc_stalls.py): a sample
is a warp seen at an instruction, with the reason it could not issue, so its shares compare with
these cycles' shares.
"""
from __future__ import annotations

import numpy as np

from simt_sim.machine.layout import STALL_NAMES


def stalls_by_pc(texts: list[str], pc_stalls: np.ndarray, pc_samples: np.ndarray) -> list[dict]:
    """One row per instruction that its warps waited at or issued, most warp-cycles first (ties:
    lower pc): pc, instruction text, warp-cycles, the share of Nsight Compute's PC samples the
    model expects there (its sampler takes one active warp of an SM per interval:
    engine/cycle/stalls.py), and the non-zero reasons."""
    totals = pc_stalls.sum(axis=1)
    samples = pc_samples.sum(axis=1) / max(pc_samples.sum(), 1e-12)
    order = sorted((pc for pc in range(len(totals)) if totals[pc] > 0), key=lambda pc: (-totals[pc], pc))
    return [{"pc": pc, "instruction": texts[pc], "cycles": int(totals[pc]), "sample_share": float(samples[pc]),
             "stalls": {name: int(pc_stalls[pc, i]) for i, name in enumerate(STALL_NAMES) if pc_stalls[pc, i]}}
            for pc in order]


def format_stalls_by_pc(rows: list[dict], top: int) -> str:
    """The first `top` rows as a table: share of all warp-cycles, share of the PC samples Nsight
    Compute would take, then the three largest reasons."""
    total = sum(r["cycles"] for r in rows) or 1
    lines = [f"{'pc':>5} {'share':>6} {'samples':>7}  {'instruction':<44} reasons (share of the instruction's warp-cycles)"]
    for r in rows[:top]:
        reasons = sorted(r["stalls"].items(), key=lambda kv: -kv[1])[:3]
        shown = ", ".join(f"{name} {cycles / r['cycles']:.0%}" for name, cycles in reasons)
        lines.append(f"{r['pc']:>5} {r['cycles'] / total:>6.1%} {r['sample_share']:>7.1%}  "
                     f"{r['instruction'][:44]:<44} {shown}")
    return "\n".join(lines)
