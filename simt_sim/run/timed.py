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

from simt_sim.engine.cycle.caches import make_mem_timing
from simt_sim.engine.cycle.loop import run_timed
from simt_sim.errors import InputError, Interrupted, RuntimeFault
from simt_sim.frontend.assembler import Program, load_program
from simt_sim.frontend.sass_lower import load_kernel
from simt_sim.isa.encoding import UNIT_NAMES
from simt_sim.isa.table import NCU_PIPES
from simt_sim.machine import layout as L
from simt_sim.machine.config import GPUConfig, load_config
from simt_sim.frontend.dims import Dim3, check_dims
from simt_sim.machine.lower import MachineImage, lower
from simt_sim.machine.occupancy import active_smsps, issue_slot_use
from simt_sim.machine.state import TState, make_schedulers
from simt_sim.run.compile_notice import EngineCall, flavour
from simt_sim.run.memcheck import MemcheckReport
from simt_sim.run.session import Session, describe_fault, lane_efficiency
from simt_sim.run.slices import Slices, name_thread, wall_fault

SLICE_INSTS = L.SLICE_INSTS      # warp-instructions between progress calls (a module global: tests shorten it)



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


def more_launches(manifest, isa: str | None = None) -> list[KernelLaunch]:
    """The launches a manifest's more_launches adds after / beside its main one."""
    isa = isa or manifest.isa
    return [KernelLaunch(load_kernel(str(entry["kernel_file"]), entry.get("kernel"), isa), entry["grid"],
                         entry["block"], list(entry["args"]), stream=entry.get("stream", 0),
                         registers=entry.get("registers"), dynamic_shared=entry.get("dynamic_shared", 0))
            for entry in manifest.more_launches]


def manifest_launches(manifest, program: Program | None = None, isa: str | None = None) -> list[KernelLaunch]:
    """Every launch of a manifest, in order: the main one (of `program` when given, e.g. the
    mask-trace variant; else the manifest's kernel, as PTX or SASS: `isa`, else the manifest's),
    then its more_launches."""
    isa = isa or manifest.isa
    program = program or load_kernel(str(manifest.kernel_file), manifest.kernel, isa)
    return [manifest_launch(manifest, program), *more_launches(manifest, isa)]


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
    warp_spans: np.ndarray                 # int64[n, 2]: first issue, end by warp id (from the trace)
    interrupted: bool = False
    wall_seconds: float = 0.0
    summary: dict = field(default_factory=dict)
    module_globals: dict[str, np.ndarray] = field(default_factory=dict)   # name -> bytes after the run
    pc_stalls: list[np.ndarray] = field(default_factory=list)   # per launch: int64[its pcs, N_REASONS] warp-cycles
    # per launch: float64[its pcs, N_REASONS], the same cycles as Nsight Compute's PC sampler sees
    # them (each weighed 1 / the SM's warps then started and not exited: engine/cycle/stalls.sampled)
    pc_samples: list[np.ndarray] = field(default_factory=list)
    memcheck: MemcheckReport | None = None    # simt.memcheck "report": the bad accesses (run/memcheck.py)

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


