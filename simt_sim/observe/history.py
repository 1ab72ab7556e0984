"""Execution-mask histories: per warp, the issued instructions with their active masks, printed in
the branching article's style (pc, disassembly, one 0/1 per lane) or exported as JSON."""
from __future__ import annotations

import numpy as np

from simt_sim.run.functional import RunResult
from simt_sim.run.session import mask_bits


def warp_ids(result: RunResult) -> list[int]:
    return sorted(set(int(g) for g in result.history[:, 0])) if len(result.history) else []


def warp_label(result: RunResult, gid: int) -> str:
    blk, wib = divmod(gid, result.warps_per_block)
    g = result.grid
    return f"block ({blk % g.x},{(blk // g.x) % g.y},{blk // (g.x * g.y)}) warp {wib}"


def format_masks(result: RunResult, warps: list[int] | None = None) -> str:
    """Text history: one section per warp, one line per issued instruction."""
    ws = result.config.warp_size
    texts = result.program.texts
    width = min(max((len(t) for t in texts), default=10), 48)
    lines = []
    for gid in warps if warps is not None else warp_ids(result):
        lines.append(f"# warp {gid}: {warp_label(result, gid)}")
        lines.append(f"{'pc':>4}  {'instruction':<{width}}  lanes 0..{ws - 1}")
        for _, pc, mask, exec_mask in result.warp_history(gid):
            text = texts[pc]
            if len(text) > width:
                text = text[:width - 1] + "…"
            marks = mask_bits(int(mask), ws)
            if exec_mask != mask:   # guard-false lanes: active but predicated off
                marks = "".join("p" if m == "1" and not (int(exec_mask) >> i) & 1 else m
                                for i, m in enumerate(marks))
            lines.append(f"{pc:>4}  {text:<{width}}  {marks}")
        lines.append("")
    return "\n".join(lines)


def history_json(result: RunResult) -> dict:
    ws = result.config.warp_size
    out = {}
    for gid in warp_ids(result):
        h = result.warp_history(gid)
        out[str(gid)] = {
            "label": warp_label(result, gid),
            "pc": [int(x) for x in h[:, 1]],
            "mask": [mask_bits(int(m), ws) for m in h[:, 2]],
            "exec_mask": [mask_bits(int(m), ws) for m in h[:, 3]],
        }
    return out


def buffer_json(arr: np.ndarray) -> list:
    if arr.dtype.kind == "f":
        return [float(x) if np.isfinite(x) else str(x) for x in arr.tolist()]
    return arr.tolist()
