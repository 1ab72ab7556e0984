"""Chrome / Perfetto trace-event JSON of a timing run (open in https://ui.perfetto.dev or
chrome://tracing).

Time: `ts` and `dur` are simulated cycles written where the format expects microseconds, so
**1 us in the viewer = 1 cycle** (1 ms = 1000 cycles).  `displayTimeUnit` is "ms", the format's
default; both viewers read ts as microseconds whatever it says.

Tracks:
  process "SM n"  (pid n + 1)
    thread "warp G (bB wW)"      one per warp that ran on the SM (tid G + 1):
        an "X" event per issued warp-instruction, 1 cycle long, name = instruction text,
        args pc, active_lanes, executing_lanes, mask / exec_mask (lane 0 first), unit, ready cycle;
        an "X" event per stall interval, name = stall reason (cat "stall"); math_pipe_throttle
        means "operands ready, waiting for a unit pipe or not selected by the scheduler".
    thread "spS UNIT pipe P"     one per (sub-partition, unit, pipe) that was used: an "X" event
        per warp-instruction occupying the pipe (its initiation interval ceil(warp_size/lanes)),
        name = instruction text.  Pipes are assigned as the engine does: the lowest-numbered free
        pipe at issue.  Units that share pipes (`shared_with`) appear under the owning unit.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simt_sim.files import atomic_open
from simt_sim.isa.encoding import UNIT_NAMES
from simt_sim.machine import layout as L
from simt_sim.observe.pictures import warp_labels

UNIT_TID_BASE = 1_000_000


def lane_string(mask: int, ws: int) -> str:
    return "".join("1" if (mask >> i) & 1 else "0" for i in range(ws))


def instruction_texts(result) -> tuple[list[int], list[list[str]]]:
    """pc bases of the linked launches and each launch's instruction texts."""
    bases, base = [], 0
    for kl in result.launches:
        bases.append(base)
        base += len(kl.program)
    return bases, [kl.program.texts for kl in result.launches]


def pipe_assignment(result) -> tuple[np.ndarray, np.ndarray]:
    """int64[n]: the pipe of its unit that each trace row's instruction occupied, and int64[n]
    the cycles it held it (both as the engine recorded them: a shared-memory access's bytes can
    hold a pipe longer than its unit's interval)."""
    tr = result.trace
    return tr[:, L.TR_PIPE].copy(), tr[:, L.TR_BUSY].copy()


def perfetto_events(result) -> list[dict]:
    ws = int(result.config.get("warp_size"))
    tr = result.trace
    sl = result.stall_log
    bases, texts = instruction_texts(result)
    events: list[dict] = []
    meta: list[dict] = []

    gid_sm: dict[int, int] = {}
    for row in tr:
        gid_sm.setdefault(int(row[L.TR_GID]), int(row[L.TR_SM]))
    sms = sorted(set(gid_sm.values()))
    for sm in sms:
        meta.append({"name": "process_name", "ph": "M", "pid": sm + 1, "tid": 0, "args": {"name": f"SM {sm}"}})
        meta.append({"name": "process_sort_index", "ph": "M", "pid": sm + 1, "tid": 0, "args": {"sort_index": sm}})
    gids = sorted(gid_sm)
    for gid, label in zip(gids, warp_labels(result, gids)):
        pid = gid_sm[gid] + 1
        meta.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": gid + 1,
                     "args": {"name": f"warp {gid} ({label})"}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": gid + 1,
                     "args": {"sort_index": gid + 1}})

    # issued instructions on the warp tracks, and on the unit pipes
    pipes, busy = pipe_assignment(result)
    used_pipes: set[tuple[int, int, int, int]] = set()
    for i, row in enumerate(tr):
        cycle, gid, pc, mask, exe, unit, sm, sp, k, ready = (
            int(row[f]) for f in (L.TR_CYCLE, L.TR_GID, L.TR_PC, L.TR_MASK, L.TR_EXEC, L.TR_UNIT, L.TR_SM, L.TR_SP,
                                  L.TR_KERNEL, L.TR_READY))
        local_pc = pc - bases[k]
        text = texts[k][local_pc] if 0 <= local_pc < len(texts[k]) else f"pc {pc}"
        events.append({"name": text, "cat": "issue", "ph": "X", "ts": cycle, "dur": 1, "pid": sm + 1,
                       "tid": gid + 1,
                       "args": {"pc": local_pc, "active_lanes": bin(mask & ((1 << 64) - 1)).count("1"),
                                "executing_lanes": bin(exe & ((1 << 64) - 1)).count("1"),
                                "mask": lane_string(mask, ws), "exec_mask": lane_string(exe, ws),
                                "unit": UNIT_NAMES[unit], "ready": ready, "launch": k}})
        p = int(pipes[i])
        used_pipes.add((sm, sp, unit, p))
        events.append({"name": text, "cat": "unit", "ph": "X", "ts": cycle, "dur": int(busy[i]), "pid": sm + 1,
                       "tid": unit_tid(sp, unit, p), "args": {"warp": gid, "pc": local_pc}})
    for sm, sp, unit, p in sorted(used_pipes):
        tid = unit_tid(sp, unit, p)
        meta.append({"name": "thread_name", "ph": "M", "pid": sm + 1, "tid": tid,
                     "args": {"name": f"sp{sp} {UNIT_NAMES[unit]} pipe {p}"}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": sm + 1, "tid": tid,
                     "args": {"sort_index": tid}})

    for gid, start, end, reason in (tuple(int(v) for v in r) for r in sl):
        if end <= start or gid not in gid_sm:
            continue
        events.append({"name": L.STALL_NAMES[reason], "cat": "stall", "ph": "X", "ts": start, "dur": end - start,
                       "pid": gid_sm[gid] + 1, "tid": gid + 1, "args": {}})
    events.sort(key=lambda e: (e["pid"], e["tid"], e["ts"], -e["dur"], e["cat"]))
    return meta + events


def unit_tid(sp: int, unit: int, pipe: int) -> int:
    return UNIT_TID_BASE + (sp * len(UNIT_NAMES) + unit) * 64 + pipe


def write_perfetto(result, path) -> None:
    """Write result's trace (needs record_trace=True) as trace-event JSON to path."""
    doc = {
        "displayTimeUnit": "ms",
        "otherData": {"time_unit": "1 us in the viewer = 1 simulated cycle",
                      "config": result.config.name, "cycles": int(result.cycles),
                      "warp_size": int(result.config.get("warp_size")),
                      "kernels": [kl.program.name for kl in result.launches],
                      "complete": not result.interrupted},       # false: Ctrl-C cut the run short
        "traceEvents": perfetto_events(result),
    }
    with atomic_open(Path(path), "w") as f:
        f.write('{"displayTimeUnit":"ms",\n"otherData":' + json.dumps(doc["otherData"], sort_keys=True)
                + ',\n"traceEvents":[\n')
        evs = doc["traceEvents"]
        for i, e in enumerate(evs):
            f.write(json.dumps(e, separators=(",", ":")) + (",\n" if i + 1 < len(evs) else "\n"))
        f.write("]}\n")
