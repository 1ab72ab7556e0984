"""The cycle loop: SMs and their sub-partition schedulers issue warp-instructions into functional
units; the block scheduler places blocks of one or more kernels under the SM's occupancy limits.

Execution is at issue: the chosen warp runs `execute.step_warp` at cycle c (so %clock reads c) and
its results are marked ready at c + latency (units), or when the memory model says the data
arrives.  Cycles in which no scheduler can issue are skipped in one step to the next cycle at
which some warp may become eligible; stall cycles are attributed per warp when it next issues.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from simt_sim.isa import encoding as E
from simt_sim.engine.functional.execute import STEP_FAULT, guard_mask, lane_address, set_fault, step_warp
from simt_sim.engine.jit import compiled
from simt_sim.engine.functional.address import generic_to_space
from simt_sim.engine.functional.loop import launch_block, retire_slot, slot_finished
from simt_sim.engine.functional.simt_stack import popcount64
from simt_sim.machine.state import (C_CLOCK, C_EVENTS, C_HIST, C_WARP_INSTS,
                                   FAULT_CYCLE_LIMIT, FAULT_DEADLOCK, FAULT_LIMIT, G, RUN_DONE,
                                   RUN_EVENTS_FULL, RUN_FAULT, RUN_HISTORY_FULL, RUN_SLICE, RUN_TRACE_FULL,
                                   W_BARRIER, W_DONE, W_READY)
from simt_sim.engine.cycle import caches as MT
from simt_sim.machine.layout import (
    CL_ALU, CL_BARRIER, CL_BRANCH, CL_EXIT, CL_MEM, CL_SFU, INF, KF_BLOCKS, KF_BLOCKS_DONE, KF_END_CYCLE,
    KF_FIRST_CYCLE, KF_GID_BASE, KF_LAST_COMPLETE, KF_NEXT_BLOCK, KF_PC_BASE, KF_READY_AT, KF_REGS_PER_WARP,
    KF_SHARED_PER_BLOCK, KF_STATE, KF_STREAM, KF_THREADS_PER_BLOCK, KF_WARPS_PER_BLOCK, KSTATE_DONE,
    KSTATE_RUNNING, KSTATE_WAITING, R_BARRIER, R_BRANCH, R_DRAIN, R_LG, R_LONG, R_MIO, R_NOT_SELECTED,
    R_NO_INST, R_PIPE, R_SELECTED, R_SHORT, R_WAIT, STAT_ACTIVE_LANES, STAT_THREAD_INSTS, STAT_WARP_INSTS, TC,
    TR_CYCLE, TR_EXEC, TR_GID, TR_KERNEL, TR_MASK, TR_PC, TR_READY, TR_SM, TR_SP, TR_UNIT)
from simt_sim.engine.cycle.scheduler import candidates, rebuild_order
from simt_sim.engine.cycle.scoreboard import operands_ready, write_results

# Per-pc tables (simt_sim/machine/tables.py builds them from the config and the ISA table).
Tables = namedtuple("Tables", "unit own_unit cls lat ii srcs dsts unit_pipes")
# unit: the unit whose pipes the instruction uses (after shared_with); own_unit: its own class
# Timing state.  Per warp: w_*; per scheduler: sched_*; per SM: sm_use (threads, warps, blocks,
# registers, shared bytes in use).  `now`: [cycle, instructions left in this slice, age counter,
# scheduler-cycles that issued, trace fill, stall-log fill, blocks to place flag].
TState = namedtuple("TState", "reg_ready reg_kind w_drain w_resume w_rkind w_age w_acct w_notsel w_next w_next_kind "
                              "w_last_cycle w_last_count w_pool w_pool_stamp occupied unit_free "
                              "sched_last sched_wake order n_order slot_kernel sm_use kinfo stats stall whist "
                              "unit_busy unit_insts trace tlog now scratch addrs candidates")
N_NOW, N_SLICE, N_AGE, N_ISSUE_CYCLES, N_TRACE, N_TLOG, N_PLACE = range(7)
U_THREADS, U_WARPS, U_BLOCKS, U_REGS, U_SMEM = range(5)

G_WS, G_WPB, G_MAXI, G_LOCAL = G["warp_size"], G["wpb"], G["max_warp_insts"], G["local_bytes"]
T_NSM, T_NSP, T_SPM, T_WPSM = TC["n_sm"], TC["n_sp"], TC["slots_per_sm"], TC["warps_per_sm"]
T_POLICY, T_WIDTH, T_PER_WARP, T_POOL = TC["policy"], TC["issue_width"], TC["max_per_warp"], TC["pool"]
T_BRANCH, T_BARRIER, T_LAUNCH = TC["branch_latency"], TC["barrier_latency"], TC["block_launch"]
T_PARAM, T_SECTOR, T_MAXC, T_TRACE = TC["param_latency"], TC["sector_bytes"], TC["max_cycles"], TC["record_trace"]
T_MAX_THREADS, T_MAX_WARPS, T_MAX_BLOCKS = TC["max_sm_threads"], TC["max_sm_warps"], TC["max_sm_blocks"]
T_REGS, T_SMEM = TC["sm_registers"], TC["sm_shared"]
T_KLAUNCH = TC["kernel_launch"]
LOCAL_TIMING_BASE = np.int64(1) << 56      # local memory's place in the cache model's address space


# ------------------------------------------------------------------ stall accounting
@compiled
def log_stall(ts, tc, gid, start, end, reason):
    if tc[T_TRACE] and end > start:
        i = ts.now[N_TLOG]
        if i < ts.tlog.shape[0]:
            ts.tlog[i, 0] = gid
            ts.tlog[i, 1] = start
            ts.tlog[i, 2] = end
            ts.tlog[i, 3] = reason
        ts.now[N_TLOG] = i + 1


@compiled
def account(ts, tc, k, w, gid, cycle, throttle):
    """Attribute warp w's cycles since it could last issue, up to `cycle`, to stall reasons:
    resume delay (branch, barrier, launch), then operands, then unit or selection."""
    a = ts.w_acct[w]
    if cycle <= a:
        return
    r_end = min(max(ts.w_resume[w], a), cycle)
    ts.stall[k, ts.w_rkind[w]] += r_end - a
    log_stall(ts, tc, gid, a, r_end, ts.w_rkind[w])
    o_end = min(max(ts.w_next[w], r_end), cycle)
    ts.stall[k, ts.w_next_kind[w]] += o_end - r_end
    log_stall(ts, tc, gid, r_end, o_end, ts.w_next_kind[w])
    rest = cycle - o_end
    notsel = min(ts.w_notsel[w], rest)
    ts.stall[k, R_NOT_SELECTED] += notsel
    ts.stall[k, throttle] += rest - notsel
    # which of the ready cycles were unit waits and which lost selection is counted, not ordered:
    # the log shows the unit waits first
    log_stall(ts, tc, gid, o_end, cycle - notsel, throttle)
    log_stall(ts, tc, gid, cycle - notsel, cycle, R_NOT_SELECTED)
    ts.w_notsel[w] = 0
    ts.w_acct[w] = cycle


# ------------------------------------------------------------------ block scheduler
@compiled
def block_fits(ts, tc, k, sm):
    ki = ts.kinfo
    use = ts.sm_use[sm]
    return (use[U_BLOCKS] + 1 <= tc[T_MAX_BLOCKS]
            and use[U_THREADS] + ki[k, KF_THREADS_PER_BLOCK] <= tc[T_MAX_THREADS]
            and use[U_WARPS] + ki[k, KF_WARPS_PER_BLOCK] <= tc[T_MAX_WARPS]
            and use[U_REGS] + ki[k, KF_REGS_PER_WARP] * ki[k, KF_WARPS_PER_BLOCK] <= tc[T_REGS]
            and use[U_SMEM] + ki[k, KF_SHARED_PER_BLOCK] <= tc[T_SMEM])


@compiled
def free_slot(slot_block, tc, sm):
    for s in range(sm * tc[T_SPM], (sm + 1) * tc[T_SPM]):
        if slot_block[s] < 0:
            return s
    return -1


@compiled
def stream_blocked(ki, k):
    for j in range(k):
        if ki[j, KF_STREAM] == ki[k, KF_STREAM] and ki[j, KF_STATE] != KSTATE_DONE:
            return True
    return False


@compiled
def place_blocks(code, regs, ws, mem, kgeom, slot_block, ts, tab, tc, cycle):
    """Start kernels whose stream predecessor is done and place their waiting blocks, breadth-first
    over the SMs.  Returns the next cycle at which a waiting kernel becomes ready (or INF)."""
    ki = ts.kinfo
    wake = INF
    for k in range(ki.shape[0]):
        if ki[k, KF_STATE] == KSTATE_DONE:
            continue
        if ki[k, KF_STATE] == KSTATE_WAITING:
            if stream_blocked(ki, k):
                continue
            if cycle < ki[k, KF_READY_AT]:
                wake = min(wake, ki[k, KF_READY_AT])
                continue
            ki[k, KF_STATE] = KSTATE_RUNNING
            ki[k, KF_FIRST_CYCLE] = max(ki[k, KF_READY_AT] - tc[T_KLAUNCH], 0)   # launch overhead counts
        n_sm = tc[T_NSM]
        tried = 0
        sm = ki[k, KF_NEXT_BLOCK] % n_sm        # round robin continues where it stopped
        while ki[k, KF_NEXT_BLOCK] < ki[k, KF_BLOCKS] and tried < n_sm:
            slot = free_slot(slot_block, tc, sm)
            if slot >= 0 and block_fits(ts, tc, k, sm):
                start_block(code, regs, ws, mem, kgeom, slot_block, ts, tab, tc, k, slot, sm, cycle)
                tried = 0
            else:
                tried += 1
            sm = (sm + 1) % n_sm
    return wake


@compiled
def start_block(code, regs, ws, mem, kgeom, slot_block, ts, tab, tc, k, slot, sm, cycle):
    ki = ts.kinfo
    block = ki[k, KF_NEXT_BLOCK]
    ki[k, KF_NEXT_BLOCK] = block + 1
    geom = kgeom[k]
    launch_block(slot, block, regs, ws, mem, geom, slot_block)
    ts.slot_kernel[slot] = k
    use = ts.sm_use[sm]
    use[U_BLOCKS] += 1
    use[U_THREADS] += ki[k, KF_THREADS_PER_BLOCK]
    use[U_WARPS] += ki[k, KF_WARPS_PER_BLOCK]
    use[U_REGS] += ki[k, KF_REGS_PER_WARP] * ki[k, KF_WARPS_PER_BLOCK]
    use[U_SMEM] += ki[k, KF_SHARED_PER_BLOCK]
    wpb = geom[G_WPB]
    start = cycle + tc[T_LAUNCH]
    for w in range(slot * wpb, slot * wpb + wpb):
        ws.gid[w] += ki[k, KF_GID_BASE]
        ws.pc[w] = ki[k, KF_PC_BASE]
        ts.reg_ready[w, :] = 0
        ts.w_drain[w] = 0
        ts.w_resume[w] = start
        ts.w_rkind[w] = R_NO_INST
        ts.w_age[w] = ts.now[N_AGE]
        ts.now[N_AGE] += 1
        ts.w_acct[w] = cycle
        ts.w_notsel[w] = 0
        ts.w_next[w] = 0
        ts.w_next_kind[w] = R_WAIT
        ts.w_last_cycle[w] = -1
        ts.w_pool[w] = 0
        ts.w_pool_stamp[w] = cycle
        ts.occupied[w] = 1 if ws.status[w] != W_DONE else 0
    for sp in range(tc[T_NSP]):
        rebuild_order(ts.order, ts.n_order, ts.w_age, ts.occupied, sm, sp, tc[T_NSP], tc[T_WPSM])
        ts.sched_wake[sm, sp] = min(ts.sched_wake[sm, sp], start)


@compiled
def finish_block(ws, slot_block, ts, tc, kgeom, warp_max_sp, counters, slot, sm, cycle):
    k = ts.slot_kernel[slot]
    ki = ts.kinfo
    wpb = kgeom[k][G_WPB]
    for w in range(slot * wpb, slot * wpb + wpb):
        ts.occupied[w] = 0
        ts.w_pool[w] = 0
    retire_slot(ws, slot, wpb, slot_block, warp_max_sp, counters)
    use = ts.sm_use[sm]
    use[U_BLOCKS] -= 1
    use[U_THREADS] -= ki[k, KF_THREADS_PER_BLOCK]
    use[U_WARPS] -= ki[k, KF_WARPS_PER_BLOCK]
    use[U_REGS] -= ki[k, KF_REGS_PER_WARP] * ki[k, KF_WARPS_PER_BLOCK]
    use[U_SMEM] -= ki[k, KF_SHARED_PER_BLOCK]
    for sp in range(tc[T_NSP]):
        rebuild_order(ts.order, ts.n_order, ts.w_age, ts.occupied, sm, sp, tc[T_NSP], tc[T_WPSM])
    ki[k, KF_BLOCKS_DONE] += 1
    ts.now[N_PLACE] = 1
    if ki[k, KF_BLOCKS_DONE] == ki[k, KF_BLOCKS]:
        end = max(cycle + 1, ki[k, KF_LAST_COMPLETE])
        ki[k, KF_END_CYCLE] = end
        ki[k, KF_STATE] = KSTATE_DONE
        for j in range(k + 1, ki.shape[0]):       # the next kernel of this stream may start
            if ki[j, KF_STREAM] == ki[k, KF_STREAM] and ki[j, KF_STATE] == KSTATE_WAITING:
                ki[j, KF_READY_AT] = max(ki[j, KF_READY_AT], end + tc[T_KLAUNCH])
                break


# ------------------------------------------------------------------ issue
@compiled
def pipe_free(ts, tab, sm, sp, pc, cycle):
    """Index of a pipe of pc's unit that accepts an instruction at cycle, or -1."""
    u = tab.unit[pc]
    for p in range(tab.unit_pipes[u]):
        if ts.unit_free[sm, sp, u, p] <= cycle:
            return p
    return -1


