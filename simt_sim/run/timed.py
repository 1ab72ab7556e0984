"""Cycle-level simulation of one or more kernel launches on a GPU config.

Kernels are linked into one code array (pcs, constants, vectors and parameter offsets relocated),
share global memory, and are placed on the SMs by the block scheduler: kernels of one stream run
one after the other, kernels of different streams run concurrently (the later one's blocks fill
what the earlier leaves).  The numba loop is simt_sim/engine/cycle/loop.py; this module builds
its arrays, runs it in slices (for progress lines and Ctrl-C) and turns counters into metrics.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from simt_sim.machine.config import UNIT_NAMES, GPUConfig
from simt_sim.isa import encoding as E
from simt_sim.machine import state as ST
from simt_sim.engine.functional.simt_stack import POLICY_NAMES
from simt_sim.machine import layout as L
from simt_sim.engine.cycle.loop import N_ISSUE_CYCLES, N_NOW, N_SLICE, N_TLOG, N_TRACE, TState, run_timed
from simt_sim.engine.cycle.caches import make_mem_timing
from simt_sim.errors import InputError, RuntimeFault
from simt_sim.frontend.assembler import Program
from simt_sim.machine.dims import check_dims
from simt_sim.run.functional import Dim3, describe_fault, layout_global, pack_params, read_buffers, read_module_globals
from simt_sim.machine.occupancy import occupancy
from simt_sim.machine.tables import RegisterNumbering, machine_scalars, pc_tables

SLICE_INSTS = 200_000


@dataclass
class KernelLaunch:
    program: Program
    grid: Dim3
    block: Dim3
    args: list
    stream: int = 0
    registers: int | None = None       # per thread; default: the PTX .reg declarations
    dynamic_shared: int = 0

    def __post_init__(self):
        self.grid, self.block = check_dims(self.grid, "grid"), check_dims(self.block, "block")


def manifest_launch(manifest, program: Program) -> KernelLaunch:
    """A manifest's main launch of `program` (its kernel.ptx, or the mask-trace variant)."""
    m = manifest
    return KernelLaunch(program, m.grid, m.block, list(m.args), stream=m.stream, registers=m.registers,
                        dynamic_shared=m.dynamic_shared)


@dataclass
class SimResult:
    config: GPUConfig
    launches: list[KernelLaunch]
    buffers: dict[str, np.ndarray]
    kernels: list[dict]                    # metrics per kernel launch
    cycles: int                            # until the last kernel finished
    history: np.ndarray                    # int64[n, 4] gid, pc, mask, exec mask (global warp ids)
    trace: np.ndarray                      # int64[n, len(TRACE_FIELDS)], when recorded
    stall_log: np.ndarray                  # int64[n, 4] gid, start, end, reason, when recorded
    warp_spans: np.ndarray                 # int64[n_warps_total, 2]: first issue, end (from the trace)
    interrupted: bool = False
    wall_seconds: float = 0.0
    summary: dict = field(default_factory=dict)
    module_globals: dict[str, np.ndarray] = field(default_factory=dict)   # name -> bytes after the run

    def view(self, k: int = 0) -> "LaunchView":
        """Launch k seen like a functional RunResult (its own warp ids), for histories and checks."""
        return LaunchView(self, k)


