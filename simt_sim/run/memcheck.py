"""The memcheck report (simt.memcheck / --memcheck): what `report` mode lists instead of stopping at
the first out-of-bounds or misaligned access, as compute-sanitizer's memcheck tool does.

The engine counts every bad access and keeps the first MEMCHECK_LIMIT of them (one row per thread
and access: warp, lane, pc, read / write / atomic, state space, address, size) after the fault
fields (engine/functional/address.bad_access); here they are named in the launch's own terms
(kernel, block, thread, instruction) and placed against the run's buffers: "8 bytes before buffer
'in'".  A bad read gives zeros and a bad write is dropped; the run goes on to its end.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from simt_sim.frontend.dims import Dim3
from simt_sim.isa import encoding as E
from simt_sim.machine import layout as L

MODES = ("fault", "report")
KIND_NAMES = {L.ACCESS_READ: "read", L.ACCESS_WRITE: "write", L.ACCESS_ATOMIC: "atomic"}
REASON_NAMES = {L.FAULT_OOB: "out-of-bounds", L.FAULT_MISALIGNED: "misaligned"}
SPACE_NAMES = {E.SP_GLOBAL: "global", E.SP_SHARED: "shared", E.SP_LOCAL: "local", E.SP_PARAM: "param",
               E.SP_CONST: "const"}


@dataclass
class BadAccess:
    """One thread's out-of-bounds or misaligned access."""
    kernel: str
    launch: int
    block: list[int]
    thread: list[int]
    warp: int                 # within the block
    lane: int
    pc: int
    instruction: str
    access: str               # read, write or atomic
    problem: str              # out-of-bounds or misaligned
    space: str                # global, shared, local, param, const
    address: int              # as the instruction computed it (generic addresses included)
    size: int                 # bytes
    nearest: str              # e.g. "8 bytes before buffer 'in' (0x10000, 256 bytes)"
    buffer: str | None        # the buffer (or memory) named in `nearest`
    distance: int | None      # bytes from it (0: inside it or right at its end)

    def text(self) -> str:
        xyz = lambda v: f"({v[0]},{v[1]},{v[2]})"      # noqa: E731
        return (f"{self.problem} {self.space} {self.access} of {self.size} bytes at {self.address:#x}: "
                f"{self.nearest}; kernel {self.kernel}, block {xyz(self.block)}, thread {xyz(self.thread)}, "
                f"pc {self.pc} `{self.instruction}`")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class MemcheckReport:
    mode: str
    total: int = 0                              # bad accesses in the run
    limit: int = L.MEMCHECK_LIMIT               # how many are kept
    accesses: list[BadAccess] = field(default_factory=list)

    def lines(self) -> list[str]:
        if self.mode != "report":
            return []
        if not self.total:
            return ["memcheck: no out-of-bounds or misaligned accesses"]
        kept = (f"the first {len(self.accesses)} listed" if self.total > len(self.accesses)
                else "all listed")
        out = [f"memcheck: {self.total} out-of-bounds or misaligned access{'es' if self.total != 1 else ''} "
               f"({kept}; at most {self.limit} are kept); reads gave zeros, writes were dropped"]
        out += [f"  {a.text()}" for a in self.accesses]
        return out

    def as_dict(self) -> dict:
        return {"mode": self.mode, "total": self.total, "recorded": len(self.accesses), "limit": self.limit,
                "accesses": [a.as_dict() for a in self.accesses]}


