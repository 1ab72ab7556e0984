"""When a memory instruction's data is ready: its lanes' addresses are gathered before it
executes (it may overwrite its own address register), turned into transactions (coalesce.py)
and timed through the shared port or the L1 / L2 / DRAM model (caches.py)."""
from __future__ import annotations

import numpy as np

from simt_sim.engine.cycle import caches as MT
from simt_sim.engine.cycle import coalesce as CO
from simt_sim.engine.cycle.slots import sub_partition
from simt_sim.engine.functional.address import generic_to_space, lane_address
from simt_sim.engine.jit import compiled, unless_none
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (G, R_LONG, R_SHORT, R_WAIT, SCRATCH_ADDRS, SCRATCH_LANES, SCRATCH_PORT_WAIT,
                                     SCRATCH_DATA_CYCLES, SCRATCH_SECTOR_COUNTS, SCRATCH_SECTORS, SCRATCH_STORE_WAIT, SCRATCH_SIZE, SCRATCH_WAVEFRONTS, SCRATCH_WAYS_L1, SCRATCH_WAYS_L2, TC, TF)

G_WS, G_LOCAL = G["warp_size"], G["local_bytes"]
T_PARAM, T_SECTOR = TC["param_latency"], TC["sector_bytes"]
T_STORE_BYTES, T_STORE_LINE_PASSES, T_LINE = TC["global_store_bytes"], TC["global_store_line_passes"], TC["line_bytes"]
T_SHARED_STORE_BYTES = TC["shared_store_bytes"]
T_COPY_LINE_PASSES = TC["copy_line_passes"]
F_STORE_BW = TF["l1_store_sectors_per_cycle"]
LOCAL_TIMING_BASE = np.int64(1) << 56      # local memory's place in the cache model's address space


