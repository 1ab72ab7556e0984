"""One run session, shared by the functional and the timed run: global memory and parameters laid
out, the engine's state records made from a `MachineImage`, the engine called until it is done
(draining the history, event and trace buffers it hands back), results read back, and faults
turned into messages that name kernel, block, warp, thread and pc."""
from __future__ import annotations

import struct

import numpy as np

from simt_sim.frontend.assembler import Program
from simt_sim.isa import encoding as E
from simt_sim.machine import layout as L
from simt_sim.frontend.dims import Dim3
from simt_sim.machine.lower import MachineImage
from simt_sim.machine.state import Memory, empty_history, make_counters, make_regs, make_warps
from simt_sim.run import budget
from simt_sim.run.memcheck import MODES as MEMCHECK_MODES, MemcheckReport, build_report

BUFFER_ALIGN = 256
BUFFER_GAP = 256          # unmapped bytes between buffers, so overruns fault instead of aliasing


def _pack_scalar(dtype: str, value) -> bytes:
    fmt = {"u8": "<B", "s8": "<b", "b8": "<B", "u16": "<H", "s16": "<h", "b16": "<H",
           "u32": "<I", "s32": "<i", "b32": "<I", "u64": "<Q", "s64": "<q", "b64": "<Q",
           "f32": "<f", "f64": "<d"}[dtype]
    if fmt[-1] in "fd":
        return struct.pack(fmt, float(value))
    bits = int(value) & ((1 << (8 * struct.calcsize(fmt))) - 1)
    return struct.pack(fmt.upper() if fmt[-1] in "bhiq" else fmt, bits)


def layout_global(program: Program, buffers: dict[str, np.ndarray]):
    """Module globals at GLOBAL_BASE, then each buffer, aligned, with unmapped gaps.
    -> (gmem bytes, allocations int64[n, 3] (base, end, offset), buffer addresses)."""
    addr = E.GLOBAL_BASE
    chunks: list[tuple[int, np.ndarray]] = []
    allocs: list[tuple[int, int, int]] = []
    off = 0
    gbytes = bytearray(program.global_size)
    for var in program.globals:
        if var.init:
            data = b"".join(_pack_scalar(var.dtype, v) for v in var.init)
            gbytes[var.offset:var.offset + len(data)] = data
    regions = [("", np.frombuffer(gbytes, np.uint8))] if program.global_size else []
    # each buffer's bytes are copied once, straight into global memory (issue 62: a buffer took
    # about four times its size while tobytes / padding / join / copy each made one)
    regions += [(name, np.ascontiguousarray(arr).reshape(-1).view(np.uint8)) for name, arr in buffers.items()]
    buffer_addr: dict[str, int] = {}
    for name, data in regions:
        size = max(len(data), 1)
        allocs.append((addr, addr + len(data), off))
        if name:
            buffer_addr[name] = addr
        chunks.append((off, data))
        off += size
        addr = (addr + size + BUFFER_GAP + BUFFER_ALIGN - 1) // BUFFER_ALIGN * BUFFER_ALIGN
    gmem = np.zeros(max(off, 1), np.uint8)
    for start, data in chunks:
        gmem[start:start + len(data)] = data
    table = np.array(allocs or [(0, 0, 0)], np.int64).reshape(-1, 3)
    return gmem, table, buffer_addr


def read_buffers(buffers: dict[str, np.ndarray], buffer_addr: dict[str, int], allocs, gmem) -> dict[str, np.ndarray]:
    """Copies of the buffers' contents after a run, with their input shapes and dtypes."""
    out = {}
    for name, arr in buffers.items():
        a = np.ascontiguousarray(arr)
        i = list(allocs[:, 0]).index(buffer_addr[name])
        off = int(allocs[i, 2])
        out[name] = gmem[off:off + a.nbytes].view(a.dtype).reshape(a.shape).copy()
    return out


def read_module_globals(program: Program, gmem: np.ndarray, allocs) -> dict[str, np.ndarray]:
    """The bytes of each module-global variable after a run (they live first in global memory)."""
    if not program.global_size:
        return {}
    base = int(allocs[0, 2])
    return {v.name: gmem[base + v.offset:base + v.offset + v.size].copy() for v in program.globals}


