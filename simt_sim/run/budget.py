"""One host-memory budget for a run (issue 62), checked before anything is allocated.

`limits.host_memory_mib` (default 8192 MiB = 8 GiB) bounds what a run keeps in host memory: its
buffers (the caller's input, the simulated global memory and the output read back: three copies;
the command line makes a fourth, the input it keeps for the expected values), module globals, the
resident blocks' registers, shared and local memory and SIMT stacks, the timing model's caches,
and the kept mask history and events (`limits.history_rows` rows at most, HISTORY_ROW_BYTES each
counted: the engine's rows, their concatenation and the sort the export makes).  A run whose
estimate is over the budget stops with exit 2 before allocating, naming the largest parts and the
key to raise.  Exports stream to their file (observe/export.py), so that writing them adds little
beyond what is counted here.
"""
from __future__ import annotations

from simt_sim.errors import InputError
from simt_sim.machine import layout as L

BUDGET_KEY = "limits.host_memory_mib"
HISTORY_ROW_BYTES = 128
# copies of a buffer a run holds at once: the caller's array, global memory, the output read back
BUFFER_COPIES = 3


def gib(n: int) -> str:
    if n >= 2**28:
        return f"{n / 2**30:.2f} GiB"
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB"


def check(parts: list[tuple[str, int]], budget: int) -> None:
    """Refuse the run when the parts' sum is over `budget` bytes (0: no budget)."""
    total = sum(n for _, n in parts)
    if budget <= 0 or total <= budget:
        return
    largest = sorted((p for p in parts if p[1] > 0), key=lambda p: -p[1])[:3]
    named = ", ".join(f"{what} {gib(n)}" for what, n in largest)
    raise InputError(f"the run needs about {gib(total)} of host memory, more than its budget of {gib(budget)} "
                     f"({BUDGET_KEY} = {budget // 2**20}): {named}; shrink those or raise the budget with "
                     f"--set {BUDGET_KEY}=N (docs/errors.md)")


def buffer_parts(sizes: dict[str, int], copies: int = BUFFER_COPIES) -> list[tuple[str, int]]:
    return [(f"buffer {name} ({copies} x {gib(n)})", copies * n) for name, n in sizes.items()]


def session_parts(image, buffers: dict, global_size: int, record_history: bool, record_threads: bool,
                  timed: bool) -> list[tuple[str, int]]:
    """What a Session of `image` will allocate, by part."""
    ws = image.warp_size
    threads = image.n_warps * ws
    n = image.numbering
    parts = buffer_parts({name: int(getattr(arr, "nbytes", 0)) for name, arr in buffers.items()})
    parts += [
        ("module globals", 3 * global_size),
        (f"registers ({threads:,} resident threads x ({n.n_r32:,} 32-bit + {n.n_r64:,} 64-bit + {n.n_pred:,} "
         f"predicate))",
         threads * (4 * n.n_r32 + 8 * n.n_r64 + n.n_pred)),
        (f"shared memory ({image.n_slots:,} resident blocks x {image.shared_stride:,} bytes)",
         image.n_slots * image.shared_stride),
        (f"local memory ({threads:,} resident threads x {image.local_stride:,} bytes)", threads * image.local_stride),
        ("SIMT stacks", image.n_warps * image.stack_depth * len(L.STACK_FIELDS) * 8),
    ]
    kept = int(record_history) + int(not timed)          # the history; a functional run's divergence events
    # a row per warp-instruction at most: no more than limits.max_warp_instructions of them
    rows = min(image.history_rows, int(image.kgeom[:, L.G["max_warp_insts"]].max()))
    if kept:
        parts.append((f"mask history and events ({rows:,} rows: limits.history_rows)",
                      kept * rows * HISTORY_ROW_BYTES))
    if record_threads:
        parts.append(("per-thread instruction counts", image.n_gids * ws * 8 + image.n_gids * 8))
    if timed:
        parts.append(("timing model caches", image.timing_bytes))
        if image.tc[L.TC["record_trace"]]:
            parts.append((f"issue trace ({rows:,} rows: limits.history_rows)", rows * HISTORY_ROW_BYTES))
    return parts
