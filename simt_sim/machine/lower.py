"""Lowering: kernel launches + GPU config + ISA table -> the engine's arrays, once, for both modes.

Kernels are linked into one code array (pcs, constants, vectors and parameter offsets relocated).
The result, a `MachineImage`, says how many resident-block slots and warps the engine needs
(state is sized by what can be resident, never by the grid), the per-kernel geometry rows, and
for a timed run the machine scalars, per-kernel fields and per-pc timing tables.

A functional run has no SMs to fill: it keeps up to `sm.max_resident_blocks` blocks resident and
issues in rounds; a timed run places blocks on SMs under the occupancy limits.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simt_sim.errors import InputError
from simt_sim.isa import encoding as E
from simt_sim.machine.config import DEFAULTS, GPUConfig
from simt_sim.machine.layout import GEOM_FIELDS, ISA_PTX, ISA_SASS, KF, KF_FIELDS, KSTATE_WAITING, POLICY_NAMES, G
from simt_sim.machine.occupancy import Occupancy, occupancy
from simt_sim.machine.state import Code, code_markers
from simt_sim.machine.tables import RegisterNumbering, machine_scalars, pc_tables


@dataclass
class MachineImage:
    code: Code
    pc_bases: list[int]
    param_bases: list[int]
    param_size: int
    numbering: RegisterNumbering
    warp_size: int
    stack_depth: int               # SIMT stack entries: simt.stack_depth, + 2 per call nesting level
    wpb: int                       # warp slots per block slot (the largest block of the launches)
    n_sm: int                      # SMs that can ever hold a block
    slots_per_sm: int
    shared_stride: int             # shared bytes per block slot
    local_stride: int              # local bytes per thread
    kgeom: np.ndarray              # int64[K, GEOM_FIELDS]
    n_gids: int                    # global warp ids of all launches (blocks x wpb)
    occupancy: list[Occupancy] = field(default_factory=list)
    kinfo: np.ndarray | None = None    # timed: int64[K, KF_FIELDS]
    tc: np.ndarray | None = None
    tf: np.ndarray | None = None
    tables: object = None
    host_memory_bytes: int = 0     # limits.host_memory_mib: the run's host-memory budget (run/budget.py)
    history_rows: int = 0          # limits.history_rows: mask-history / event rows kept at most
    timing_bytes: int = 0          # timed: the timing model's cache and port state (estimate)

    @property
    def n_slots(self) -> int:
        return self.n_sm * self.slots_per_sm

    @property
    def n_warps(self) -> int:
        return self.n_slots * self.wpb


def _relocate(program, pc_base: int, const_base: int, vec_base: int, param_base: int, call_base: int) -> np.ndarray:
    code = program.code.copy()
    for f in (E.F_TARGET, E.F_TARGET2, E.F_RECONV):
        sel = code[:, f] >= 0
        code[sel, f] += pc_base
    for k in range(E.MAX_OPERANDS):
        b = E.F_OPS + k * E.OPERAND_FIELDS
        used = k < code[:, E.F_NOPS]
        code[used & (code[:, b] == E.K_IMM), b + 1] += const_base
        code[used & (code[:, b] == E.K_VEC), b + 1] += vec_base
        code[used & (code[:, b] == E.K_CALL), b + 1] += call_base
        param = used & (code[:, b] == E.K_ADDR) & (code[:, E.F_SPACE] == E.SP_PARAM)
        code[param, b + 2] += param_base
        bank0_params = used & (code[:, b] == E.K_CONST) & (code[:, b + 1] == 0) & (code[:, b + 2] >= E.PARAM_BANK_OFFSET)
        code[bank0_params, b + 2] += param_base
    return code


def link(programs: list) -> tuple[Code, list[int], list[int], int, RegisterNumbering]:
    """One code array for all programs -> (code, pc bases, parameter bases, parameter bytes, numbering)."""
    codes, cu64, cf32, cf64, vecs, pc_bases, param_bases, calls = [], [], [], [], [], [], [], []
    pc = const = vec = params = ncalls = 0
    for p in programs:
        param_base = (params + 7) // 8 * 8
        param_bases.append(param_base)
        codes.append(_relocate(p, pc, const, vec, param_base, ncalls))
        calls.append(p.calls)
        ncalls += len(p.calls)
        pc_bases.append(pc)
        cu64.append(p.const_u64)
        cf32.append(p.const_f32)
        cf64.append(p.const_f64)
        vecs.append(p.vec_regs.reshape(-1, E.VEC_WIDTH) if p.vec_regs.size else np.zeros((0, E.VEC_WIDTH), np.int64))
        pc += len(p)
        const += len(p.const_u64)
        vec += len(vecs[-1])
        params = param_base + max(p.param_size, 8)
    allv = np.concatenate(vecs) if vec else np.full((1, E.VEC_WIDTH), -2, np.int64)
    rows = np.concatenate(codes)
    code = Code(rows, np.concatenate(cu64) if const else np.zeros(1, np.uint64),
                np.concatenate(cf32) if const else np.zeros(1, np.float32),
                np.concatenate(cf64) if const else np.zeros(1, np.float64), allv,
                np.concatenate(calls) if ncalls else np.zeros((1, len(E.CALL_FIELDS)), np.int64),
                *code_markers({p.isa for p in programs}, rows))
    numbering = RegisterNumbering(max(p.n_r32 for p in programs), max(p.n_r64 for p in programs),
                                  max(p.n_pred for p in programs))
    return code, pc_bases, param_bases, params, numbering


def call_levels(program, cfg: GPUConfig) -> int:
    """How deep calls can nest in a program: its static call depth, or simt.call_depth when calls
    may recurse (0 without calls)."""
    limit = cfg.get("simt.call_depth")
    return limit if program.call_levels < 0 else min(program.call_levels, limit)


def call_stack_bytes(program, cfg: GPUConfig) -> int:
    """Local bytes per thread of the call stack (frames saved by recursive calls), after the
    program's own local memory."""
    return cfg.get("simt.call_depth") * program.frame_bytes