def pack_params(program: Program, args: list, buffer_addr: dict[str, int]) -> np.ndarray:
    from simt_sim.errors import InputError
    if len(args) != len(program.params):
        raise InputError(f"kernel {program.name} takes {len(program.params)} parameters "
                         f"({', '.join(p.name for p in program.params)}), {len(args)} given")
    pmem = bytearray(max(program.param_size, 8))
    for p, arg in zip(program.params, args):
        if isinstance(arg, str):
            if arg not in buffer_addr:
                raise InputError(f"parameter {p.name}: no buffer named {arg!r}")
            if p.size != 8:
                raise InputError(f"parameter {p.name} is .{p.dtype}; a buffer address needs 64 bits")
            value = buffer_addr[arg]
        else:
            value = arg
        try:
            data = _pack_scalar(p.dtype, value)
        except (OverflowError, ValueError):          # inf or nan for an integer, 1e300 for an f32
            raise InputError(f"parameter {p.name} (.{p.dtype}) cannot hold {value!r}") from None
        pmem[p.offset:p.offset + len(data)] = data
    if program.bank_image:                  # SASS: constant banks 3, 4, ... after the parameters
        pmem[program.bank_image_offset:program.bank_image_offset + len(program.bank_image)] = program.bank_image
    return np.frombuffer(bytes(pmem), dtype=np.uint8).copy()