@compiled
def memory_ready(ext, rows, regs, mt, tc, tf, scratch, geom, w, gid, pc, exec_mask, sm, cycle):
    """(cycle the data is ready / written, stall class) of warp w's memory instruction at pc
    (ext: Code.ext)."""
    row = rows[pc]
    op = row[E.F_OP]
    space = row[E.F_SPACE]
    ty = row[E.F_TYPE]
    width = E.TYPE_BITS[ty] // 8 if ty != E.T_PRED else 1
    nbytes = width * row[E.F_VEC]
    addr_k = 0 if op == E.OP_ST or op == E.OP_RED or op == E.OP_WMMA_STORE_D else 1
    scratch[SCRATCH_WAVEFRONTS] = 0
    scratch[SCRATCH_PORT_WAIT] = 0
    scratch[SCRATCH_STORE_WAIT] = 0
    scratch[SCRATCH_DATA_CYCLES] = 0
    scratch[SCRATCH_SECTOR_COUNTS:SCRATCH_SIZE] = 0
    if op == E.OP_LDMATRIX or op == E.OP_WMMA_LOAD_A or op == E.OP_WMMA_LOAD_B or op == E.OP_WMMA_LOAD_C \
            or op == E.OP_WMMA_STORE_D:
        return tensor_memory(ext, row, regs, mt, tc, tf, scratch, geom, w, sm, cycle)
    b = E.F_OPS + addr_k * E.OPERAND_FIELDS
    aidx = row[b + 1]
    aoff = row[b + 2]
    wsz = geom[G_WS]
    base_t = w * wsz
    local_bytes = geom[G_LOCAL]
    addrs = scratch[SCRATCH_ADDRS:SCRATCH_SECTORS]
    lanes = scratch[SCRATCH_LANES:SCRATCH_WAVEFRONTS]
    work = scratch[SCRATCH_SECTORS:SCRATCH_LANES]
    n = 0
    kind_space = space
    for lane in range(wsz):
        if (exec_mask >> lane) & 1:
            sp, addr = generic_to_space(space, lane_address(regs, aidx, aoff, base_t + lane))
            if sp == E.SP_LOCAL:     # interleaved per warp, as hardware lays out local memory
                addr = LOCAL_TIMING_BASE + ((gid * local_bytes + addr) // 4) * wsz * 4 + lane * 4 + addr % 4
                sp = E.SP_GLOBAL
            kind_space = sp
            addrs[n] = addr
            lanes[n] = lane
            n += 1
    is_atomic = op == E.OP_ATOM or op == E.OP_RED
    if n == 0:          # guarded off: a shared access still takes its pipe for a pass (probe pred_off)
        if space == E.SP_SHARED:
            scratch[SCRATCH_WAVEFRONTS] = 1
        return cycle + 1, R_WAIT
    if kind_space == E.SP_PARAM or kind_space == E.SP_CONST:
        return cycle + tc[T_PARAM], R_WAIT
    serial = CO.max_same_address(addrs, n, work) if is_atomic else 0
    if kind_space == E.SP_SHARED:
        ways = CO.shared_passes(addrs, lanes, n, nbytes, tc, work)
        scratch[SCRATCH_WAVEFRONTS] = ways
        if op == E.OP_ST and tc[T_SHARED_STORE_BYTES] > 0:     # its data's read (issue.sources_read)
            scratch[SCRATCH_DATA_CYCLES] = -(-n * nbytes // tc[T_SHARED_STORE_BYTES])
        return shared_ready(mt, tc, scratch, sm, cycle, ways, serial), R_SHORT
    n_sect = CO.sectors_of(addrs, n, nbytes, tc[T_SECTOR], work)
    skip_l1 = (row[E.F_FLAGS] & E.FL_L1_BYPASS) != 0
    if op == E.OP_ST and tc[T_STORE_BYTES] > 0:     # the cycles its data take to read (issue.sources_read)
        scratch[SCRATCH_DATA_CYCLES] = -(-n * nbytes // tc[T_STORE_BYTES])
    if op == E.OP_ST and tf[F_STORE_BW] > 0:    # waits for room in its store buffer, holding its pipe (units.pipe_time)
        sp = sub_partition(tc, w, sm)
        scratch[SCRATCH_STORE_WAIT] = MT.store_port(mt, tc, tf, sm, sp, cycle, n_sect)
        cycle += scratch[SCRATCH_STORE_WAIT]    # the kernel's end waits for its stores to enter the buffer
    if op == E.OP_ST and tc[T_STORE_LINE_PASSES] > 0:    # its lines pass the data banks shared accesses use
        lines = CO.lines_of(work, n_sect, tc[T_LINE] // tc[T_SECTOR])
        MT.book_port(mt.shared_booked, mt.shared_end, sm, cycle, lines * tc[T_STORE_LINE_PASSES])
    done = MT.global_access(mt, tc, tf, sm, cycle, work, n_sect, op == E.OP_ST, skip_l1, serial,
                            scratch[SCRATCH_WAYS_L1:SCRATCH_WAYS_L2], scratch[SCRATCH_WAYS_L2:SCRATCH_LANES],
                            scratch[SCRATCH_SECTOR_COUNTS:SCRATCH_SIZE])
    if op == E.OP_CP_ASYNC and tc[T_COPY_LINE_PASSES] > 0:    # its data pass the data banks as they arrive
        passes = -(-n * nbytes // tc[T_LINE]) * tc[T_COPY_LINE_PASSES]
        done = MT.book_port(mt.shared_booked, mt.shared_end, sm, done, passes) + passes
    return done, R_LONG


@compiled
def shared_ready(mt, tc, scratch, sm, cycle, ways, atomic_serial):
    """The cycle a shared access's data is ready; its wait for the SM's port goes to scratch."""
    ready, port_wait = MT.shared_access(mt, tc, sm, cycle, ways, atomic_serial)
    scratch[SCRATCH_PORT_WAIT] = port_wait
    return ready


@compiled
def no_tensor_memory(ext, row, regs, mt, tc, tf, scratch, geom, w, sm, cycle):
    """A tensor-core access in code marked without them (cannot happen: the lowering marks the code)."""
    return cycle + 1, R_WAIT


@unless_none(no_tensor_memory)
def tensor_memory(ext, row, regs, mt, tc, tf, scratch, geom, w, sm, cycle):
    """tensor_memory_ready where the code holds tensor-core rows (Code.ext), else not compiled."""
    if ext is None:
        return no_tensor_memory(ext, row, regs, mt, tc, tf, scratch, geom, w, sm, cycle)
    return tensor_memory_ready(row, regs, mt, tc, tf, scratch, geom, w, sm, cycle)


@compiled
def tensor_memory_ready(row, regs, mt, tc, tf, scratch, geom, w, sm, cycle):
    """ldmatrix and wmma.load / store, timed as the rows of memory they touch: ldmatrix, the
    16-byte row of each address lane; wmma, each memory row (or column) of the tile as one access
    from the first lane's base address and stride."""
    op = row[E.F_OP]
    base_t = w * geom[G_WS]
    addrs = scratch[SCRATCH_ADDRS:SCRATCH_SECTORS]
    work = scratch[SCRATCH_SECTORS:]
    if op == E.OP_LDMATRIX:
        b = E.F_OPS + E.OPERAND_FIELDS
        n = 8 * row[E.F_VEC]
        for lane in range(n):
            addrs[lane] = generic_to_space(row[E.F_SPACE], lane_address(regs, row[b + 1], row[b + 2], base_t + lane))[1]
        ways = 0        # each 8x8 matrix passes the banks on its own (Nsight Compute: an LDSM.x4 of
        for m in range(row[E.F_VEC]):   # rows 64 bytes apart makes 16 wavefronts, not 8)
            ways += CO.bank_ways(addrs[8 * m:8 * m + 8], 8, 16, tc, work)
        scratch[SCRATCH_WAVEFRONTS] = ways
        return shared_ready(mt, tc, scratch, sm, cycle, ways, 0), R_SHORT
    shape = row[E.F_CMP]
    esize = 4 if row[E.F_TYPE] == E.T_F32 else 2
    lines, length = E.SHAPE_M[shape], E.SHAPE_K[shape]        # A: M x K
    if op == E.OP_WMMA_LOAD_B:
        lines, length = E.SHAPE_K[shape], E.SHAPE_N[shape]
    elif op != E.OP_WMMA_LOAD_A:
        lines, length = E.SHAPE_M[shape], E.SHAPE_N[shape]
    if row[E.F_FLAGS] & E.FL_COL_A:                            # column-major: the lines are columns
        lines, length = length, lines
    ka = 0 if op == E.OP_WMMA_STORE_D else 1
    b = E.F_OPS + ka * E.OPERAND_FIELDS
    sp, base = generic_to_space(row[E.F_SPACE], lane_address(regs, row[b + 1], row[b + 2], base_t))
    stride = np.int64(length)
    bs = E.F_OPS + 2 * E.OPERAND_FIELDS
    if row[E.F_NOPS] > 2:
        if row[bs] == E.K_R32:
            stride = np.int64(regs.r32[row[bs + 1], base_t])
        elif row[bs] == E.K_IMM:
            stride = np.int64(row[bs + 2])
    for r in range(lines):
        addrs[r] = base + r * stride * esize
    nbytes = length * esize
    if sp == E.SP_SHARED:
        return shared_ready(mt, tc, scratch, sm, cycle, CO.bank_ways(addrs, lines, nbytes, tc, work), 0), R_SHORT
    n_sect = CO.sectors_of(addrs, lines, nbytes, tc[T_SECTOR], work)
    return MT.global_access(mt, tc, tf, sm, cycle, work, n_sect, op == E.OP_WMMA_STORE_D, False, 0,
                            scratch[SCRATCH_WAYS_L1:SCRATCH_WAYS_L2], scratch[SCRATCH_WAYS_L2:SCRATCH_LANES],
                            scratch[SCRATCH_SECTOR_COUNTS:SCRATCH_SIZE]), R_LONG