def simulate(launches: list[KernelLaunch], buffers: dict[str, np.ndarray] | None, cfg: GPUConfig,
             record_history: bool = False, record_trace: bool = False, progress=None) -> SimResult:
    """Run the launches on cfg.  progress(cycle, warp_insts, seconds) is called between slices.
    Ctrl-C raises errors.Interrupted carrying the statistics so far (its result: interrupted, no
    kernel finished); a spent limit (limits.*, wall_seconds included) raises RuntimeFault."""
    if not launches:
        raise InputError("nothing to launch")
    programs_with_globals = {id(kl.program.globals) for kl in launches if kl.program.global_size}
    if len(programs_with_globals) > 1:
        raise InputError("concurrent or sequential launches of kernels with different module globals "
                         "are not supported")
    image = lower(launches, cfg, timed=True, record_trace=record_trace)
    s = Session(image, launches, buffers or {}, record_history, record_threads=False,
                memcheck=cfg.get("simt.memcheck", "fault"))
    per_cycle = image.n_sm * cfg.get("sm.sub_partitions") * cfg.get("scheduler.issue_width")
    # EVENT_CHUNK rows usable: the loop returns to drain when fewer than EVENTS_PER_STEP per
    # possible issue of a cycle are left
    s.ev = np.zeros((L.EVENT_CHUNK + L.EVENTS_PER_STEP * per_cycle, len(L.EVENT_FIELDS)), np.int64)
    ts = make_tstate(image, record_trace)
    mt = make_mem_timing(image.tc, image.n_sm)
    parts = {"trace": [], "tlog": []}
    trace_dropped = 0
    t0 = time.perf_counter()
    slices = Slices(cfg.get("limits.wall_seconds", 0.0))
    interrupted = False
    status = L.RUN_DONE
    engine = EngineCall(run_timed, flavour(image.code, "timed"))     # says so when numba compiles
    with np.errstate(all="ignore"):
        try:
            while True:
                status = engine(image.code, s.regs, s.warps, s.mem, s.run_state(), image.tc, image.tf,
                                image.tables, ts, mt)
                if s.drain(status, keep_events=False):
                    continue
                if status == L.RUN_TRACE_FULL:
                    # the issue trace (--picture, --trace) keeps its first limits.history_rows rows
                    room = image.history_rows - sum(len(p) for p in parts["trace"])
                    n_trace = int(ts.now[L.N_TRACE])
                    if room > 0:
                        parts["trace"].append(ts.trace[:min(n_trace, room)].copy())
                        parts["tlog"].append(ts.tlog[:ts.now[L.N_TLOG]].copy())
                    trace_dropped += n_trace - max(min(n_trace, room), 0)
                    ts.now[L.N_TRACE] = 0
                    ts.now[L.N_TLOG] = 0
                elif status == L.RUN_SLICE:
                    ts.now[L.N_SLICE] = SLICE_INSTS
                    if progress:
                        progress(int(ts.now[L.N_NOW]), int(s.counters[L.C_WARP_INSTS]), time.perf_counter() - t0)
                    if slices.spent():
                        wall_fault(s.fault, s.warps, slices.limit)
                        status = L.RUN_FAULT
                        break
                else:
                    break
        except KeyboardInterrupt:
            interrupted = True
    wall = time.perf_counter() - t0
    if status == L.RUN_FAULT and not interrupted:
        raise RuntimeFault(fault_message(s, image, launches))
    room = max(image.history_rows - sum(len(p) for p in parts["trace"]), 0)
    trace_dropped += max(int(ts.now[L.N_TRACE]) - room, 0)
    trace = np.concatenate(parts["trace"] + [ts.trace[:min(int(ts.now[L.N_TRACE]), room)]])
    tlog = np.concatenate(parts["tlog"] + [ts.tlog[:ts.now[L.N_TLOG]]])
    kinfo = ts.kinfo
    cycles = int(max(kinfo[:, L.KF_END_CYCLE].max(), ts.now[L.N_NOW] if interrupted else 0))
    spans = [slice(base, base + len(kl.program)) for base, kl in zip(image.pc_bases, launches)]
    pc_stalls = [ts.pc_stalls[s].copy() for s in spans]
    pc_samples = [samples_by_reason(ts.pc_samples[s], ts.pc_stalls[s]) for s in spans]
    metrics = [kernel_metrics(cfg, launches[k], k, image, ts, pc_stalls[k], interrupted) for k in range(len(launches))]
    issued_cycles = int(ts.now[L.N_ISSUE_CYCLES])
    summary = {"cycles": cycles, "slot_warps": image.wpb, "scheduler_cycles_with_issue": issued_cycles,
               "W0": cycles * image.n_sm * cfg.get("sm.sub_partitions") - issued_cycles,
               "simulated_sms": image.n_sm,
               "warp_instructions": int(s.counters[L.C_WARP_INSTS])}
    result = SimResult(cfg, launches, s.outputs(), metrics, cycles, s.history(), trace, tlog,
                       warp_spans(trace, image.n_gids), interrupted, wall, summary, s.module_globals(), pc_stalls,
                       pc_samples, s.memcheck_report())
    result.history_dropped = s.dropped["hist"]    # rows past limits.history_rows (run/budget.py)
    result.trace_dropped = trace_dropped
    if interrupted:
        raise Interrupted(result)
    return result


def simulate_manifest(manifest, record_trace: bool = False, isa: str | None = None,
                      cfg: GPUConfig | None = None) -> SimResult:
    """Every launch of a manifest on its own config (or `cfg`) and fresh buffers, as the manifest
    says (its PTX, or with isa="sass" the SASS ptxas makes of it)."""
    buffers = {spec.name: spec.make() for spec in manifest.buffers}
    return simulate(manifest_launches(manifest, isa=isa), buffers,
                    cfg or load_config(manifest.config, manifest.overrides), record_trace=record_trace)


