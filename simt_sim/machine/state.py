"""The engine's state: a few named records of numpy arrays (field positions in layout.py).

Threads live in resident-block slots: slot s holds one block's warps s*wpb .. s*wpb+wpb-1 and
their threads w*warp_size + lane.  Register files are lane-contiguous (`r32[reg, thread]`), so
one operand of a warp is one run of adjacent words; the 32-bit file is also seen as float32 and
the 64-bit file as float64 (aliasing views, no copies).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (CBAR_FIELDS, CBAR_SLOTS, HISTORY_FIELDS, INF, N_COUNTERS, SC_HELD_AT, SC_LAST,
                                     SC_RR_FROM, SC_WAKE, SCHED_FIELDS, STACK_FIELDS, WARP_FIELDS, WF_LAST_CYCLE,
                                     WF_STATUS, W_EMPTY)

# calls: the call table (isa/encoding.py); ptx / sass: True when the rows include that instruction
# set, None when not; ext: True when they include a family of encoding.EXT_OPS (code_markers)
Code = namedtuple("Code", "rows cu64 cf32 cf64 vecs calls ptx sass ext")
Regs = namedtuple("Regs", "r32 f32 r64 f64 pred")
Warps = namedtuple("Warps", "f stack cbar")        # the warp record, SIMT stacks, SASS convergence barriers
# global memory with its allocations (base, end, offset in gmem; sorted by base), shared memory
# of every slot, local memory of every thread slot, the parameter block
Memory = namedtuple("Memory", "gmem allocs smem lmem pmem")
ALLOC_BASE, ALLOC_END, ALLOC_OFF = range(3)


def code_markers(isas: set[str], rows: np.ndarray) -> tuple:
    """(Code.ptx, Code.sass, Code.ext) for these rows of these instruction sets.  A marker's numba
    type is None or bool, so numba compiles the engine once per combination and prunes what a None
    marker rules out: a PTX run never compiles SASS semantics nor SASS timing (control codes,
    register banks, fetch), a SASS run never PTX's semantics (execute.ptx_row, sass_row,
    cycle/issue.py), and code without calls, tensor-core rows or asynchronous copies not those.
    Code with SASS rows counts as holding them all: it would otherwise compile a fourth
    combination of the engine for a few seconds less of its own."""
    ptx, sass = "ptx" in isas, "sass" in isas
    ext = sass or bool(np.isin(rows[:, E.F_OP], E.EXT_OPS).any())
    return (True if ptx else None), (True if sass else None), (True if ext else None)


def make_schedulers(n_sm: int, n_sp: int) -> np.ndarray:
    """Per-scheduler state before a launch: no warp issued or held yet, nothing to wake for."""
    sched = np.zeros((n_sm, n_sp, len(SCHED_FIELDS)), np.int64)
    sched[:, :, SC_LAST] = -1
    sched[:, :, SC_HELD_AT] = -2
    sched[:, :, SC_RR_FROM] = -1
    sched[:, :, SC_WAKE] = INF
    return sched


def make_regs(n_threads: int, n_r32: int, n_r64: int, n_pred: int) -> Regs:
    r32 = np.zeros((max(n_r32, 1), n_threads), dtype=np.uint32)
    r64 = np.zeros((max(n_r64, 1), n_threads), dtype=np.uint64)
    return Regs(r32, r32.view(np.float32), r64, r64.view(np.float64),
                np.zeros((max(n_pred, 1), n_threads), dtype=np.uint8))


def make_warps(n_warps: int, depth: int) -> Warps:
    f = np.zeros((n_warps, len(WARP_FIELDS)), dtype=np.int64)
    f[:, WF_STATUS] = W_EMPTY
    f[:, WF_LAST_CYCLE] = -1
    return Warps(f, np.zeros((n_warps, depth, len(STACK_FIELDS)), dtype=np.int64),
                 np.zeros((n_warps, CBAR_SLOTS, len(CBAR_FIELDS)), dtype=np.int64))


def empty_history(rows: int) -> np.ndarray:
    return np.zeros((rows, len(HISTORY_FIELDS)), dtype=np.int64)


def make_counters() -> np.ndarray:
    return np.zeros(N_COUNTERS, dtype=np.int64)


# Per-pc timing tables (machine/tables.py builds them from the config and the ISA table).
# unit: the unit whose pipes the instruction uses (after shared_with); own_unit: its own class;
# cls: timing class (CL_*); lat: cycles until its result can be read; ii: cycles its pipe stays
# busy; pass_cycles: a shared-memory access's pipe cycles per pass through the banks (the engine
# holds the pipe max(ii, passes x pass_cycles)); srcs / dsts: registers in the unified numbering (-1 padded); unit_pipes: pipes per unit;
# pipes_of: how many of its unit's pipes (the first ones) the instruction may use; pipe_from: the
# pipe it tries first (1 where its unit spares the first pipe); rf_first /
# rf_count [pc, slot]: the vector registers each SASS source slot reads (-1 / 0: none); sm_unit:
# the SM-wide unit that serves it (sass.sm_unit_cycles; -1: none), sm_unit_cycles: for how long;
# shared_width [pc, W_*]: a warp's width of a shared-memory access in passes through the banks,
# whatever its lanes and conflicts: W_STORE a store's data, which with a memory queue sets how
# long it holds its pipe (0: not such a store, or units.ldst.shared_store_cycles unset: by its
# passes, as a load); W_LOAD a load's or ldmatrix's, whose passes beyond it (bank conflicts) hold
# the warp at units.ldst.warp_shared_conflict_bytes_per_cycle, and W_LOAD_PASS_CYCLES how long
# each pass of its width holds the warp (0, 0: not such a load, or that key unset).
# (layout.W_STORE, W_LOAD, W_LOAD_PASS_CYCLES.)  const_ref: the constant cache its constant operand
# goes through and the constant's address (layout.const_ref; tables.constant_reads).
Tables = namedtuple("Tables", "unit own_unit cls lat ii pass_cycles shared_width srcs dsts unit_pipes ncu_pipe pipes_of pipe_from rf_first rf_count rf_write "
                              "sm_unit sm_unit_cycles const_ref")

# Timing state: register ready cycles and stall classes per warp, pipe free cycles
# [sm, sp, unit, pipe], scheduler records and age orders, the kernel of each slot, SM resources in
# use, per-kernel fields and statistics, issue trace, stall log, loop scalars, scratch space, the
# instruction caches (SASS fetch: L0 per sub-partition, L1 per SM; layout.FETCH_FIELDS), and the
# warp-cycles of each stall reason spent waiting to issue each pc ([pc, reason]) and the PC samples
# Nsight Compute would take of a pc's cycles ([pc], stalls.sampled), and each
# sub-partition's memory queue ([sm, sp, 0]: its next slot; [sm, sp, 1:]: the cycles its last
# sass.memory_queue memory instructions entered the pipe, units.enqueue), and the constant caches
# ([sm, sp, line slot] the sub-partitions' immediate-constant caches, [sm, n_sp, line slot] the SM's
# LDC cache, [n_sm, 0, i] the GPU's line requests in flight; layout.CC_FIELDS).
TState = namedtuple("TState", "reg_ready reg_kind unit_free sched order slot_kernel sm_use kinfo kstats "
                              "trace tlog now scratch candidates l0i l1i pc_stalls pc_samples mem_queue "
                              "const_cache")