class Session:
    """Memory and state for running `image`'s launches over `buffers`.

    record_threads: keep per-thread instruction counts and per-warp stack depths for the whole
    grid (functional runs of test-sized grids); otherwise nothing is sized by the grid.
    memcheck: "fault" stops at the first out-of-bounds or misaligned access, "report" lists them
    (run/memcheck.py) and lets the run go on."""

    def __init__(self, image: MachineImage, launches: list, buffers: dict[str, np.ndarray],
                 record_history: bool, record_threads: bool, memcheck: str = "fault"):
        self.image, self.launches = image, launches
        self.buffers = dict(buffers or {})
        owner = next((kl.program for kl in launches if kl.program.global_size), launches[0].program)
        self.owner = owner
        # the host-memory budget, before anything is allocated (run/budget.py)
        budget.check(budget.session_parts(image, self.buffers, owner.global_size, record_history, record_threads,
                                          timed=image.tc is not None), image.host_memory_bytes)
        self.kept_rows = image.history_rows
        self.dropped = {"hist": 0, "events": 0}
        self.gmem, self.allocs, self.buffer_addr = layout_global(owner, self.buffers)
        pmem = bytearray(max(image.param_size, 8))
        for k, kl in enumerate(launches):
            packed = pack_params(kl.program, kl.args, self.buffer_addr)
            n = min(len(packed), max(kl.program.param_size, 8))
            pmem[image.param_bases[k]:image.param_bases[k] + n] = packed[:n].tobytes()
        ws, n_warps = image.warp_size, image.n_warps
        self.mem = Memory(self.gmem, self.allocs, np.zeros(max(image.n_slots * image.shared_stride, 1), np.uint8),
                          np.zeros(max(n_warps * ws * image.local_stride, 1), np.uint8),
                          np.frombuffer(bytes(pmem), np.uint8).copy())
        n = image.numbering
        self.regs = make_regs(n_warps * ws, n.n_r32, n.n_r64, n.n_pred)
        self.warps = make_warps(n_warps, image.stack_depth)
        self.slot_block = np.full(image.n_slots, -1, np.int64)
        self.counters = make_counters()
        self.thread_icount = np.zeros(image.n_gids * ws if record_threads else 0, np.int64)
        self.max_sp = np.zeros(image.n_gids if record_threads else 0, np.int64)
        self.record_history = record_history
        self.hist = empty_history(L.HISTORY_CHUNK if record_history else 0)
        self.ev = np.zeros((L.EVENT_CHUNK, len(L.EVENT_FIELDS)), np.int64)
        if memcheck not in MEMCHECK_MODES:
            from simt_sim.errors import InputError
            raise InputError(f"memcheck must be one of {', '.join(MEMCHECK_MODES)}, found {memcheck!r}")
        self.memcheck = memcheck
        room = L.MEMCHECK_LIMIT * len(L.MEMCHECK_FIELDS) if memcheck == "report" else 0
        self.fault = np.zeros(len(L.FAULT_FIELDS) + room, np.int64)
        self.fault[L.F_MEMCHECK] = memcheck == "report"
        self.parts: dict[str, list[np.ndarray]] = {"hist": [], "events": []}

    def run_state(self) -> tuple:
        return (self.image.kgeom, self.slot_block, self.counters, self.thread_icount, self.max_sp, self.hist,
                self.ev, self.fault)

    def drain(self, status: int, keep_events: bool) -> bool:
        """Empty the buffer the engine said is full; False when status is not such a request."""
        c = self.counters
        if status == L.RUN_HISTORY_FULL:
            self.keep("hist", self.hist[:c[L.C_HIST]])
            c[L.C_HIST] = 0
            if len(self.hist) < L.HISTORY_CHUNK_MAX and self.room("hist") > 0:
                self.hist = empty_history(len(self.hist) * 2)
            return True
        if status == L.RUN_EVENTS_FULL:
            if keep_events:
                self.keep("events", self.ev[:c[L.C_EVENTS]])
            c[L.C_EVENTS] = 0
            return True
        return False

    def room(self, kind: str) -> int:
        """Rows of `kind` (hist, events) still kept under limits.history_rows."""
        return self.kept_rows - sum(len(p) for p in self.parts[kind])

    def keep(self, kind: str, rows: np.ndarray) -> None:
        """Keep the first rows up to limits.history_rows; count the rest (history_complete: false)."""
        take = max(min(len(rows), self.room(kind)), 0)
        if take:
            self.parts[kind].append(rows[:take].copy())
        self.dropped[kind] += len(rows) - take

    def history(self) -> np.ndarray:
        tail = self.hist[:min(int(self.counters[L.C_HIST]), len(self.hist))]
        self.keep("hist", tail)
        self.hist = empty_history(0) if self.parts["hist"] else self.hist
        self.counters[L.C_HIST] = 0
        parts = self.parts["hist"]
        out = np.concatenate(parts) if len(parts) > 1 else (parts[0] if parts else empty_history(0))
        self.parts["hist"] = [out] if len(out) else []
        return out

    def events(self) -> np.ndarray:
        self.keep("events", self.ev[:self.counters[L.C_EVENTS]])
        self.counters[L.C_EVENTS] = 0
        parts = self.parts["events"]
        out = np.concatenate(parts) if len(parts) > 1 else (parts[0] if parts else self.ev[:0].copy())
        self.parts["events"] = [out] if len(out) else []
        return out

    def outputs(self) -> dict[str, np.ndarray]:
        return read_buffers(self.buffers, self.buffer_addr, self.allocs, self.gmem)

    def memcheck_report(self) -> MemcheckReport:
        """The bad accesses of a memcheck=report run, named in each launch's terms."""
        names = {addr: name for name, addr in self.buffer_addr.items()}
        regions = [(names.get(int(base), ""), int(base), int(end)) for base, end, _ in self.allocs
                   if int(base) in names or self.owner.global_size]
        return build_report(self.memcheck, self.fault, self.image, self.launches, regions)

    def module_globals(self) -> dict[str, np.ndarray]:
        return read_module_globals(self.owner, self.gmem, self.allocs)

    def resident_stack_depths(self) -> None:
        """Blocks still in their slots at the end keep their stack depths in the warp record."""
        if not len(self.max_sp):
            return
        f = self.warps.f
        resident = f[:, L.WF_STATUS] != L.W_EMPTY
        self.max_sp[f[resident, L.WF_GID]] = f[resident, L.WF_MAX_SP]


def _xyz(i: int, dims: Dim3) -> str:
    return f"({i % dims.x},{(i // dims.x) % dims.y},{i // (dims.x * dims.y)})"