def fault_message(s: Session, image: MachineImage, launches: list[KernelLaunch]) -> str:
    """The fault in terms of the launch it happened in (its own warp ids and pcs)."""
    fault = s.fault.copy()
    name_thread(fault, s.warps)
    k = _kernel_of_gid(image.kinfo, int(fault[1]))
    fault[1] -= image.kinfo[k, L.KF_GID_BASE]
    if 0 <= fault[3]:
        fault[3] -= image.pc_bases[k]
    kl = launches[k]
    return (describe_fault(kl.program, fault, s.warps, s.slot_block, kl.grid, kl.block, image.warp_size, image.wpb)
            + (f" (launch {k})" if len(launches) > 1 else ""))


def samples_by_reason(samples: np.ndarray, stalls: np.ndarray) -> np.ndarray:
    """A pc's expected samples shared out over its stall reasons as its warp-cycles are (the
    engine keeps one figure per pc: the weight is the same for all of one wait's reasons)."""
    totals = stalls.sum(axis=1, keepdims=True)
    return samples[:, None] * stalls / np.maximum(totals, 1)


def kernel_metrics(cfg: GPUConfig, launch: KernelLaunch, k: int, image: MachineImage, ts: TState,
                   pc_stalls: np.ndarray, interrupted: bool) -> dict:
    """Per-kernel metrics from the timing state's counters (see docs/timing.md); pc_stalls: the
    launch's warp-cycles per pc and stall reason."""
    ws = cfg.get("warp_size")
    kinfo = ts.kinfo
    first = int(kinfo[k, L.KF_FIRST_CYCLE])
    end = int(kinfo[k, L.KF_END_CYCLE])
    if end <= 0:                       # interrupted before it finished
        end = int(ts.now[L.N_NOW])
    cycles = max(end - first, 1)
    st = ts.kstats[k]
    warp_insts = int(st[L.STAT_WARP_INSTS])
    thread_insts = int(st[L.STAT_THREAD_INSTS])
    active = int(st[L.STAT_ACTIVE_LANES])
    n_sm = image.n_sm
    n_sp = cfg.get("sm.sub_partitions")
    width = cfg.get("scheduler.issue_width")
    pipes = image.tables.unit_pipes
    occ = image.occupancy[k]
    smsps = active_smsps(cfg, launch.grid.count, launch.block.count, occ.blocks_per_sm)
    busy = {name: float(st[L.KS_BUSY + u]) / (cycles * n_sm * n_sp * int(pipes[u]))
            for u, name in enumerate(UNIT_NAMES)}
    stalls = pc_stalls.sum(axis=0)
    stall_cycles = {name: int(stalls[i]) for i, name in enumerate(L.STALL_NAMES)}
    hist = {f"W{i}": int(st[L.KS_WHIST + i]) for i in range(1, ws + 1)}
    return {
        "kernel": launch.program.name,
        "launch": k,
        "stream": launch.stream,
        "grid": str(launch.grid), "block": str(launch.block),
        "first_cycle": first, "end_cycle": end, "cycles": cycles,
        "warp_instructions": warp_insts,
        "thread_instructions": thread_insts,
        "ipc": warp_insts / cycles,
        "ipc_per_sm": warp_insts / cycles / n_sm,
        "cfe": lane_efficiency(thread_insts, warp_insts, ws),
        "simd_efficiency": lane_efficiency(active, warp_insts, ws),
        "active_smsps": smsps,
        "issue_slot_use": issue_slot_use(warp_insts, cycles, smsps, width),
        "unit_busy": busy,
        "unit_instructions": {name: int(st[L.KS_UNIT_INSTS + u]) for u, name in enumerate(UNIT_NAMES)},
        "pipe_instructions": {name: int(st[L.KS_PIPE_INSTS + p]) for p, name in enumerate(NCU_PIPES)},
        "global_sectors": {name: int(st[L.KS_SECTORS + f]) for f, name in enumerate(L.SECTOR_FIELDS)},
        "stall_cycles": stall_cycles,
        "stall_per_issue": {n: c / warp_insts if warp_insts else 0.0 for n, c in stall_cycles.items()},
        "warp_histogram": hist,
        "occupancy": image.occupancy[k].as_dict(),
        "simulated_sms": n_sm,
        "finished": not interrupted and int(kinfo[k, L.KF_STATE]) == L.KSTATE_DONE,
    }


def _kernel_of_gid(kinfo, gid: int) -> int:
    k = 0
    for j in range(len(kinfo)):
        if kinfo[j, L.KF_GID_BASE] <= gid:
            k = j
    return k