def geometry(launches, cfg: GPUConfig, wpb: int, n_sm: int, slots_per_sm: int, shared_stride: int,
             local_stride: int) -> np.ndarray:
    kgeom = np.zeros((len(launches), len(GEOM_FIELDS)), np.int64)
    for k, kl in enumerate(launches):
        g = {"gx": kl.grid.x, "gy": kl.grid.y, "gz": kl.grid.z, "bx": kl.block.x, "by": kl.block.y,
             "bz": kl.block.z, "warp_size": cfg.get("warp_size"), "wpb": wpb, "tpb": kl.block.count,
             "slots": n_sm * slots_per_sm, "blocks": kl.grid.count, "shared_bytes": shared_stride,
             "local_bytes": local_stride, "policy": POLICY_NAMES.index(cfg.get("simt.divergence_policy")),
             "max_warp_insts": cfg.get("limits.max_warp_instructions"), "n_sm": cfg.get("num_sms"),
             "slots_per_sm": slots_per_sm, "call_base": kl.program.local_size,
             "frame_bytes": kl.program.frame_bytes, "call_depth": cfg.get("simt.call_depth"),
             "isa": ISA_SASS if kl.program.isa == "sass" else ISA_PTX}
        for name, value in g.items():
            kgeom[k, G[name]] = value
    return kgeom