def describe_fault(program: Program, fault, warps, slot_block, grid: Dim3, block: Dim3, ws: int, wpb: int) -> str:
    code, gid, lane, pc, addr, extra = (int(x) for x in fault[:6])
    blk, wib = divmod(gid, wpb)
    where = f"kernel {program.name}, block {_xyz(blk, grid)}, warp {wib}"
    if lane >= 0:
        where += f", thread {_xyz(wib * ws + lane, block)} (lane {lane})"
    if 0 <= pc < len(program):
        where += f", pc {pc} `{program.texts[pc]}` ({program.locs[pc]})"
    messages = {
        L.FAULT_OOB: f"out-of-bounds access of {extra} bytes at address {addr:#x}",
        L.FAULT_MISALIGNED: f"misaligned access of {extra} bytes at address {addr:#x}",
        L.FAULT_STACK: f"SIMT stack overflow (depth limit {extra})",
        L.FAULT_CALL_DEPTH: f"call stack overflow: a call nested deeper than simt.call_depth = {extra} "
                            "(unbounded recursion? raise it with --set simt.call_depth=N)",
        L.FAULT_LIMIT: f"instruction limit of {extra} warp-instructions reached",
        L.FAULT_CYCLE_LIMIT: f"cycle limit of {extra} cycles reached",
        L.FAULT_TRAP: "trap executed",
        L.FAULT_WALL_CLOCK: f"wall-clock limit of {extra / 1000:g} s reached (limits.wall_seconds: an endless loop? "
                            "raise it with --set limits.wall_seconds=S, 0 for no limit)",
        L.FAULT_EMPTY_POP: "pop_mask / mask_nz with no pushed mask on the stack",
        L.FAULT_BAD_TARGET: f"CALL / RET to code address {addr:#x}, which is not an instruction of the kernel "
                            f"(its code is {extra:#x} bytes; a corrupted return address or function pointer?)",
    }
    if code in messages:
        return f"runtime error: {messages[code]}; {where}"
    if code == L.FAULT_UNSUPPORTED:
        if extra == L.UNSUPPORTED_SASS:
            return f"runtime error: the SASS instruction has no semantics in the simulator; {where}"
        if extra == L.UNSUPPORTED_MMA_LANES:
            name = [word for word in program.texts[pc].split() if not word.startswith("@")][0].rstrip(";")
            return (f"runtime error: {name} needs all 32 lanes of the warp active "
                    f"(active mask {addr:#010x}); {where}")
        return (f"runtime error: barrier thread count {addr} must be a positive multiple of the warp size "
                f"({ws}) and at most the block's {wpb * ws} threads in whole warps; {where}")
    if code == L.FAULT_DEADLOCK:
        return f"{describe_deadlock(program, pc, extra, warps, slot_block, grid, ws, wpb)}; {where}"
    return f"runtime error: fault {code}; {where}"


def describe_deadlock(program: Program, pc: int, slot: int, warps, slot_block, grid: Dim3, ws: int, wpb: int) -> str:
    f = warps.f
    lines = []
    for w in range(slot * wpb, slot * wpb + wpb):
        st = int(f[w, L.WF_STATUS])
        if st == L.W_BARRIER:
            lines.append(f"warp {w - slot * wpb} waits at pc {int(f[w, L.WF_PC]) - 1} with mask "
                         f"{mask_bits(int(f[w, L.WF_BAR_MASK]), ws)} of {mask_bits(int(f[w, L.WF_FULL]), ws)}")
        elif st == L.W_DONE:
            lines.append(f"warp {w - slot * wpb} finished")
    b = int(slot_block[slot])
    return (f"runtime error: barrier deadlock in kernel {program.name}, block {_xyz(b, grid)}: "
            f"the barrier at pc {pc} `{program.texts[pc] if 0 <= pc < len(program) else ''}` can never "
            f"complete (threads exited or diverged away): " + "; ".join(lines))


def mask_bits(mask: int, width: int) -> str:
    """Lane 0 first, as in the branching article's mask pictures."""
    return "".join("1" if (mask >> i) & 1 else "0" for i in range(width))


def lane_efficiency(lanes: int, warp_insts: int, warp_size: int) -> float:
    """Lanes used per lane offered: CFE (control-flow efficiency, the seed paper's metric) when
    `lanes` counts guard-true thread instructions, SIMD efficiency when it counts active lanes."""
    return lanes / (warp_insts * warp_size) if warp_insts else 0.0