def warp_spans(trace: np.ndarray, n_gids: int) -> np.ndarray:
    """(first issue, end) of every warp that issued in the trace, by global warp id (-1: none);
    sized by the warps the trace holds, not the grid."""
    if len(trace):
        n_gids = min(n_gids, int(trace[:, L.TR_GID].max()) + 1)
    spans = np.full((max(n_gids if len(trace) else 1, 1), 2), -1, np.int64)
    if len(trace):
        g = trace[:, L.TR_GID]
        c = trace[:, L.TR_CYCLE]
        first = np.full(len(spans), np.iinfo(np.int64).max)
        np.minimum.at(first, g, c)
        last = np.full(len(spans), -1)
        np.maximum.at(last, g, c + 1)
        seen = last >= 0
        spans[seen, 0] = first[seen]
        spans[seen, 1] = last[seen]
    return spans


def make_tstate(image: MachineImage, record_trace: bool) -> TState:
    n_warps, n_sm = image.n_warps, image.n_sm
    n_sp = int(image.tc[L.TC["n_sp"]])
    wpsm = image.slots_per_sm * image.wpb
    max_pipes = int(image.tables.unit_pipes.max())
    n_regs = max(image.numbering.count, 1)

    def i64(*shape):
        return np.zeros(shape, np.int64)

    sched = make_schedulers(n_sm, n_sp)
    sm_use = i64(n_sm, len(L.SM_USE_FIELDS))
    sm_use[:, L.U_WAKE] = L.INF
    now = i64(len(L.NOW_FIELDS))
    now[L.N_SLICE] = SLICE_INSTS
    return TState(
        reg_ready=i64(n_warps, n_regs), reg_kind=i64(n_warps, n_regs),
        unit_free=i64(n_sm, n_sp, len(UNIT_NAMES), max_pipes), sched=sched, order=i64(n_sm, n_sp, max(wpsm, 1)),
        slot_kernel=i64(image.n_slots), sm_use=sm_use, kinfo=image.kinfo.copy(),
        kstats=i64(len(image.kinfo), L.KSTAT_COLUMNS),
        trace=i64(L.TRACE_CHUNK if record_trace else 1, len(L.TRACE_FIELDS)),
        tlog=i64(L.STALL_LOG_CHUNK if record_trace else 1, L.N_STALL_LOG), now=now,
        scratch=i64(L.SCRATCH_SIZE), candidates=i64(2 * max(wpsm, 1) + 2), **instruction_caches(image),
        pc_stalls=i64(len(image.code.rows), L.N_REASONS), pc_samples=np.zeros(len(image.code.rows)),
        mem_queue=i64(n_sm, n_sp, 1 + max(int(image.tc[L.TC["memory_queue"]]), 1)),
        const_cache=constant_caches(image, n_sp))


def constant_caches(image: MachineImage, n_sp: int) -> np.ndarray:
    """The immediate-constant caches of each sub-partition and the LDC cache of each SM (one
    line slot each when neither is modelled), all empty; then a row holding the GPU's constant
    line requests in flight (constants.request_start), all free."""
    tc = image.tc
    on = bool(tc[L.TC["imc_miss"]] or tc[L.TC["ldc_miss"]])
    slots = max(int(tc[L.TC["const_lines"]]), int(tc[L.TC["const_gpu_misses"]])) if on else 1
    return np.zeros((image.n_sm + 1, n_sp + 1, slots, len(L.CC_FIELDS)), np.int64)


def instruction_caches(image: MachineImage) -> dict[str, np.ndarray]:
    """The SASS fetch model's L0 and L1 instruction caches (one way each when it is off); the L1
    starts holding the launch's code, first lines first, as far as each set has ways."""
    tc = image.tc
    on = bool(tc[L.TC["fetch"]])

    def shape(level):                     # (sets, ways) of level "l0i" / "l1i"
        return (int(tc[L.TC[f"{level}_sets"]]), int(tc[L.TC[f"{level}_ways"]])) if on else (1, 1)
    sets, ways = shape("l1i")
    l0 = np.zeros((image.n_sm, int(tc[L.TC["n_sp"]]), *shape("l0i"), len(L.FETCH_FIELDS)), np.int64)
    l1 = np.zeros((image.n_sm, sets, ways, len(L.FETCH_FIELDS)), np.int64)
    if on:
        n_lines = -(-len(image.code.rows) // int(tc[L.TC["fetch_line_insts"]]))
        lines = np.arange(min(n_lines, sets * ways))
        l1[:, lines % sets, lines // sets, L.FT_TAG] = lines + 1
    return {"l0i": l0, "l1i": l1}
