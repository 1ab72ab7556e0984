"""Launch a kernel: lay out memory, build the state arrays, run the engine, collect results.

This is the Python side of a run: everything here happens once per launch; the per-instruction
work is in simt_sim/engine (numba).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from simt_sim.isa import encoding as E
from simt_sim.machine import state as ST
from simt_sim.engine.functional.loop import run_functional
from simt_sim.engine.functional.simt_stack import POLICY_NAMES
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend.assembler import Program
from simt_sim.machine.dims import Dim3, check_dims  # noqa: F401  (Dim3 re-exported for callers)

BUFFER_ALIGN = 256
BUFFER_GAP = 256          # unmapped bytes between buffers, so overruns fault instead of aliasing


@dataclass
class LaunchConfig:
    warp_size: int = 32
    stack_depth: int = 32
    policy: str = "fewer-first"
    max_warp_insts: int = 50_000_000
    max_resident_blocks: int = 32
    num_sms: int = 1
    record_history: bool = True

    def validate(self) -> None:
        if not 1 <= self.warp_size <= 64:
            raise InputError(f"warp_size must be between 1 and 64, got {self.warp_size}")
        if self.policy not in POLICY_NAMES:
            raise InputError(f"divergence policy must be one of {', '.join(POLICY_NAMES)}, got {self.policy!r}")
        if self.stack_depth < 1:
            raise InputError("stack_depth must be at least 1")


@dataclass
class RunResult:
    program: Program
    grid: Dim3
    block: Dim3
    config: LaunchConfig
    buffers: dict[str, np.ndarray]
    history: np.ndarray            # int64[n, 4]: warp gid, pc, active mask, executing (guard-true) mask
    events: np.ndarray             # int64[n, 5]: warp gid, kind, pc, mask, stack depth
    thread_icount: np.ndarray      # instructions executed (guard true) per thread, by global thread
    max_stack_depth: np.ndarray    # per global warp
    counters: dict[str, int] = field(default_factory=dict)
    module_globals: dict[str, np.ndarray] = field(default_factory=dict)   # name -> bytes after the run

    @property
    def warps_per_block(self) -> int:
        return -(-self.block.count // self.config.warp_size)

    def warp_history(self, gid: int) -> np.ndarray:
        return self.history[self.history[:, 0] == gid]

    @property
    def stats(self) -> dict[str, float]:
        c = self.counters
        ws = self.config.warp_size
        warp_insts = c["warp_insts"]
        return {
            "warp_instructions": warp_insts,
            "thread_instructions": c["thread_insts"],
            "active_lane_instructions": c["active_lanes"],
            "cfe": c["thread_insts"] / (warp_insts * ws) if warp_insts else 0.0,
            "simd_efficiency": c["active_lanes"] / (warp_insts * ws) if warp_insts else 0.0,
        }


def _pack_scalar(dtype: str, value) -> bytes:
    fmt = {"u8": "<B", "s8": "<b", "b8": "<B", "u16": "<H", "s16": "<h", "b16": "<H",
           "u32": "<I", "s32": "<i", "b32": "<I", "u64": "<Q", "s64": "<q", "b64": "<Q",
           "f32": "<f", "f64": "<d"}[dtype]
    if fmt[-1] in "fd":
        return struct.pack(fmt, float(value))
    bits = int(value) & ((1 << (8 * struct.calcsize(fmt))) - 1)
    return struct.pack(fmt.upper() if fmt[-1] in "bhiq" else fmt, bits)


def layout_global(program: Program, buffers: dict[str, np.ndarray]):
    """Module globals at GLOBAL_BASE, then each buffer, aligned, with unmapped gaps."""
    bases, ends, offs = [], [], []
    addr = E.GLOBAL_BASE
    chunks: list[bytes] = []
    off = 0
    gbytes = bytearray(program.global_size)
    for var in program.globals:
        if var.init:
            data = b"".join(_pack_scalar(var.dtype, v) for v in var.init)
            gbytes[var.offset:var.offset + len(data)] = data
    regions = [("", bytes(gbytes))] if program.global_size else []
    regions += [(name, np.ascontiguousarray(arr).tobytes()) for name, arr in buffers.items()]
    buffer_addr: dict[str, int] = {}
    for name, data in regions:
        size = max(len(data), 1)
        bases.append(addr)
        ends.append(addr + len(data))
        offs.append(off)
        if name:
            buffer_addr[name] = addr
        chunks.append(data + bytes(size - len(data)))
        off += size
        addr = (addr + size + BUFFER_GAP + BUFFER_ALIGN - 1) // BUFFER_ALIGN * BUFFER_ALIGN
    gmem = np.frombuffer(b"".join(chunks) or b"\0", dtype=np.uint8).copy()
    return gmem, np.array(bases or [0], np.int64), np.array(ends or [0], np.int64), \
        np.array(offs or [0], np.int64), buffer_addr


def read_buffers(buffers: dict[str, np.ndarray], buffer_addr: dict[str, int], bases, offs,
                 gmem: np.ndarray) -> dict[str, np.ndarray]:
    """Copies of the buffers' contents after a run, with their input shapes and dtypes."""
    out = {}
    for name, arr in buffers.items():
        a = np.ascontiguousarray(arr)
        i = list(bases).index(buffer_addr[name])
        out[name] = gmem[offs[i]:offs[i] + a.nbytes].view(a.dtype).reshape(a.shape).copy()
    return out