class LaunchView:
    def __init__(self, result: SimResult, k: int):
        kl = result.launches[k]
        self.program, self.grid, self.block = kl.program, kl.grid, kl.block
        self.config = result.config.launch_config()
        self.buffers = result.buffers
        self.warps_per_block = -(-kl.block.count // self.config.warp_size)
        base = sum(result.launches[j].grid.count for j in range(k)) * result.summary["slot_warps"]
        n = kl.grid.count * result.summary["slot_warps"]
        h = result.history
        sel = (h[:, 0] >= base) & (h[:, 0] < base + n)
        self.history = h[sel].copy()
        self.history[:, 0] -= base
        if self.warps_per_block != result.summary["slot_warps"]:      # renumber to this launch's blocks
            blk, wib = np.divmod(self.history[:, 0], result.summary["slot_warps"])
            self.history[:, 0] = blk * self.warps_per_block + wib

    def warp_history(self, gid: int) -> np.ndarray:
        return self.history[self.history[:, 0] == gid]


def _relocate(program: Program, pc_base: int, const_base: int, vec_base: int, param_base: int) -> np.ndarray:
    code = program.code.copy()
    for f in (E.F_TARGET, E.F_TARGET2, E.F_RECONV):
        sel = code[:, f] >= 0
        code[sel, f] += pc_base
    for k in range(E.MAX_OPERANDS):
        b = E.F_OPS + k * E.OPERAND_FIELDS
        used = np.arange(E.MAX_OPERANDS)[k] < code[:, E.F_NOPS]
        code[used & (code[:, b] == E.K_IMM), b + 1] += const_base
        code[used & (code[:, b] == E.K_VEC), b + 1] += vec_base
        param = used & (code[:, b] == E.K_ADDR) & (code[:, E.F_SPACE] == E.SP_PARAM)
        code[param, b + 2] += param_base
    return code


def link(launches: list[KernelLaunch]):
    """One code array for all launches -> (Code arrays, pc bases, param blob, numbering)."""
    codes, cu64, cf32, cf64, vecs, pc_bases, params = [], [], [], [], [], [], b""
    pc = const = vec = 0
    param_bases = []
    for kl in launches:
        p = kl.program
        param_base = (len(params) + 7) // 8 * 8
        params = params + bytes(param_base - len(params))
        param_bases.append(param_base)
        codes.append(_relocate(p, pc, const, vec, param_base))
        pc_bases.append(pc)
        cu64.append(p.const_u64)
        cf32.append(p.const_f32)
        cf64.append(p.const_f64)
        vecs.append(p.vec_regs.reshape(-1, 4) if p.vec_regs.size else np.zeros((0, 4), np.int64))
        pc += len(p)
        const += len(p.const_u64)
        vec += len(vecs[-1])
        params = params + bytes(max(p.param_size, 8))
    allv = np.concatenate(vecs) if sum(len(v) for v in vecs) else np.full((1, 4), -2, np.int64)
    code = ST.Code(np.concatenate(codes), np.concatenate(cu64) if const else np.zeros(1, np.uint64),
                   np.concatenate(cf32) if const else np.zeros(1, np.float32),
                   np.concatenate(cf64) if const else np.zeros(1, np.float64), allv)
    numbering = RegisterNumbering(max(kl.program.n_r32 for kl in launches),
                                  max(kl.program.n_r64 for kl in launches),
                                  max(kl.program.n_pred for kl in launches))
    return code, pc_bases, param_bases, params, numbering


def simulate(launches: list[KernelLaunch], buffers: dict[str, np.ndarray] | None, cfg: GPUConfig,
             record_history: bool = False, record_trace: bool = False, progress=None) -> SimResult:
    """Run the launches on cfg.  progress(cycle, warp_insts, seconds) is called between slices."""
    if not launches:
        raise InputError("nothing to launch")
    buffers = dict(buffers or {})
    ws = cfg.get("warp_size")
    programs_with_globals = {id(kl.program.globals) for kl in launches if kl.program.global_size}
    if len(programs_with_globals) > 1:
        raise InputError("concurrent or sequential launches of kernels with different module globals "
                         "are not supported")
    occ = [occupancy(cfg, kl.program.name, kl.block.count,
                     kl.registers if kl.registers is not None else kl.program.declared_regs,
                     kl.program.shared_size + kl.dynamic_shared) for kl in launches]
    wpb = max(-(-kl.block.count // ws) for kl in launches)
    slots_per_sm = max(o.blocks_per_sm for o in occ)
    total_blocks = sum(kl.grid.count for kl in launches)
    n_sm = max(1, min(cfg.get("num_sms"), total_blocks))     # SMs that can ever hold a block
    warps_per_sm = slots_per_sm * wpb
    n_slots = n_sm * slots_per_sm
    n_warps = n_slots * wpb
    code, pc_bases, param_bases, param_blob, numbering = link(launches)
    shared_stride = max(kl.program.shared_size + kl.dynamic_shared for kl in launches)
    local_stride = max(kl.program.local_size for kl in launches)
    kgeom = np.zeros((len(launches), len(ST.GEOM_FIELDS)), np.int64)
    kinfo = np.zeros((len(launches), len(L.KF_FIELDS)), np.int64)
    gid_base = 0
    for k, kl in enumerate(launches):
        g = {"gx": kl.grid.x, "gy": kl.grid.y, "gz": kl.grid.z, "bx": kl.block.x, "by": kl.block.y,
             "bz": kl.block.z, "warp_size": ws, "wpb": wpb, "tpb": kl.block.count, "slots": n_slots,
             "blocks": kl.grid.count, "shared_bytes": shared_stride, "local_bytes": local_stride,
             "policy": POLICY_NAMES.index(cfg.get("simt.divergence_policy")),
             "max_warp_insts": cfg.get("limits.max_warp_instructions"), "n_sm": cfg.get("num_sms"),
             "slots_per_sm": slots_per_sm}
        for name, value in g.items():
            kgeom[k, ST.G[name]] = value
        kw = -(-kl.block.count // ws)
        info = {"pc_base": pc_bases[k], "gid_base": gid_base, "stream": kl.stream, "blocks": kl.grid.count,
                "regs_per_warp": occ[k].registers_per_warp, "shared_per_block": occ[k].shared_per_block,
                "threads_per_block": kw * ws, "warps_per_block": kw, "state": L.KSTATE_WAITING,
                "ready_at": cfg.get("sm.kernel_launch_latency")}
        for name, value in info.items():
            kinfo[k, L.KF[name]] = value
        gid_base += kl.grid.count * wpb

    # memory: one global layout shared by all launches; each launch's parameters at its base
    owner = next((kl.program for kl in launches if kl.program.global_size), launches[0].program)
    gmem, bases, ends, offs, buffer_addr = layout_global(owner, buffers)
    pmem = bytearray(param_blob)
    for k, kl in enumerate(launches):
        packed = pack_params(kl.program, kl.args, buffer_addr)
        n = min(len(packed), max(kl.program.param_size, 8))
        pmem[param_bases[k]:param_bases[k] + n] = packed[:n].tobytes()
    mem = ST.Memory(gmem, bases, ends, offs, np.zeros(max(n_slots * shared_stride, 1), np.uint8),
                    np.zeros(max(n_warps * ws * local_stride, 1), np.uint8),
                    np.frombuffer(bytes(pmem) or b"\0" * 8, np.uint8).copy())
    regs = ST.make_regs(n_warps * ws, numbering)
    warps = ST.make_warps(n_warps, cfg.get("simt.stack_depth"))
    warps.status[:] = ST.W_EMPTY
    slot_block = np.full(n_slots, -1, np.int64)
    counters = np.zeros(ST.N_COUNTERS, np.int64)
    thread_icount = np.zeros(max(gid_base * ws, 1), np.int64)
    max_sp = np.zeros(max(gid_base, 1), np.int64)
    hist = np.zeros((8192 if record_history else 0, 4), np.int64)
    ev = np.zeros((max(8192, 16 * n_sm * cfg.get("sm.sub_partitions") * cfg.get("scheduler.issue_width")), 5),
                  np.int64)
    fault = np.zeros(8, np.int64)
    tc, tf = machine_scalars(cfg, n_sm, slots_per_sm, warps_per_sm, record_trace)
    tab = pc_tables(cfg, code.rows, code.vecs, numbering)
    ts = make_tstate(n_warps, numbering.count, n_sm, tc, kinfo, tab, record_trace)
    mt = make_mem_timing(tc, n_sm)

    parts = {"hist": [], "trace": [], "tlog": []}
    t0 = time.perf_counter()
    interrupted = False
    status = ST.RUN_DONE
    with np.errstate(all="ignore"):
        try:
            while True:
                status = run_timed(code, regs, warps, mem, kgeom, slot_block, counters, thread_icount, max_sp,
                                   hist, ev, fault, tc, tf, tab, ts, mt)
                if status == ST.RUN_HISTORY_FULL:
                    parts["hist"].append(hist[:counters[ST.C_HIST]].copy())
                    counters[ST.C_HIST] = 0
                    if len(hist) < (1 << 20):
                        hist = np.zeros((len(hist) * 2, 4), np.int64)
                elif status == ST.RUN_EVENTS_FULL:
                    counters[ST.C_EVENTS] = 0          # divergence events are not kept in timing runs
                elif status == ST.RUN_TRACE_FULL:
                    parts["trace"].append(ts.trace[:ts.now[N_TRACE]].copy())
                    parts["tlog"].append(ts.tlog[:ts.now[N_TLOG]].copy())
                    ts.now[N_TRACE] = 0
                    ts.now[N_TLOG] = 0
                elif status == ST.RUN_SLICE:
                    ts.now[N_SLICE] = SLICE_INSTS
                    if progress:
                        progress(int(ts.now[N_NOW]), int(counters[ST.C_WARP_INSTS]), time.perf_counter() - t0)
                else:
                    break
        except KeyboardInterrupt:
            interrupted = True
    wall = time.perf_counter() - t0
    if status == ST.RUN_FAULT and not interrupted:
        k = _kernel_of_gid(kinfo, int(fault[1]))
        fault[1] -= kinfo[k, L.KF["gid_base"]]
        if 0 <= fault[3]:
            fault[3] -= pc_bases[k]
        kl = launches[k]
        raise RuntimeFault(describe_fault(kl.program, fault, warps, kgeom[k], slot_block, kl.grid, kl.block, ws,
                                          wpb) + (f" (launch {k})" if len(launches) > 1 else ""))
    hist_all = np.concatenate(parts["hist"] + [hist[:min(int(counters[ST.C_HIST]), len(hist))]])
    trace = np.concatenate(parts["trace"] + [ts.trace[:ts.now[N_TRACE]]])
    tlog = np.concatenate(parts["tlog"] + [ts.tlog[:ts.now[N_TLOG]]])
    out = read_buffers(buffers, buffer_addr, bases, offs, gmem)
    cycles = int(max(kinfo[:, L.KF["end_cycle"]].max(), ts.now[N_NOW] if interrupted else 0))
    from simt_sim.observe.metrics import kernel_metrics
    metrics = [kernel_metrics(cfg, launches[k], k, kinfo, ts, tab, occ[k], n_sm, interrupted)
               for k in range(len(launches))]
    issued_cycles = int(ts.now[N_ISSUE_CYCLES])
    summary = {"cycles": cycles, "slot_warps": wpb, "scheduler_cycles_with_issue": issued_cycles,
               "W0": cycles * n_sm * cfg.get("sm.sub_partitions") - issued_cycles,
               "simulated_sms": n_sm,
               "warp_instructions": int(counters[ST.C_WARP_INSTS])}
    spans = warp_spans(trace, gid_base)
    return SimResult(cfg, launches, out, metrics, cycles, hist_all, trace, tlog, spans, interrupted, wall, summary,
                     read_module_globals(owner, gmem, offs))


def _kernel_of_gid(kinfo, gid: int) -> int:
    k = 0
    for j in range(len(kinfo)):
        if kinfo[j, L.KF["gid_base"]] <= gid:
            k = j
    return k


def warp_spans(trace: np.ndarray, n_gids: int) -> np.ndarray:
    spans = np.full((max(n_gids, 1), 2), -1, np.int64)
    if len(trace):
        g = trace[:, L.TR["gid"]]
        c = trace[:, L.TR["cycle"]]
        first = np.full(len(spans), np.iinfo(np.int64).max)
        np.minimum.at(first, g, c)
        last = np.full(len(spans), -1)
        np.maximum.at(last, g, c + 1)
        seen = last >= 0
        spans[seen, 0] = first[seen]
        spans[seen, 1] = last[seen]
    return spans


def make_tstate(n_warps: int, n_regs: int, n_sm: int, tc, kinfo, tab, record_trace: bool):
    n_kernels = len(kinfo)
    n_sp = int(tc[L.TC["n_sp"]])
    wpsm = int(tc[L.TC["warps_per_sm"]])
    max_pipes = int(tab.unit_pipes.max())

    def i64(*shape, fill=0):
        return np.full(shape, fill, np.int64)

    now = i64(8)
    now[N_SLICE] = SLICE_INSTS
    return TState(
        reg_ready=i64(n_warps, max(n_regs, 1)), reg_kind=np.zeros((n_warps, max(n_regs, 1)), np.int64),
        w_drain=i64(n_warps),
        w_resume=i64(n_warps), w_rkind=i64(n_warps), w_age=i64(n_warps), w_acct=i64(n_warps),
        w_notsel=i64(n_warps), w_next=i64(n_warps), w_next_kind=i64(n_warps), w_last_cycle=i64(n_warps, fill=-1),
        w_last_count=i64(n_warps), w_pool=i64(n_warps), w_pool_stamp=i64(n_warps),
        occupied=i64(n_warps), unit_free=i64(n_sm, n_sp, len(UNIT_NAMES), max_pipes),
        sched_last=i64(n_sm, n_sp, fill=-1), sched_wake=i64(n_sm, n_sp, fill=L.INF),
        order=i64(n_sm, n_sp, max(wpsm, 1)), n_order=i64(n_sm, n_sp), slot_kernel=i64(n_sm * int(tc[L.TC["slots_per_sm"]])),
        sm_use=i64(n_sm, 5), kinfo=kinfo, stats=i64(n_kernels, len(L.STAT_FIELDS)),
        stall=i64(n_kernels, L.N_REASONS), whist=i64(n_kernels, 65), unit_busy=i64(n_kernels, len(UNIT_NAMES)),
        unit_insts=i64(n_kernels, len(UNIT_NAMES)),
        trace=i64(1 << 16 if record_trace else 1, len(L.TRACE_FIELDS)),
        tlog=i64(1 << 17 if record_trace else 1, L.N_STALL_LOG), now=now, scratch=i64(512), addrs=i64(128),
        candidates=i64(2 * max(wpsm, 1) + 2))