def lower(launches: list, cfg: GPUConfig, timed: bool, record_trace: bool = False) -> MachineImage:
    """launches: objects with program, grid, block (Dim3), stream, registers, dynamic_shared."""
    ws = cfg.get("warp_size")
    sass = [kl.program.name for kl in launches if kl.program.isa == "sass"]
    if sass and ws != 32:
        raise InputError(f"kernel {sass[0]} runs as sm_90 SASS, which needs 32-lane warps; config {cfg.name} "
                         f"has warp_size {ws} (run the PTX instead: --isa ptx)")
    if sass:
        cfg = cfg.for_sass()
    wpb = max(-(-kl.block.count // ws) for kl in launches)
    total_blocks = sum(kl.grid.count for kl in launches)
    check_shared_per_block(launches, cfg)
    shared_stride = max(kl.program.shared_size + kl.dynamic_shared for kl in launches)
    local_stride = max(kl.program.local_size + call_stack_bytes(kl.program, cfg) for kl in launches)
    programs = [kl.program for kl in launches]
    code, pc_bases, param_bases, param_size, numbering = link(programs)
    occ: list[Occupancy] = []
    if timed:
        occ = [occupancy(cfg, kl.program.name, kl.block.count,
                         kl.registers if kl.registers is not None else kl.program.declared_regs,
                         kl.program.shared_size + kl.dynamic_shared) for kl in launches]
        slots_per_sm = max(o.blocks_per_sm for o in occ)
        n_sm = max(1, min(cfg.get("num_sms"), total_blocks))
    else:
        slots_per_sm = max(1, min(total_blocks, cfg.get("sm.max_resident_blocks")))
        n_sm = 1
    stack_depth = cfg.get("simt.stack_depth") + 2 * max(call_levels(kl.program, cfg) for kl in launches)
    image = MachineImage(code, pc_bases, param_bases, param_size, numbering, ws, stack_depth,
                         wpb, n_sm, slots_per_sm, shared_stride, local_stride,
                         geometry(launches, cfg, wpb, n_sm, slots_per_sm, shared_stride, local_stride),
                         total_blocks * wpb, occ)
    image.host_memory_bytes = cfg.get("limits.host_memory_mib", DEFAULTS["limits"]["host_memory_mib"]) * 2**20
    image.history_rows = cfg.get("limits.history_rows", DEFAULTS["limits"]["history_rows"])
    if timed:
        image.timing_bytes = timing_state_bytes(cfg, n_sm)
        image.kinfo = kernel_fields(launches, cfg, occ, pc_bases, wpb)
        image.tc, image.tf = machine_scalars(cfg, n_sm, slots_per_sm, slots_per_sm * wpb, record_trace, bool(sass))
        image.tables = pc_tables(cfg, code.rows, code.vecs, numbering, programs)
    return image


def check_shared_per_block(launches, cfg: GPUConfig) -> None:
    """A block's shared memory (static + dynamic) must fit on one SM of the config, in both modes,
    before any is allocated: the functional run keeps it for every resident block as the timed one
    does (issue 62: a 4 GiB .shared array ran functionally)."""
    limit = cfg.get("sm.shared_memory", DEFAULTS["sm"]["shared_memory"])
    for kl in launches:
        need = kl.program.shared_size + kl.dynamic_shared
        if need > limit:
            raise InputError(f"kernel {kl.program.name}: a block needs {need:,} bytes of shared memory "
                             f"({kl.program.shared_size:,} static + {kl.dynamic_shared:,} dynamic), more than one "
                             f"SM holds (sm.shared_memory = {limit:,})")


def timing_state_bytes(cfg: GPUConfig, n_sm: int) -> int:
    """Host bytes of the timing model's caches (four int64 per line of every SM's L1 and of L2)."""
    def lines(level: str) -> int:
        return int(cfg.get(f"memory.{level}.size_kb") * 1024) // max(cfg.get("memory.line_bytes"), 1)
    return 32 * (n_sm * lines("l1") + lines("l2"))


def kernel_fields(launches, cfg: GPUConfig, occ: list[Occupancy], pc_bases: list[int], wpb: int) -> np.ndarray:
    ws = cfg.get("warp_size")
    kinfo = np.zeros((len(launches), len(KF_FIELDS)), np.int64)
    gid_base = 0
    streams = len({kl.stream for kl in launches})
    ready_at = cfg.get("sm.kernel_launch_latency") + (streams - 1) * cfg.get("host.stream_start_delay")
    for k, kl in enumerate(launches):
        kw = -(-kl.block.count // ws)
        info = {"pc_base": pc_bases[k], "gid_base": gid_base, "stream": kl.stream, "blocks": kl.grid.count,
                "regs_per_warp": occ[k].registers_per_warp, "shared_per_block": occ[k].shared_per_block,
                "threads_per_block": kw * ws, "warps_per_block": kw, "state": KSTATE_WAITING,
                "ready_at": ready_at}
        for name, value in info.items():
            kinfo[k, KF[name]] = value
        gid_base += kl.grid.count * wpb
    return kinfo
