"""Per-kernel metrics of a timing run (computed by run/timed.py `kernel_metrics`) as a table and JSON.

CFE (control-flow efficiency, as in the tensor-core divergence paper) = thread instructions
executed with the guard true / (warp instructions x warp size).  SIMD efficiency counts active
lanes instead (predicated-off lanes included).  Stall reasons are warp-cycles, attributed per
warp between two of its issues (see engine/cycle/stalls.py `account`); `per_issue` divides them by
the warp-instructions issued, like Nsight Compute's smsp__average_warps_issue_stalled_*_per_issue_active.
Issue-slot use (seed 003's "GPU loading") = warp-instructions issued / (kernel cycles x active
SMSPs x issue width): the share of the issue slots of the sub-partitions that got warps
(machine/occupancy.py `active_smsps`) that issued.  The same formula turns Nsight Compute's
smsp__inst_executed.sum and sm__cycles_elapsed.max into the hardware's figure (`hw_issue_slot_use`).
W histogram: W1..W64 = issued warp-instructions by number of active lanes; W0 = scheduler cycles
with nothing issued (whole run, all kernels together).
"""
from __future__ import annotations

import json

import numpy as np

from simt_sim.files import atomic_open
from simt_sim.isa.encoding import UNIT_NAMES
from simt_sim.machine import layout as L
from simt_sim.machine.occupancy import active_smsps, issue_slot_use  # noqa: F401  (the one definition)

HW_INSTRUCTIONS = "smsp__inst_executed.sum"      # warp-instructions issued, all SMSPs
HW_CYCLES = "sm__cycles_elapsed.max"             # the kernel's cycles on its busiest SM


def hw_issue_slot_use(counters: dict, smsps: int) -> float | None:
    """Issue-slot use from one profiled launch's Nsight Compute counters (one instruction per SMSP
    per cycle on the hardware); None when a counter is missing."""
    insts, cycles = counters.get(HW_INSTRUCTIONS), counters.get(HW_CYCLES)
    if insts is None or not cycles:
        return None
    return issue_slot_use(insts, cycles, smsps)


def format_metrics(result) -> str:
    """The per-kernel metrics as a text table (one column per launch)."""
    ks = result.kernels
    rows: list[tuple[str, list[str]]] = []

    def add(label, fn):
        rows.append((label, [fn(m) for m in ks]))

    add("kernel", lambda m: f"{m['kernel']}" + ("" if m["finished"] else " (stopped)"))
    if len(ks) > 1:
        add("stream / start", lambda m: f"{m['stream']} / {m['first_cycle']}")
    add("grid x block", lambda m: f"{m['grid']} x {m['block']}")
    add("cycles", lambda m: f"{m['cycles']}")
    add("warp instructions", lambda m: f"{m['warp_instructions']}")
    add("thread instructions", lambda m: f"{m['thread_instructions']}")
    add("IPC (per SM)", lambda m: f"{m['ipc']:.3f} ({m['ipc_per_sm']:.3f})")
    add("CFE", lambda m: f"{m['cfe']:.4f}")
    add("SIMD efficiency", lambda m: f"{m['simd_efficiency']:.4f}")
    add("issue-slot use (SMSPs)", lambda m: f"{m['issue_slot_use']:.3f} ({m['active_smsps']})")
    add("blocks/SM (limit)", lambda m: f"{m['occupancy']['blocks_per_sm']} ({m['occupancy']['limiter']})")
    if any(m["global_sectors"]["load"] or m["global_sectors"]["store"] for m in ks):
        add("global sectors loaded", lambda m: f"{m['global_sectors']['load']}")
        add("  L1 hits", lambda m: _share(m["global_sectors"]["l1_hit"], m["global_sectors"]["load"]))
        add("  read from L2 (hits)", lambda m: f"{m['global_sectors']['l2_read']} "
            f"({_share(m['global_sectors']['l2_hit'], m['global_sectors']['l2_read'])})")
        add("  read from DRAM", lambda m: f"{m['global_sectors']['dram_read']}")
        add("global sectors stored", lambda m: f"{m['global_sectors']['store']}")
    for u in UNIT_NAMES:
        if any(m["unit_busy"][u] > 0 for m in ks):
            add(f"busy {u}", lambda m, u=u: f"{m['unit_busy'][u]:.3f}")
    for r in L.STALL_NAMES:
        if any(m["stall_cycles"][r] for m in ks):
            add(f"stall {r}", lambda m, r=r: f"{m['stall_per_issue'][r]:.2f}/issue")
    ws = result.config.get("warp_size")
    occupied = [f"W{i}" for i in range(1, ws + 1) if any(m["warp_histogram"][f"W{i}"] for m in ks)]
    for name in occupied:
        add(f"warps with {name[1:]} active", lambda m, n=name: f"{m['warp_histogram'][n]}")
    width = max(len(label) for label, _ in rows)
    colw = [max(len(r[1][i]) for r in rows) for i in range(len(ks))]
    lines = [f"{label:<{width}}  " + "  ".join(f"{v:>{colw[i]}}" for i, v in enumerate(vals)) for label, vals in rows]
    lines.append(f"{'total cycles':<{width}}  {result.cycles}"
                 + ("  (interrupted)" if result.interrupted else ""))
    return "\n".join(lines)


def _share(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def metrics_json(result) -> dict:
    return {"config": result.config.name, "cycles": result.cycles, "interrupted": result.interrupted,
            "summary": result.summary, "kernels": result.kernels}


def dump_json(obj, path: str) -> None:
    def default(o):
        if isinstance(o, np.integer):
            return int(o)
        if isinstance(o, np.floating):
            return float(o)
        if isinstance(o, np.ndarray):
            return o.tolist()
        raise TypeError(type(o))
    with atomic_open(path, "w") as f:
        json.dump(obj, f, indent=1, default=default)
