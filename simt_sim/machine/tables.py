"""From a GPU config and the linked kernels to the timing model's integer tables.

Everything timing-related that the numba loop reads is derived here from the config (units,
latencies, memory levels, occupancy limits) and from the ISA table (each opcode's unit and timing
class).
"""
from __future__ import annotations

import math

import numpy as np

from simt_sim.machine.config import UNIT_NAMES, GPUConfig
from simt_sim.isa import encoding as E
from simt_sim.machine.state import Tables
from simt_sim.machine.layout import (CL_ALU, CL_CODE, CL_SFU, CONST_IMC, CONST_LAUNCH_SPAN, CONST_LDC, N_REUSE_SLOTS,
                                     N_WRITE_RING, SCHEDULER_NAMES, TC_FIELDS, TF_FIELDS, W_LOAD, W_LOAD_PASS_CYCLES,
                                     W_STORE, const_ref)
from simt_sim.errors import InputError
from simt_sim.isa import isa
from simt_sim.isa.sass_table import sass_table


def line_bits_mask(address_bits, line_bytes: int) -> int:
    """The bits of a line index that address bits `address_bits` are (those within a line dropped)."""
    below = line_bytes.bit_length() - 1
    return sum(1 << (b - below) for b in set(address_bits) if b >= below)


def lines_shift(block_bytes: int, line_bytes: int) -> int:
    """log2 of the lines in a block of memory (0 where the block is a line or less)."""
    return max(block_bytes // line_bytes, 1).bit_length() - 1


def unit_home(cfg: GPUConfig) -> list[int]:
    """Unit index whose pipes each unit class uses (`shared_with` redirects)."""
    home = []
    for name in UNIT_NAMES:
        target = cfg.get(f"units.{name}.shared_with", name)
        if cfg.get(f"units.{target}.shared_with"):
            raise InputError(f"{cfg.path}: units.{name}.shared_with names {target}, which is itself shared")
        home.append(UNIT_NAMES.index(target))
    return home


def unit_params(cfg: GPUConfig, name: str) -> tuple[int, int, int]:
    """(pipes, initiation interval, latency) of a unit class."""
    ws = cfg.get("warp_size")
    pipes = cfg.get(f"units.{name}.pipes")
    lanes = cfg.get(f"units.{name}.lanes")
    latency = cfg.get(f"units.{name}.latency")
    return pipes, max(1, math.ceil(ws / lanes)), latency


def machine_scalars(cfg: GPUConfig, n_sm: int, slots_per_sm: int, warps_per_sm: int,
                    record_trace: bool, sass: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """tc and tf; `sass`: the launch holds SASS kernels (the sass section's block interval applies)."""
    g = cfg.get
    line, sector = g("memory.line_bytes"), g("memory.sector_bytes")
    if line % sector:
        raise InputError(f"{cfg.path}: memory.line_bytes ({line}) must be a multiple of sector_bytes ({sector})")
    l1_sets = cache_sets(cfg, "memory.l1", line)
    l2_sets = cache_sets(cfg, "memory.l2", line)
    values = {
        "n_sm": n_sm, "n_sp": g("sm.sub_partitions"), "slots_per_sm": slots_per_sm, "warps_per_sm": warps_per_sm,
        "policy": SCHEDULER_NAMES.index(g("scheduler.policy")), "issue_width": g("scheduler.issue_width"),
        "max_per_warp": g("scheduler.max_issue_per_warp"), "pool": g("scheduler.active_pool"),
        "branch_latency": g("scheduler.branch_latency"), "barrier_latency": g("scheduler.barrier_latency"),
        "block_launch": g("sm.block_launch_latency"), "sector_bytes": sector, "line_bytes": line,
        "param_latency": g("memory.param_latency"), "smem_latency": g("memory.shared.latency"),
        "smem_banks": g("memory.shared.banks"), "smem_bank_bytes": g("memory.shared.bank_bytes"),
        "smem_atomic": g("memory.shared.atomic_cycles"), "smem_group_bytes": g("memory.shared.group_bytes"),
        "smem_wavefront_latency": g("memory.shared.wavefront_latency"), "l1_latency": g("memory.l1.latency"),
        "l1_sets": l1_sets, "l1_ways": g("memory.l1.ways"), "l1_hash": l1_hash(g("memory.l1.hash_sets"), l1_sets),
        "l1_invalidate": int(g("memory.l1.invalidate_at_launch")), "l2_latency": cfg.memory_latency("l2.latency"),
        "l2_sets": l2_sets, "l2_ways": g("memory.l2.ways"), "l2_atomic": g("memory.l2.atomic_cycles"),
        "dram_latency": cfg.miss_latency(),
        "dram_spread_shift": lines_shift(g("memory.dram.spread_bytes"), g("memory.line_bytes")),
        "host_far": cfg.cycles_of_ns(g("memory.l2.host_copy_far_ns")),
        "host_far_shift": lines_shift(g("memory.l2.host_copy_far_bytes"), g("memory.line_bytes")),
        "dram_refresh_mask": line_bits_mask(g("memory.dram.refresh_shared_bits"), g("memory.line_bytes")),
        "dram_refresh_interval": cfg.cycles_of_ns(g("memory.dram.refresh_interval_ns")),
        "dram_refresh": cfg.cycles_of_ns(g("memory.dram.refresh_ns")),
        "dram_refresh_units": g("memory.dram.refresh_units"), "misses_in_l2": int(cfg.host_copies_in_l2()),
        "max_cycles": g("limits.max_cycles"),
        "max_sm_threads": g("sm.max_threads"), "max_sm_warps": g("sm.max_warps"),
        "max_sm_blocks": g("sm.max_resident_blocks"), "sm_registers": g("sm.registers"),
        "sm_shared": g("sm.shared_memory"), "n_units": len(UNIT_NAMES), "record_trace": int(record_trace),
        "kernel_launch": g("sm.kernel_launch_latency"), "stream_kernel_gap": g("sm.stream_kernel_gap"), "control_codes": int(g("sass.control_codes")),
        "read_latency": g("sass.operand_read_latency"), "store_data_read": g("sass.store_data_read_cycles"),
        "global_store_data_read": g("sass.global_store_data_read_cycles"),
        "global_store_bytes": g("sass.global_store_bytes_per_cycle") if sass else 0,
        "global_store_line_passes": g("sass.global_store_line_passes") if sass else 0,
        "copy_line_passes": g("sass.copy_line_passes") if sass else 0,
        "shared_store_bytes": g("sass.shared_store_bytes_per_cycle") if sass else 0,
        "taken_branch": g("sass.taken_branch_latency"),
        "convergence_cycles": g("sass.convergence_unit_cycles") if sass else 0,
        "reconverge": g("sass.reconverge_latency"),
        "group_switch": g("sass.group_switch_latency"),
        "block_interval": g("sass.block_launch_interval") if sass else 0, **fetch_scalars(cfg, sass),
        "register_banks": g("sass.register_banks") if sass else 0,
        "write_port": int(sass and bool(g("sass.write_port_units"))),
        "memory_queue": g("sass.memory_queue") if sass else 0,
        "warp_pass_cycles": pass_cycles(cfg, g("units.ldst.warp_shared_bytes_per_cycle", 0)),
        "warp_store_pass_cycles": pass_cycles(cfg, g("units.ldst.warp_shared_store_bytes_per_cycle", 0)),
        "warp_conflict_pass_cycles": pass_cycles(cfg, g("units.ldst.warp_shared_conflict_bytes_per_cycle", 0)),
        "shared_store_cycles": g("units.ldst.shared_store_cycles", 0),
        "branch_resolve": g("sass.branch_resolve_cycles"),
        "slot_weight_ppm": round(g("scheduler.slot_weight_step") * 1e6),
        "age_step_ppm": round(g("scheduler.age_weight_step") * 1e6),
        "greedy_cycles": g("scheduler.greedy_cycles"),
        "l1_store_buffer": g("memory.l1.store_buffer"), "smsp_store_buffer": g("memory.l1.smsp_store_buffer"),
        "sm_units": len(sm_unit_names(cfg)),          # (only SASS rows use them: pc_tables)
        "const_line_bytes": g("sass.constants.line_bytes"), "const_lines": g("sass.constants.lines"),
        "imc_miss": cfg.cycles_of_ns(g("sass.constants.imc_miss_ns")) if sass else 0,
        "ldc_miss": cfg.cycles_of_ns(g("sass.constants.ldc_miss_ns")) if sass else 0,
        "const_gpu_misses": g("sass.constants.gpu_misses") if sass else 0,
        "store_ack": cfg.cycles_of_ns(g("sass.store_ack_ns")) if sass else 0,
        "deferred_barrier": int(sass and g("sass.deferred_barrier")),
        "barrier_after_stores": int(sass and g("sass.barrier_after_stores")),
        "loads_in_order": int(sass and g("sass.loads_in_order")),
    }
    tc = np.array([values[f] for f in TC_FIELDS], dtype=np.int64)
    tf = np.array([g("memory.l1.sectors_per_cycle"), g("memory.l2.sectors_per_cycle"),
                   cfg.dram_bytes_per_cycle(), cfg.get("memory.dram.inflight_cycles"),
                   g("memory.l1.store_sectors_per_cycle"), g("memory.l1.store_min_cycles"),
                   g("memory.l1.smsp_store_cycles"), *cfg.latency_spread("l2.latency"),
                   *cfg.latency_spread("dram.latency")], dtype=np.float64)
    assert len(tf) == len(TF_FIELDS)
    return tc, tf


def cache_sets(cfg: GPUConfig, level: str, line: int) -> int:
    """Sets of the cache at config key `level` (memory.l1, sass.fetch.l0, ...)."""
    size = int(cfg.get(f"{level}.size_kb") * 1024)
    ways = cfg.get(f"{level}.ways")
    sets = size // (line * ways)
    if sets < 1:
        raise InputError(f"{cfg.path}: {level} is smaller than one set ({ways} ways of {line}-byte lines)")
    return sets


def l1_hash(hashed: bool, sets: int) -> int:
    """tc l1_hash (caches.l1_set): 0 for line mod sets; with hashed sets log2(sets) + 1 where sets
    is a power of two (shifts), else -1 (divisions)."""
    if not hashed:
        return 0
    return sets.bit_length() if sets & (sets - 1) == 0 else -1


def fetch_scalars(cfg: GPUConfig, sass: bool) -> dict[str, int]:
    """The fetch model's scalars; it is off for launches without SASS kernels (PTX rows carry no
    instruction addresses the model could fetch)."""
    g = cfg.get
    line = g("sass.fetch.line_bytes")
    if line % E.SASS_INSTRUCTION_BYTES:
        raise InputError(f"{cfg.path}: sass.fetch.line_bytes ({line}) must be a multiple of "
                         f"{E.SASS_INSTRUCTION_BYTES} (one SASS instruction)")
    return {"fetch": int(sass and g("sass.fetch.enabled")), "fetch_line_insts": line // E.SASS_INSTRUCTION_BYTES,
            "fetch_next_line": g("sass.fetch.redirect_next_line_cycles"),
            "l0i_sets": cache_sets(cfg, "sass.fetch.l0", line), "l0i_ways": g("sass.fetch.l0.ways"),
            "l1i_sets": cache_sets(cfg, "sass.fetch.l1", line), "l1i_ways": g("sass.fetch.l1.ways"),
            "l1i_line_cycles": g("sass.fetch.l1.line_cycles"), "l2i_line_cycles": g("sass.fetch.l2_line_cycles"),
            "fetch_flushed_first": (cfg.cycles_of_ns(g("sass.fetch.flushed_first_line_ns"))
                                    if g("host.caches_flushed") else 0)}


class RegisterNumbering:
    """One numbering of all register files per warp: r32, then r64, then predicates."""

    def __init__(self, n_r32: int, n_r64: int, n_pred: int):
        self.n_r32, self.n_r64, self.n_pred = n_r32, n_r64, n_pred

    @property
    def count(self) -> int:
        return self.n_r32 + self.n_r64 + self.n_pred

    def of_operand(self, kind: int, index: int) -> int | None:
        if kind == E.K_R32:
            return index
        if kind == E.K_R64:
            return self.n_r32 + index
        if kind == E.K_PRED:
            return self.n_r32 + self.n_r64 + index
        return None

    def of_vec_entry(self, entry: int) -> int | None:
        if entry < 0 or entry & E.VEC_IMM:      # `_` or an immediate element
            return None
        if entry & E.VEC_R64:
            return self.n_r32 + (entry & (E.VEC_R64 - 1))
        return entry

    def of_address(self, aidx: int) -> list[int]:
        if aidx < 0:
            return []
        reg = aidx & ((1 << E.ADDR_FILE_SHIFT) - 1)
        file = (aidx >> E.ADDR_FILE_SHIFT) & E.ADDR_FILE_MASK
        second = [(aidx >> E.ADDR_SECOND_SHIFT) - 1] if aidx >> E.ADDR_SECOND_SHIFT else []
        if file == E.ADDR_RPAIR:
            return [reg, reg + 1] + second
        if file == 0:                      # [UR4+0x10]: the uniform register alone
            return second
        return [self.n_r32 + reg if file == E.ADDR_R64 else reg] + second

    def of_sass_operand(self, kind: int, index: int) -> list[int]:
        """Registers of a SASS operand: a pair is two, RZ / PT / constants none."""
        if kind == E.K_RPAIR:
            return [index, index + 1]
        reg = self.of_operand(kind, index)
        return [] if reg is None else [reg]


def is_sass_row(row) -> bool:
    """Rows lowered from SASS carry their control code (PTX rows -1), also where a SASS memory or
    atomic instruction shares a PTX opcode."""
    return int(row[E.F_CTRL]) >= 0


def operand_regs(kind: int, idx: int, imm: int, vecs, numbering: RegisterNumbering) -> list[int]:
    """The registers one operand names, in the unified numbering."""
    if kind == E.K_VEC:
        regs = [numbering.of_vec_entry(int(vecs[idx, j])) for j in range(imm)]
    elif kind == E.K_ADDR:
        regs = numbering.of_address(idx)
    else:
        regs = numbering.of_sass_operand(kind, idx)
    return [r for r in regs if r is not None]


def operand_registers(row, vecs, numbering: RegisterNumbering) -> tuple[list[int], list[int]]:
    """(sources, destinations) of one instruction in the unified register numbering."""
    op = int(row[E.F_OP])
    sass = is_sass_row(row)
    info = None if sass else isa().ops[op]
    srcs: list[int] = []
    dsts: list[int] = []
    for k in range(int(row[E.F_NOPS])):
        b = E.F_OPS + k * E.OPERAND_FIELDS
        kind, idx, imm = int(row[b]), int(row[b + 1]), int(row[b + 2])
        if sass:
            target = dsts if k < row[E.F_NDST] else srcs
        else:
            spec = info.operands[min(k, len(info.operands) - 1)]
            target = dsts if spec.kind in ("d", "pd") else srcs
        if kind == E.K_ADDR:
            target = srcs
        target.extend(operand_regs(kind, idx, imm, vecs, numbering))
    if row[E.F_DST2] >= 0:
        dsts.append(numbering.of_operand(E.K_PRED, int(row[E.F_DST2])))
    if row[E.F_GUARD] >= 0:
        srcs.append(numbering.of_operand(E.K_PRED, int(row[E.F_GUARD])))
    return sorted(set(srcs)), sorted(set(dsts))


# semantics -> timing class ("sfu": a fixed wait whose dependants count as short_scoreboard, as
# Nsight Compute counts those of MUFU, S2R and LDC; CS2R's dependants wait on its stall count alone)
SASS_TIMING = {"branch": "branch", "convergence": "branch", "call": "branch", "exit": "exit",
               "barrier": "barrier", "transcendental": "sfu", "special_register": "sfu", "constant_load": "sfu"}


def timing_class(op: int) -> int:
    """CL_* code of an opcode, from its class in the ISA table (SASS: from its semantics class in
    isa/sass.yaml)."""
    if op >= E.SASS_OP_BASE:
        entry = sass_table().ops[op - E.SASS_OP_BASE]
        return CL_CODE[SASS_TIMING.get(entry.semantics, "alu")]
    return CL_CODE[isa().ops[op].timing]


def opcode_name(op: int) -> str:
    if op >= E.SASS_OP_BASE:
        return sass_table().ops[op - E.SASS_OP_BASE].name
    return isa().ops[op].name


def result_latency(latency: int, interval: int) -> int:
    """Cycles from issue until a fixed-latency result can be read: the unit's (or the opcode's
    overridden) latency, but never before the instruction has left its pipe."""
    return max(latency, interval)


def override_key(table: dict, op_name: str, row) -> str | None:
    """The key of a per-opcode config table that names row's instruction: `op.WIDE` for a SASS
    row with the WIDE modifier (IMAD.WIDE), then `op.type`, then `op`."""
    if is_sass_row(row) and int(row[E.F_FLAGS]) & E.SM_WIDE and f"{op_name}.WIDE" in table:
        return f"{op_name}.WIDE"
    t = int(row[E.F_TYPE])
    if t >= 0 and f"{op_name}.{E.TYPE_NAMES[t]}" in table:
        return f"{op_name}.{E.TYPE_NAMES[t]}"
    return op_name if op_name in table else None


def latency_override(cfg: GPUConfig, op_name: str, row, key: str = "latency_overrides") -> int | None:
    """The cycles config table `key` gives op_name (`op.type` before `op`), or None."""
    table = cfg.get(key) or {}
    found = override_key(table, op_name, row)
    return None if found is None else table[found]


def constant_reads(programs: list) -> np.ndarray:
    """Per pc of the linked programs (in link order), the constant its constant operand reads (-1:
    none) as layout.const_ref(address, path): the cache it goes through (layout.CONST_*: an LDC's
    through the SM's LDC cache, any other SASS instruction's c[bank][offset] through its
    sub-partition's immediate-constant cache) and the constant's address, the launch's number times
    CONST_LAUNCH_SPAN plus its offset in the program's own bank 0 (read before the linker moves the
    parameters), so lines fall as on the GPU and each launch finds its own lines cold.  An LDC's
    register index adds to the address at run time."""
    refs = []
    for k, program in enumerate(programs):
        for row in program.code:
            ref = -1
            if is_sass_row(row):
                for j in range(int(row[E.F_NOPS])):
                    b = E.F_OPS + j * E.OPERAND_FIELDS
                    if row[b] == E.K_CONST:
                        path = CONST_LDC if row[E.F_OP] == E.OP_S_LDC else CONST_IMC
                        ref = const_ref(k * CONST_LAUNCH_SPAN + int(row[b + 2]), path)
                        break
            refs.append(ref)
    return np.array(refs, np.int64)


def pc_tables(cfg: GPUConfig, code: np.ndarray, vecs: np.ndarray, numbering: RegisterNumbering,
              programs: list) -> Tables:
    """The per-pc timing tables of the linked `code` (rows), whose programs (in link order) give the
    constants' own offsets."""
    home = unit_home(cfg)
    params = [unit_params(cfg, name) for name in UNIT_NAMES]
    n = len(code)
    unit = np.zeros(n, np.int64)
    own = np.zeros(n, np.int64)
    ncu_pipe = np.zeros(n, np.int64)
    cls = np.zeros(n, np.int64)
    lat = np.zeros(n, np.int64)
    ii = np.zeros(n, np.int64)
    pass_cycles = np.zeros(n, np.int64)
    widths = np.zeros((n, 3), np.int64)      # Tables.shared_width's columns
    pipes_of = np.zeros(n, np.int64)
    pipe_from = np.zeros(n, np.int64)
    spare_first = [bool(cfg.get(f"units.{name}.spare_first_pipe", False)) for name in UNIT_NAMES]
    regs = []
    for pc in range(n):
        row = code[pc]
        u = int(row[E.F_UNIT])
        name = opcode_name(int(row[E.F_OP]))
        unit[pc] = home[u]
        own[pc] = u
        ncu_pipe[pc] = row[E.F_PIPE]
        cls[pc] = timing_class(int(row[E.F_OP]))
        # the pipes it runs on set the interval (a shared-memory access's passes may hold it longer); its own
        # unit the latency
        ii[pc] = params[home[u]][1]
        if is_sass_row(row):
            ii[pc] = latency_override(cfg, name, row, "sass.interval_overrides") or ii[pc]
        pass_cycles[pc] = shared_pass_cycles(cfg, row, UNIT_NAMES[home[u]])
        if pass_cycles[pc]:
            widths[pc, W_STORE] = shared_store_passes(cfg, row, UNIT_NAMES[home[u]])
            widths[pc, W_LOAD], widths[pc, W_LOAD_PASS_CYCLES] = shared_load_width(cfg, row, UNIT_NAMES[home[u]])
        pipes_of[pc] = 1 if first_pipe_only(int(row[E.F_OP])) else params[home[u]][0]
        pipe_from[pc] = 1 if pipes_of[pc] > 1 and spare_first[home[u]] else 0
        override = latency_override(cfg, name, row)
        lat[pc] = result_latency(params[u][2] if override is None else override, ii[pc])
        regs.append(operand_registers(row, vecs, numbering))
    width_s = max([len(s) for s, _ in regs] + [1])
    width_d = max([len(d) for _, d in regs] + [1])
    srcs = np.full((n, width_s + 1), -1, np.int64)
    dsts = np.full((n, width_d + 1), -1, np.int64)
    for pc, (s, d) in enumerate(regs):
        srcs[pc, :len(s)] = s
        dsts[pc, :len(d)] = d
    pipes = np.array([p for p, _, _ in params], np.int64)
    rf_first = np.full((n, N_REUSE_SLOTS), -1, np.int64)
    rf_count = np.zeros((n, N_REUSE_SLOTS), np.int64)
    for pc in range(n):
        for slot, (first, count) in enumerate(register_reads(code[pc], vecs, numbering)):
            rf_first[pc, slot], rf_count[pc, slot] = first, count
    rf_write = write_port_latencies(cfg, code, own, cls, lat, [d for _, d in regs], numbering)
    sm_unit, sm_cycles = sm_unit_tables(cfg, code)
    return Tables(unit, own, cls, lat, ii, pass_cycles, widths, srcs, dsts, pipes, ncu_pipe, pipes_of, pipe_from, rf_first,
                  rf_count, rf_write, sm_unit, sm_cycles, constant_reads(programs))


def sm_unit_names(cfg: GPUConfig) -> list[str]:
    """The keys of sass.sm_unit_cycles, in order: unit k serves the k-th."""
    return sorted(cfg.get("sass.sm_unit_cycles") or {})


# SASS families the lowering turns into PTX operations, by the operation's name (those an SM-wide unit may serve)
LOWERED_FAMILIES = {"bar": "BAR"}


def sass_family(row) -> str:
    """The SASS family of a SASS program's row: its opcode's, or the family lowered to its PTX operation."""
    name = opcode_name(int(row[E.F_OP]))
    return LOWERED_FAMILIES.get(name, name)


def sm_unit_tables(cfg: GPUConfig, code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pc, the SM-wide unit that serves a SASS instruction (-1: none) and the cycles it holds
    it: sass.sm_unit_cycles, one unit per key (`family` or `family.type`, as latency_overrides;
    the config admits only families timed by a latency)."""
    table = cfg.get("sass.sm_unit_cycles") or {}
    names = sm_unit_names(cfg)
    unit = np.full(len(code), -1, np.int64)
    cycles = np.zeros(len(code), np.int64)
    for pc in range(len(code)):
        key = override_key(table, sass_family(code[pc]), code[pc]) if is_sass_row(code[pc]) else None
        if key is not None:
            unit[pc] = names.index(key)
            cycles[pc] = table[key]
    return unit, cycles


def shared_pass_cycles(cfg: GPUConfig, row: np.ndarray, unit: str) -> int:
    """Cycles a shared-memory load, store or ldmatrix holds its pipe per pass through the banks (a
    pass moves banks x bank_bytes): those bytes over `units.UNIT.shared_bytes_per_cycle` (0: not
    modelled).  The engine multiplies it by the access's passes.  On the H100 an LD/ST pipe moves 32
    bytes per cycle: a conflict-free LDS.64 every 8 cycles, LDS.128 and LDSM.x4 every 16, LDS.32 with
    two lanes on each bank every 8 (tools/shared_ops.py)."""
    op = int(row[E.F_OP])
    if row[E.F_SPACE] != E.SP_SHARED or op not in (E.OP_LD, E.OP_ST, E.OP_LDMATRIX):
        return 0
    return pass_cycles(cfg, cfg.get(f"units.{unit}.shared_bytes_per_cycle", 0))


def shared_store_passes(cfg: GPUConfig, row: np.ndarray, unit: str) -> int:
    """A warp's width of a shared-memory store's data in passes through the banks (banks x
    bank_bytes each), whatever its lanes and conflicts: with sass.memory_queue it holds its pipe for
    these and units.UNIT.shared_store_cycles more (probe shared_rate); 0 where that key is 0."""
    if not cfg.get(f"units.{unit}.shared_store_cycles", 0) or int(row[E.F_OP]) != E.OP_ST:
        return 0
    return warp_width_passes(cfg, row)


def warp_width_passes(cfg: GPUConfig, row: np.ndarray) -> int:
    """Passes through the banks a whole warp's lanes' data fill (each lane the row's type x vector)."""
    lane_bytes = (E.TYPE_BITS[int(row[E.F_TYPE])] // 8) * int(row[E.F_VEC])
    return math.ceil(cfg.get("warp_size") * lane_bytes / pass_bytes(cfg))


def shared_load_width(cfg: GPUConfig, row: np.ndarray, unit: str) -> tuple[int, int]:
    """A warp's width of a shared-memory load's data (an ldmatrix's: its 8x8 matrices) in passes
    through the banks, whatever its lanes and conflicts, and the cycles each of them holds the warp
    (at units.UNIT.warp_shared_bytes_per_cycle; an ldmatrix's at warp_ldsm_bytes_per_cycle where set).
    The passes beyond these, its bank conflicts, hold it at warp_shared_conflict_bytes_per_cycle
    (probe bank_conflicts); (0, 0) where that key is 0."""
    op = int(row[E.F_OP])
    if not cfg.get(f"units.{unit}.warp_shared_conflict_bytes_per_cycle", 0) or op not in (E.OP_LD, E.OP_LDMATRIX):
        return 0, 0
    rate = cfg.get(f"units.{unit}.warp_shared_bytes_per_cycle", 0)
    if op == E.OP_LDMATRIX:
        return int(row[E.F_VEC]), pass_cycles(cfg, cfg.get(f"units.{unit}.warp_ldsm_bytes_per_cycle", 0) or rate)
    return warp_width_passes(cfg, row), pass_cycles(cfg, rate)


def pass_bytes(cfg: GPUConfig) -> int:
    """Bytes one pass through the shared-memory banks moves (banks x bank_bytes)."""
    return cfg.get("memory.shared.banks") * cfg.get("memory.shared.bank_bytes")


def pass_cycles(cfg: GPUConfig, bytes_per_cycle: float) -> int:
    """Cycles one pass through the shared-memory banks (banks x bank_bytes) takes at that rate (0: none)."""
    if not bytes_per_cycle:
        return 0
    return math.ceil(pass_bytes(cfg) / bytes_per_cycle)


def write_port_latencies(cfg: GPUConfig, code: np.ndarray, own, cls, lat, dsts, numbering: RegisterNumbering):
    """Per pc, the cycles from issue until its result takes the register-file write port (0: it
    takes none): SASS ALU and XU instructions of `sass.write_port_units` with an R register
    destination (uniform registers and predicates have their own files), at their latency or
    their unit's `sass.write_port_latency`."""
    names = cfg.get("sass.write_port_units") or []
    own_latency = cfg.get("sass.write_port_latency") or {}
    out = np.zeros(len(code), np.int64)
    for pc in range(len(code)):
        if (UNIT_NAMES[own[pc]] in names and cls[pc] in (CL_ALU, CL_SFU) and is_sass_row(code[pc])
                and any(E.SASS_R_BASE <= d < numbering.n_r32 for d in dsts[pc])):
            out[pc] = own_latency.get(UNIT_NAMES[own[pc]], lat[pc])
            if out[pc] >= N_WRITE_RING:
                raise InputError(f"{cfg.path}: sass.write_port_units: {UNIT_NAMES[own[pc]]}'s latency "
                                 f"{out[pc]} must be below {N_WRITE_RING}")
    return out


def register_reads(row, vecs, numbering: RegisterNumbering) -> list[tuple[int, int]]:
    """(first register, count) that each source slot of a SASS instruction reads from the vector
    register file, (-1, 0) where the slot is an immediate, constant, RZ, uniform or predicate
    operand; the first N_REUSE_SLOTS slots (those with a reuse flag).  PTX rows read none here."""
    if not is_sass_row(row):
        return []
    slots = []
    for k in range(int(row[E.F_NDST]), int(row[E.F_NOPS])):
        b = E.F_OPS + k * E.OPERAND_FIELDS
        regs = [r for r in operand_regs(int(row[b]), int(row[b + 1]), int(row[b + 2]), vecs, numbering)
                if E.SASS_R_BASE <= r < numbering.n_r32]     # R registers; UR lie below, predicates above
        slots.append((regs[0], len(regs)) if regs else (-1, 0))
    return fragment_reads(row, slots)[:N_REUSE_SLOTS]


def fragment_reads(row, slots: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """An HMMA names each fragment by its first register but reads all of them: m16n8k16 A 4, B 2;
    m16n8k8 A 2, B 1; C 4 with f32 accumulators, 2 with f16 (probes hmma_rate, hmma_beside)."""
    if opcode_name(int(row[E.F_OP])) != "HMMA":
        return slots
    k16 = int(row[E.F_CMP]) == E.SHAPE_CODE["m16n8k16"]
    widths = (4 if k16 else 2, 2 if k16 else 1, 4 if int(row[E.F_TYPE]) == E.T_F32 else 2)
    return [(first, width if first >= 0 else 0) for (first, _), width in zip(slots, widths)] + slots[3:]


def first_pipe_only(op: int) -> bool:
    """SASS families of the FMA-heavy pipe (IMAD): of the fp32 unit's pipes only the first takes
    them, where FFMA may use either (H100: 16 INT32 lanes per sub-partition beside 32 FP32)."""
    return op >= E.SASS_OP_BASE and sass_table().ops[op - E.SASS_OP_BASE].pipe == "fmaheavy"