@compiled
def earliest_pipe(ts, tab, sm, sp, pc):
    u = tab.unit[pc]
    best = INF
    for p in range(tab.unit_pipes[u]):
        best = min(best, ts.unit_free[sm, sp, u, p])
    return best


@compiled
def can_issue(ws, ts, tab, tc, w, sm, sp, cycle):
    if ws.status[w] != W_READY or cycle < ts.w_resume[w] or cycle < ts.w_next[w]:
        return False
    if ts.w_last_cycle[w] == cycle and ts.w_last_count[w] >= tc[T_PER_WARP]:
        return False
    return pipe_free(ts, tab, sm, sp, ws.pc[w], cycle) >= 0


@compiled
def throttle_reason(code, tab, pc):
    if tab.cls[pc] == CL_MEM:
        return R_MIO if code.rows[pc, E.F_SPACE] == E.SP_SHARED else R_LG
    return R_PIPE


@compiled
def memory_ready(code, regs, ws, ts, mt, tc, tf, kgeom_k, w, pc, exec_mask, sm, cycle):
    """Gather the lanes' addresses (before the instruction runs: it may overwrite its address
    register) and return (ready cycle, stall class) from the memory model."""
    row = code.rows[pc]
    op = row[E.F_OP]
    space = row[E.F_SPACE]
    ty = row[E.F_TYPE]
    width = E.TYPE_BITS[ty] // 8 if ty != E.T_PRED else 1
    nbytes = width * row[E.F_VEC]
    addr_k = 0 if op == E.OP_ST or op == E.OP_RED else 1
    b = E.F_OPS + addr_k * E.OPERAND_FIELDS
    aidx = row[b + 1]
    aoff = row[b + 2]
    wsz = kgeom_k[G_WS]
    base_t = w * wsz
    local_bytes = kgeom_k[G_LOCAL]
    n = 0
    kind_space = space
    for lane in range(wsz):
        if (exec_mask >> lane) & 1:
            sp, addr = generic_to_space(space, lane_address(regs, aidx, aoff, base_t + lane))
            if sp == E.SP_LOCAL:     # interleaved per warp, as hardware lays out local memory
                addr = LOCAL_TIMING_BASE + ((ws.gid[w] * local_bytes + addr) // 4) * wsz * 4 + lane * 4 + addr % 4
                sp = E.SP_GLOBAL
            kind_space = sp
            ts.addrs[n] = addr
            n += 1
    is_atomic = op == E.OP_ATOM or op == E.OP_RED
    if n == 0:
        return cycle + 1, R_WAIT
    if kind_space == E.SP_PARAM or kind_space == E.SP_CONST:
        return cycle + tc[T_PARAM], R_WAIT
    serial = MT.max_same_address(ts.addrs, n, ts.scratch) if is_atomic else 0
    if kind_space == E.SP_SHARED:
        ways = MT.bank_ways(ts.addrs, n, nbytes, tc, ts.scratch)
        return MT.shared_access(mt, tc, sm, cycle, ways, serial), R_SHORT
    n_sect = MT.sectors_of(ts.addrs, n, nbytes, tc[T_SECTOR], ts.scratch)
    skip_l1 = (row[E.F_FLAGS] & E.FL_L1_BYPASS) != 0
    return MT.global_access(mt, tc, tf, sm, cycle, ts.scratch, n_sect, op == E.OP_ST, skip_l1, serial,
                            ts.scratch[256:], ts.scratch[384:]), R_LONG


@compiled
def result_timing(code, regs, ws, ts, mt, tab, tc, tf, kgeom_k, w, pc, exec_mask, sm, cycle):
    """(ready cycle, stall class) of pc's results, decided before it executes."""
    cls = tab.cls[pc]
    if cls == CL_MEM:
        return memory_ready(code, regs, ws, ts, mt, tc, tf, kgeom_k, w, pc, exec_mask, sm, cycle)
    if cls == CL_ALU or cls == CL_SFU:
        return cycle + max(tab.lat[pc], tab.ii[pc]), (R_SHORT if cls == CL_SFU else R_WAIT)
    return cycle + 1, R_WAIT        # control flow writes no registers; its delay is the resume time


@compiled
def record_issue(ts, tc, cycle, gid, pc, mask, exec_mask, unit, sm, sp, k, ready):
    i = ts.now[N_TRACE]
    if i < ts.trace.shape[0]:
        t = ts.trace[i]
        t[TR_CYCLE] = cycle
        t[TR_GID] = gid
        t[TR_PC] = pc
        t[TR_MASK] = mask
        t[TR_EXEC] = exec_mask
        t[TR_UNIT] = unit
        t[TR_SM] = sm
        t[TR_SP] = sp
        t[TR_KERNEL] = k
        t[TR_READY] = ready
    ts.now[N_TRACE] = i + 1


@compiled
def release_barrier(ws, ts, tc, w, wpb, sm, cycle):
    """Warps that were waiting at their block's barrier and are now released resume after the
    barrier latency."""
    first = (w // wpb) * wpb
    resume = cycle + tc[T_BARRIER]
    for v in range(first, first + wpb):
        if ts.w_rkind[v] == R_BARRIER and ts.w_resume[v] == INF and ws.status[v] == W_READY:
            ts.w_resume[v] = resume
            sp = (v - sm * tc[T_WPSM]) % tc[T_NSP]
            ts.sched_wake[sm, sp] = min(ts.sched_wake[sm, sp], resume)


@compiled
def issue(code, regs, ws, mem, kgeom, slot_block, counters, thread_icount, warp_max_sp, hist, ev, fault,
          tc, tf, tab, ts, mt, w, sm, sp, cycle):
    """Issue warp w's next instruction at cycle.  Returns False on a fault."""
    slot = w // kgeom[0][G_WPB]
    k = ts.slot_kernel[slot]
    geom = kgeom[k]
    pc = ws.pc[w]
    row = code.rows[pc]
    gid = ws.gid[w]
    mask = ws.mask[w]
    exec_mask = guard_mask(row, regs, w * geom[G_WS], mask, geom[G_WS])
    account(ts, tc, k, w, gid, cycle, throttle_reason(code, tab, pc))
    ts.stall[k, R_SELECTED] += 1
    ready, kind = result_timing(code, regs, ws, ts, mt, tab, tc, tf, geom, w, pc, exec_mask, sm, cycle)
    counters[C_CLOCK] = cycle
    if step_warp(code, regs, ws, mem, w, geom, slot_block, counters, thread_icount, hist, ev,
                 fault) == STEP_FAULT:
        return False
    u = tab.unit[pc]
    p = pipe_free(ts, tab, sm, sp, pc, cycle)
    ts.unit_free[sm, sp, u, p] = cycle + tab.ii[pc]
    ts.unit_busy[k, u] += tab.ii[pc]
    ts.unit_insts[k, tab.own_unit[pc]] += 1
    write_results(tab, ts.reg_ready, ts.reg_kind, w, pc, ready, kind)
    if tab.cls[pc] == CL_MEM and tab.dsts[pc, 0] >= 0:
        # exit waits for outstanding loads (their registers are still to be written); stores
        # need no registers once issued and only delay the kernel's end
        ts.w_drain[w] = max(ts.w_drain[w], ready)
    st = ts.stats[k]
    st[STAT_WARP_INSTS] += 1
    n_exec = popcount64(exec_mask)
    st[STAT_THREAD_INSTS] += n_exec
    n_active = popcount64(mask)
    st[STAT_ACTIVE_LANES] += n_active
    ts.whist[k, n_active] += 1
    ki = ts.kinfo
    ki[k, KF_LAST_COMPLETE] = max(ki[k, KF_LAST_COMPLETE], ready)
    if tc[T_TRACE]:
        record_issue(ts, tc, cycle, gid, pc, mask, exec_mask, u, sm, sp, k, ready)
    if ts.w_last_cycle[w] == cycle:
        ts.w_last_count[w] += 1
    else:
        ts.w_last_cycle[w] = cycle
        ts.w_last_count[w] = 1
    ts.now[N_SLICE] -= 1
    cls = tab.cls[pc]
    ts.w_acct[w] = cycle + 1
    ts.w_resume[w] = cycle          # may issue again this cycle if max_issue_per_warp allows
    ts.w_rkind[w] = R_WAIT
    if cls == CL_BRANCH:
        ts.w_resume[w] = cycle + max(tc[T_BRANCH], 1)
        ts.w_rkind[w] = R_BRANCH
    status = ws.status[w]
    if cls == CL_BARRIER:
        ts.w_rkind[w] = R_BARRIER
        ts.w_resume[w] = INF if status == W_BARRIER else cycle + tc[T_BARRIER]
    if cls == CL_BARRIER or status == W_DONE:
        release_barrier(ws, ts, tc, w, geom[G_WPB], sm, cycle)
    if status == W_DONE:
        if slot_finished(ws, slot, geom[G_WPB]):
            finish_block(ws, slot_block, ts, tc, kgeom, warp_max_sp, counters, slot, sm, cycle)
    else:
        nxt, nkind = operands_ready(tab, ts.reg_ready, ts.reg_kind, w, ws.pc[w])
        if tab.cls[ws.pc[w]] == CL_EXIT and ts.w_drain[w] > nxt:
            nxt = ts.w_drain[w]       # a warp exits only when its outstanding results are written
            nkind = R_DRAIN
        ts.w_next[w] = nxt
        ts.w_next_kind[w] = nkind
    return True


@compiled
def scan_scheduler(code, regs, ws, mem, kgeom, slot_block, counters, thread_icount, warp_max_sp, hist, ev,
                   fault, tc, tf, tab, ts, mt, sm, sp, cycle, cand):
    """One scheduler's cycle: issue up to issue_width eligible warp-instructions in policy order.
    Returns the number issued, or -1 on a fault."""
    n = candidates(tc[T_POLICY], ts.order, ts.n_order, ts.sched_last[sm, sp], ts.w_pool, tc[T_POOL],
                   ts.w_next, ts.w_next_kind, ts.w_pool_stamp, cycle, sm, sp, tc[T_NSP], tc[T_WPSM], ws.status, cand)
    issued = 0
    width = tc[T_WIDTH]
    for j in range(n):
        w = cand[j]
        while issued < width and can_issue(ws, ts, tab, tc, w, sm, sp, cycle):
            if not issue(code, regs, ws, mem, kgeom, slot_block, counters, thread_icount, warp_max_sp, hist,
                         ev, fault, tc, tf, tab, ts, mt, w, sm, sp, cycle):
                return -1
            issued += 1
            ts.sched_last[sm, sp] = w
        if issued >= width:
            for jj in range(j + 1, n):     # eligible warps left waiting this cycle
                v = cand[jj]
                if can_issue(ws, ts, tab, tc, v, sm, sp, cycle):
                    ts.w_notsel[v] += 1
            break
    if issued > 0:
        ts.sched_wake[sm, sp] = cycle + 1
        ts.now[N_ISSUE_CYCLES] += 1
    else:
        ts.sched_wake[sm, sp] = next_wake(ws, ts, tab, tc, sm, sp, cycle)
    return issued


@compiled
def next_wake(ws, ts, tab, tc, sm, sp, cycle):
    """Earliest cycle at which one of the scheduler's warps may become eligible."""
    wake = INF
    for j in range(ts.n_order[sm, sp]):
        w = ts.order[sm, sp, j]
        if ws.status[w] != W_READY:
            continue
        t = max(ts.w_resume[w], ts.w_next[w], earliest_pipe(ts, tab, sm, sp, ws.pc[w]), cycle + 1)
        wake = min(wake, t)
    return wake


@compiled
def all_done(ki):
    for k in range(ki.shape[0]):
        if ki[k, KF_STATE] != KSTATE_DONE:
            return False
    return True


@compiled
def stuck_warp(ws):
    for w in range(ws.status.shape[0]):
        if ws.status[w] == W_BARRIER or ws.status[w] == W_READY:
            return w
    return 0


@compiled
def run_timed(code, regs, ws, mem, kgeom, slot_block, counters, thread_icount, warp_max_sp, hist, ev, fault,
              tc, tf, tab, ts, mt):
    """Run until every kernel is done (RUN_DONE), a fault, a full buffer or the end of a slice
    (the caller empties buffers / prints progress and calls again)."""
    n_sm = tc[T_NSM]
    n_sp = tc[T_NSP]
    per_cycle = n_sm * n_sp * tc[T_WIDTH]
    cand = ts.candidates
    kernel_wake = place_blocks(code, regs, ws, mem, kgeom, slot_block, ts, tab, tc, ts.now[N_NOW])
    while True:
        cycle = ts.now[N_NOW]
        if ts.now[N_PLACE] or cycle >= kernel_wake:
            ts.now[N_PLACE] = 0
            kernel_wake = place_blocks(code, regs, ws, mem, kgeom, slot_block, ts, tab, tc, cycle)
        if all_done(ts.kinfo):
            return RUN_DONE
        if cycle >= tc[T_MAXC]:
            w = stuck_warp(ws)
            set_fault(fault, FAULT_CYCLE_LIMIT, ws.gid[w], -1, ws.pc[w], 0, tc[T_MAXC])
            return RUN_FAULT
        if counters[C_WARP_INSTS] + per_cycle > kgeom[0][G_MAXI]:
            w = stuck_warp(ws)
            set_fault(fault, FAULT_LIMIT, ws.gid[w], -1, ws.pc[w], 0, kgeom[0][G_MAXI])
            return RUN_FAULT
        if hist.shape[0] > 0 and counters[C_HIST] + per_cycle >= hist.shape[0]:
            return RUN_HISTORY_FULL
        if counters[C_EVENTS] + 4 * per_cycle >= ev.shape[0]:
            return RUN_EVENTS_FULL
        if tc[T_TRACE] and (ts.now[N_TRACE] + per_cycle >= ts.trace.shape[0]
                            or ts.now[N_TLOG] + 3 * per_cycle + 3 * ws.status.shape[0] >= ts.tlog.shape[0]):
            return RUN_TRACE_FULL
        if ts.now[N_SLICE] <= 0:
            return RUN_SLICE
        any_issue = False
        for sm in range(n_sm):
            for sp in range(n_sp):
                if ts.sched_wake[sm, sp] > cycle:
                    continue
                got = scan_scheduler(code, regs, ws, mem, kgeom, slot_block, counters, thread_icount,
                                     warp_max_sp, hist, ev, fault, tc, tf, tab, ts, mt, sm, sp, cycle, cand)
                if got < 0:
                    return RUN_FAULT
                if got > 0:
                    any_issue = True
        if any_issue or ts.now[N_PLACE]:
            ts.now[N_NOW] = cycle + 1
            continue
        nxt = kernel_wake
        for sm in range(n_sm):
            for sp in range(n_sp):
                nxt = min(nxt, ts.sched_wake[sm, sp])
        if nxt >= INF:
            if all_done(ts.kinfo):
                return RUN_DONE
            w = stuck_warp(ws)
            set_fault(fault, FAULT_DEADLOCK, ws.gid[w], -1, ws.pc[w], 0, w // kgeom[0][G_WPB])
            return RUN_FAULT
        ts.now[N_NOW] = max(nxt, cycle + 1)