def read_module_globals(program: Program, gmem: np.ndarray, offs) -> dict[str, np.ndarray]:
    """The bytes of each module-global variable after a run (they live first in global memory)."""
    if not program.global_size:
        return {}
    base = int(offs[0])
    return {v.name: gmem[base + v.offset:base + v.offset + v.size].copy() for v in program.globals}


def pack_params(program: Program, args: list, buffer_addr: dict[str, int]) -> np.ndarray:
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
    return np.frombuffer(bytes(pmem), dtype=np.uint8).copy()


def launch(program: Program, grid, block, args: list, buffers: dict[str, np.ndarray] | None = None,
           config: LaunchConfig | None = None, dynamic_shared: int = 0) -> RunResult:
    """Run `program` over grid x block threads.  args: one per kernel parameter, either the name
    of a buffer (its address is passed) or a number.  Buffers are copied in and out."""
    config = config or LaunchConfig()
    config.validate()
    grid, block = check_dims(grid, "grid"), check_dims(block, "block")
    buffers = dict(buffers or {})
    ws = config.warp_size
    wpb = -(-block.count // ws)
    n_blocks = grid.count
    slots = max(1, min(n_blocks, config.max_resident_blocks))
    n_warps = slots * wpb
    n_threads = n_warps * ws
    shared_bytes = program.shared_size + dynamic_shared
    geom = np.zeros(len(ST.GEOM_FIELDS), dtype=np.int64)
    for name, value in (("gx", grid.x), ("gy", grid.y), ("gz", grid.z), ("bx", block.x), ("by", block.y),
                        ("bz", block.z), ("warp_size", ws), ("wpb", wpb), ("tpb", block.count),
                        ("slots", slots), ("blocks", n_blocks), ("shared_bytes", shared_bytes),
                        ("local_bytes", program.local_size), ("policy", POLICY_NAMES.index(config.policy)),
                        ("max_warp_insts", config.max_warp_insts), ("n_sm", config.num_sms),
                        ("slots_per_sm", slots)):
        geom[ST.G[name]] = value
    gmem, bases, ends, offs, buffer_addr = layout_global(program, buffers)
    pmem = pack_params(program, args, buffer_addr)
    mem = ST.Memory(gmem, bases, ends, offs,
                    np.zeros(max(slots * shared_bytes, 1), np.uint8),
                    np.zeros(max(n_threads * program.local_size, 1), np.uint8), pmem)
    code = ST.make_code(program)
    regs = ST.make_regs(n_threads, program)
    warps = ST.make_warps(n_warps, config.stack_depth)
    slot_block = np.full(slots, -1, dtype=np.int64)
    counters = np.zeros(ST.N_COUNTERS, dtype=np.int64)
    thread_icount = np.zeros(n_blocks * wpb * ws, dtype=np.int64)
    max_sp = np.zeros(n_blocks * wpb, dtype=np.int64)
    hist = np.zeros((4096 if config.record_history else 0, 4), dtype=np.int64)
    ev = np.zeros((1024, 5), dtype=np.int64)
    fault = np.zeros(8, dtype=np.int64)
    hist_parts: list[np.ndarray] = []
    ev_parts: list[np.ndarray] = []
    with np.errstate(all="ignore"):
        while True:
            status = run_functional(code, regs, warps, mem, geom, slot_block, counters, thread_icount,
                                    max_sp, hist, ev, fault)
            if status == ST.RUN_HISTORY_FULL:
                if config.record_history:
                    hist_parts.append(hist.copy())
                    hist = np.zeros((min(len(hist) * 2, 1 << 22), 4), dtype=np.int64)
                counters[ST.C_HIST] = 0
                if not config.record_history:
                    hist = np.zeros((0, 4), dtype=np.int64)
                continue
            if status == ST.RUN_EVENTS_FULL:
                ev_parts.append(ev[:counters[ST.C_EVENTS]].copy())
                counters[ST.C_EVENTS] = 0
                continue
            break
    n_hist = min(int(counters[ST.C_HIST]), len(hist))
    history = np.concatenate(hist_parts + [hist[:n_hist]]) if hist_parts else hist[:n_hist].copy()
    events = np.concatenate(ev_parts + [ev[:counters[ST.C_EVENTS]]])
    resident = warps.status != ST.W_EMPTY          # blocks still in their slots at the end
    max_sp[warps.gid[resident]] = warps.max_sp[resident]
    if status == ST.RUN_FAULT:
        raise RuntimeFault(describe_fault(program, fault, warps, geom, slot_block, grid, block, ws, wpb))
    out = read_buffers(buffers, buffer_addr, bases, offs, gmem)
    names = ("events", "hist", "warp_insts", "thread_insts", "active_lanes", "next_block", "blocks_done", "clock")
    return RunResult(program, grid, block, config, out, history, events, thread_icount, max_sp,
                     {n: int(counters[i]) for i, n in enumerate(names)}, read_module_globals(program, gmem, offs))


def _xyz(i: int, dims: Dim3) -> str:
    return f"({i % dims.x},{(i // dims.x) % dims.y},{i // (dims.x * dims.y)})"


def describe_fault(program: Program, fault, warps, geom, slot_block, grid: Dim3, block: Dim3, ws: int,
                   wpb: int) -> str:
    code, gid, lane, pc, addr, extra = (int(x) for x in fault[:6])
    blk, wib = divmod(gid, wpb)
    where = f"kernel {program.name}, block {_xyz(blk, grid)}, warp {wib}"
    if lane >= 0:
        where += f", thread {_xyz(wib * ws + lane, block)} (lane {lane})"
    if 0 <= pc < len(program):
        where += f", pc {pc} `{program.texts[pc]}` ({program.locs[pc]})"
    if code == ST.FAULT_OOB:
        return f"runtime error: out-of-bounds access of {extra} bytes at address {addr:#x}; {where}"
    if code == ST.FAULT_MISALIGNED:
        return f"runtime error: misaligned access of {extra} bytes at address {addr:#x}; {where}"
    if code == ST.FAULT_STACK:
        return f"runtime error: SIMT stack overflow (depth limit {extra}); {where}"
    if code == ST.FAULT_LIMIT:
        return f"runtime error: instruction limit of {extra} warp-instructions reached; {where}"
    if code == ST.FAULT_CYCLE_LIMIT:
        return f"runtime error: cycle limit of {extra} cycles reached; {where}"
    if code == ST.FAULT_TRAP:
        return f"runtime error: trap executed; {where}"
    if code == ST.FAULT_EMPTY_POP:
        return f"runtime error: pop_mask / mask_nz with no pushed mask on the stack; {where}"
    if code == ST.FAULT_UNSUPPORTED:
        if extra == 1:
            return (f"runtime error: mma.sync.aligned.m8n8k4 needs all 32 lanes of the warp active "
                    f"(active mask {addr:#010x}); {where}")
        return f"runtime error: bar.sync with a thread count is not supported; {where}"
    if code == ST.FAULT_DEADLOCK:
        slot = extra
        lines = []
        for w in range(slot * wpb, slot * wpb + wpb):
            st = int(warps.status[w])
            wib_w = w - slot * wpb
            if st == ST.W_BARRIER:
                lines.append(f"warp {wib_w} waits at pc {int(warps.pc[w]) - 1} with mask "
                             f"{mask_bits(int(warps.bar_mask[w]), ws)} of {mask_bits(int(warps.full[w]), ws)}")
            elif st == ST.W_DONE:
                lines.append(f"warp {wib_w} finished")
        b = int(slot_block[slot])
        return (f"runtime error: barrier deadlock in kernel {program.name}, block {_xyz(b, grid)}: "
                f"the barrier at pc {pc} `{program.texts[pc] if 0 <= pc < len(program) else ''}` can never "
                f"complete (threads exited or diverged away): " + "; ".join(lines))
    return f"runtime error: fault {code}; {where}"


def mask_bits(mask: int, width: int) -> str:
    """Lane 0 first, as in the branching article's mask pictures."""
    return "".join("1" if (mask >> i) & 1 else "0" for i in range(width))

