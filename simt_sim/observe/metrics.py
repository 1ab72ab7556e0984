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

    def heading(label):
        rows.append((label, [""] * len(ks)))

    add("kernel", lambda m: f"{m['kernel']}" + ("" if m["finished"] else " (stopped)"))
    if len(ks) > 1:
        add("stream / start cycle", lambda m: f"{m['stream']} / {m['first_cycle']}")
    add("grid x block", lambda m: f"{m['grid']} x {m['block']}")
    add("cycles, launch to end", lambda m: f"{m['cycles']}")
    add("warp instructions issued", lambda m: f"{m['warp_instructions']}")
    add("thread instructions, guard true", lambda m: f"{m['thread_instructions']}")
    # ipc counts the warp-instructions of all simulated SMs; ipc_per_sm divides it by their number
    add("IPC, warp-instr/cycle, all SMs", lambda m: f"{m['ipc']:.3f} [per SM {m['ipc_per_sm']:.3f}]")
    add("CFE, share of lanes with guard true", lambda m: f"{m['cfe']:.4f}")
    add("SIMD efficiency, share of lanes active", lambda m: f"{m['simd_efficiency']:.4f}")
    add("issue-slot use, share of slots", lambda m: f"{m['issue_slot_use']:.3f} [of {m['active_smsps']} active SMSPs]")
    add("blocks resident per SM", lambda m: f"{m['occupancy']['blocks_per_sm']} "
        f"[limited by {m['occupancy']['limiter']}]")
    if any(m["global_sectors"]["load"] or m["global_sectors"]["store"] for m in ks):
        sector = result.config.get("memory.sector_bytes")
        add(f"global sectors loaded, {sector} B each", lambda m: f"{m['global_sectors']['load']}")
        add("  L1 hits, share of sectors loaded", lambda m: _share(m["global_sectors"]["l1_hit"], m["global_sectors"]["load"]))
        add("  read from L2, sectors", lambda m: f"{m['global_sectors']['l2_read']} "
            f"[L2 hits {_share(m['global_sectors']['l2_hit'], m['global_sectors']['l2_read'])}]")
        add("  read from DRAM, sectors", lambda m: f"{m['global_sectors']['dram_read']}")
        add(f"global sectors stored, {sector} B each", lambda m: f"{m['global_sectors']['store']}")
    busy = [u for u in UNIT_NAMES if any(m["unit_busy"][u] > 0 for m in ks)]
    if busy:
        heading("pipes busy, share of pipe-cycles")
    for u in busy:
        add(f"  {u}", lambda m, u=u: f"{m['unit_busy'][u]:.3f}")
    stalls = [r for r in L.STALL_NAMES if any(m["stall_cycles"][r] for m in ks)]
    if stalls:
        heading("stall reasons, warp-cycles per issue")
    for r in stalls:
        add(f"  {r}", lambda m, r=r: f"{m['stall_per_issue'][r]:.2f}")
    ws = result.config.get("warp_size")
    occupied = [f"W{i}" for i in range(1, ws + 1) if any(m["warp_histogram"][f"W{i}"] for m in ks)]
    if occupied:
        heading("warp-instructions by lanes active")
    for name in occupied:
        add(f"  {name[1:]} of {ws} lanes", lambda m, n=name: f"{m['warp_histogram'][n]}")
    width = max(len(label) for label, _ in rows)
    colw = [max(len(r[1][i]) for r in rows) for i in range(len(ks))]
    lines = [(f"{label:<{width}}  " + "  ".join(f"{v:>{colw[i]}}" for i, v in enumerate(vals))).rstrip()
             for label, vals in rows]
    lines.append(f"{'total cycles, all launches':<{width}}  {result.cycles}"
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