def _xyz(i: int, dims: Dim3) -> list[int]:
    return [i % dims.x, (i // dims.x) % dims.y, i // (dims.x * dims.y)]


def global_nearest(addr: int, size: int, problem: str, regions: list[tuple[str, int, int]]):
    """(description, buffer, distance) of a global access against regions (name, base, end)."""
    best = None
    for name, base, end in regions:
        label = f"buffer {name!r}" if name else "the module's globals"
        extent = f"({base:#x}, {end - base} bytes)"
        if base <= addr < max(end, base + 1):
            off = addr - base
            if problem == "misaligned":
                return f"inside {label} {extent} at byte offset {off}, not a multiple of {size}", name, 0
            return (f"straddles the end of {label} {extent}: byte offset {off}, {addr + size - end} bytes past "
                    f"its end", name, 0)
        d = base - addr if addr < base else addr - end
        where = f"{d} bytes before {label} {extent}" if addr < base else \
            f"{d} bytes after the end of {label} {extent}"
        if best is None or d < best[2]:
            best = (where, name, d)
    return best or ("no buffer is allocated", None, None)


def window_nearest(offset: int, size: int, problem: str, label: str, nbytes: int):
    """Against one state space of nbytes (the block's shared memory, a thread's local memory)."""
    if problem == "misaligned" and 0 <= offset < nbytes:
        return f"inside {label} ({nbytes} bytes) at byte offset {offset}, not a multiple of {size}", label, 0
    if offset < 0:
        return f"{-offset} bytes before {label} ({nbytes} bytes)", label, -offset
    if offset < nbytes:
        return (f"straddles the end of {label} ({nbytes} bytes): byte offset {offset}, "
                f"{offset + size - nbytes} bytes past its end", label, 0)
    return f"{offset - nbytes} bytes after the end of {label} ({nbytes} bytes)", label, offset - nbytes


def build_report(mode: str, fault: np.ndarray, image, launches, regions) -> MemcheckReport:
    """The report from the engine's fault vector.  launches: objects with program, grid, block;
    regions: (buffer name, base, end) of global memory ("" for the module's globals)."""
    report = MemcheckReport(mode)
    if mode != "report":
        return report
    report.total = int(fault[L.F_BAD_ACCESSES])
    kept = min(report.total, (len(fault) - len(L.FAULT_FIELDS)) // len(L.MEMCHECK_FIELDS))
    rows = fault[len(L.FAULT_FIELDS):len(L.FAULT_FIELDS) + kept * len(L.MEMCHECK_FIELDS)]
    rows = rows.reshape(kept, len(L.MEMCHECK_FIELDS))
    ws, wpb = image.warp_size, image.wpb
    g_shared, g_local = L.G["shared_bytes"], L.G["local_bytes"]
    for r in rows:
        gid, pc = int(r[L.MC_GID]), int(r[L.MC_PC])
        k = 0
        if image.kinfo is not None:
            for j in range(len(image.kinfo)):
                if image.kinfo[j, L.KF_GID_BASE] <= gid:
                    k = j
            gid -= int(image.kinfo[k, L.KF_GID_BASE])
        pc -= image.pc_bases[k]
        kl = launches[k]
        blk, wib = divmod(gid, wpb)
        lane = int(r[L.MC_LANE])
        problem = REASON_NAMES.get(int(r[L.MC_REASON]), "bad")
        space = int(r[L.MC_SPACE])
        addr, offset, size = int(r[L.MC_ADDR]), int(r[L.MC_OFFSET]), int(r[L.MC_SIZE])
        if space == E.SP_SHARED:
            where = window_nearest(offset, size, problem, "the block's shared memory",
                                   int(image.kgeom[k][g_shared]))
        elif space == E.SP_LOCAL:
            where = window_nearest(offset, size, problem, "the thread's local memory",
                                   int(image.kgeom[k][g_local]))
        elif space == E.SP_PARAM:
            where = window_nearest(offset, size, problem, "the kernel parameters", kl.program.param_size)
        else:
            where = global_nearest(offset, size, problem, regions)
        program = kl.program
        report.accesses.append(BadAccess(
            program.name, k, _xyz(blk, kl.grid), _xyz(wib * ws + lane, kl.block), wib, lane, pc,
            program.texts[pc] if 0 <= pc < len(program) else "", KIND_NAMES.get(int(r[L.MC_KIND]), "access"),
            problem, SPACE_NAMES.get(space, str(space)), addr, size, where[0], where[1], where[2]))
    return report
