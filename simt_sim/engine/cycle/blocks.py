"""The block scheduler: starts kernels whose stream predecessor is done, places their blocks on
SMs breadth-first under the occupancy limits, and retires finished blocks."""
from __future__ import annotations

from simt_sim.engine.cycle.caches import invalidate_l1
from simt_sim.engine.cycle.fetch import first_line
from simt_sim.engine.cycle.scheduler import rebuild_order
from simt_sim.engine.functional.loop import launch_block, retire_slot
from simt_sim.engine.jit import compiled
from simt_sim.machine.layout import (G, INF, N_COPY_GROUPS, N_REUSE_SLOTS, N_SB, U_NEXT_START, WF_COPIES_OPEN, WF_GROUP, WF_DEFERRED, WF_BAR_RELEASE, WF_MISSES_DONE, WF_STORES_DONE, WF_PREV_ISSUE, WF_REUSE, WF_SB, WF_WAIT_UNTIL, KF_BLOCKS, KF_BLOCKS_DONE, KF_END_CYCLE, KF_FIRST_CYCLE, KF_GID_BASE,
                                     KF_LAST_COMPLETE, KF_NEXT_BLOCK, KF_PC_BASE, KF_READY_AT, KF_REGS_PER_WARP,
                                     KF_SHARED_PER_BLOCK, KF_STATE, KF_STREAM, KF_THREADS_PER_BLOCK,
                                     KF_WARPS_PER_BLOCK, KSTATE_DONE, KSTATE_RUNNING, KSTATE_WAITING, N_AGE,
                                     N_PLACE, R_NO_INST, R_WAIT, SC_WAKE, TC, U_BLOCKS, U_REGS, U_SMEM,
                                     U_LIVE, U_THREADS, U_WAKE, U_WARPS, W_DONE, WF_ACCOUNTED, WF_AGE, WF_BLOCK_AGE, WF_DRAIN, WF_GID,
                                     WF_HELD, WF_LAST_CYCLE, WF_NOT_SELECTED, WF_OCCUPIED, WF_NEXT_LINE, WF_OPERANDS_AT, WF_PASS,
                                     WF_OPERANDS_KIND, WF_PC, WF_POOL, WF_POOL_STAMP, WF_RESUME, WF_RESUME_KIND,
                                     WF_STATUS)

G_WPB = G["wpb"]
T_NSM, T_NSP, T_SPM, T_WPSM = TC["n_sm"], TC["n_sp"], TC["slots_per_sm"], TC["warps_per_sm"]
T_LAUNCH, T_KLAUNCH, T_INTERVAL = TC["block_launch"], TC["kernel_launch"], TC["block_interval"]
T_KGAP, T_FETCH, T_L1_INVALIDATE = TC["stream_kernel_gap"], TC["fetch"], TC["l1_invalidate"]
T_MAX_THREADS, T_MAX_WARPS, T_MAX_BLOCKS = TC["max_sm_threads"], TC["max_sm_warps"], TC["max_sm_blocks"]
T_REGS, T_SMEM = TC["sm_registers"], TC["sm_shared"]


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
def place_blocks(regs, ws, mem, kgeom, slot_block, ts, tc, mt, cycle):
    """Start kernels whose stream predecessor is done (the L1s invalidated: memory.l1.invalidate_at_launch)
    and place their waiting blocks, breadth-first over the SMs.  Returns the next cycle at which a
    waiting kernel becomes ready (or INF)."""
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
            if tc[T_L1_INVALIDATE]:
                invalidate_l1(mt)
            ki[k, KF_FIRST_CYCLE] = max(ki[k, KF_READY_AT] - tc[T_KLAUNCH], 0)   # launch overhead counts
        n_sm = tc[T_NSM]
        tried = 0
        sm = ki[k, KF_NEXT_BLOCK] % n_sm        # round robin continues where it stopped
        while ki[k, KF_NEXT_BLOCK] < ki[k, KF_BLOCKS] and tried < n_sm:
            slot = free_slot(slot_block, tc, sm)
            if slot >= 0 and block_fits(ts, tc, k, sm):
                start_block(regs, ws, mem, kgeom, slot_block, ts, tc, k, slot, sm, cycle)
                tried = 0
            else:
                tried += 1
            sm = (sm + 1) % n_sm
    return wake


@compiled
def claim(use, ki, k, sign):
    """Add (sign 1) or give back (sign -1) one block of kernel k's resources on an SM."""
    use[U_BLOCKS] += sign
    use[U_THREADS] += sign * ki[k, KF_THREADS_PER_BLOCK]
    use[U_WARPS] += sign * ki[k, KF_WARPS_PER_BLOCK]
    use[U_REGS] += sign * ki[k, KF_REGS_PER_WARP] * ki[k, KF_WARPS_PER_BLOCK]
    use[U_SMEM] += sign * ki[k, KF_SHARED_PER_BLOCK]


@compiled
def start_block(regs, ws, mem, kgeom, slot_block, ts, tc, k, slot, sm, cycle):
    ki = ts.kinfo
    block = ki[k, KF_NEXT_BLOCK]
    ki[k, KF_NEXT_BLOCK] = block + 1
    geom = kgeom[k]
    launch_block(slot, block, regs, ws, mem, geom, slot_block)
    ts.slot_kernel[slot] = k
    claim(ts.sm_use[sm], ki, k, 1)
    wpb = geom[G_WPB]
    begin = max(cycle, ts.sm_use[sm, U_NEXT_START])       # blocks start one after another
    ts.sm_use[sm, U_NEXT_START] = begin + tc[T_INTERVAL]
    start = begin + tc[T_LAUNCH]
    wf = ws.f
    block_age = ts.now[N_AGE]
    for w in range(slot * wpb, slot * wpb + wpb):
        wf[w, WF_BLOCK_AGE] = block_age
        wf[w, WF_GID] += ki[k, KF_GID_BASE]
        wf[w, WF_PC] = ki[k, KF_PC_BASE]
        ts.reg_ready[w, :] = 0
        wf[w, WF_DRAIN] = 0
        wf[w, WF_RESUME] = start
        wf[w, WF_RESUME_KIND] = R_NO_INST
        wf[w, WF_AGE] = ts.now[N_AGE]
        ts.now[N_AGE] += 1
        wf[w, WF_ACCOUNTED] = cycle
        wf[w, WF_NOT_SELECTED] = 0
        wf[w, WF_HELD] = 0
        wf[w, WF_PASS] = 0
        wf[w, WF_NEXT_LINE] = 0
        wf[w, WF_OPERANDS_AT] = 0
        wf[w, WF_OPERANDS_KIND] = R_WAIT
        wf[w, WF_LAST_CYCLE] = -1
        wf[w, WF_POOL] = 0
        wf[w, WF_POOL_STAMP] = cycle
        wf[w, WF_OCCUPIED] = 1 if wf[w, WF_STATUS] != W_DONE else 0
        wf[w, WF_SB:WF_SB + N_SB] = 0            # the previous block's stores may still hold barriers
        wf[w, WF_COPIES_OPEN:WF_GROUP + N_COPY_GROUPS] = 0
        wf[w, WF_REUSE:WF_REUSE + N_REUSE_SLOTS] = 0         # an empty reuse cache
        wf[w, WF_PREV_ISSUE] = 0
        wf[w, WF_WAIT_UNTIL] = 0                  # no taken branch's wait to name
        wf[w, WF_DEFERRED] = 0
        wf[w, WF_BAR_RELEASE] = 0
        wf[w, WF_STORES_DONE] = 0
        wf[w, WF_MISSES_DONE] = 0
        ts.sm_use[sm, U_LIVE] += wf[w, WF_OCCUPIED]
        if tc[T_FETCH] and wf[w, WF_OCCUPIED]:
            first_line(wf, ts, tc, w, sm, start)
    for sp in range(tc[T_NSP]):
        rebuild_order(ts.order, ts.sched, wf, sm, sp, tc[T_NSP], tc[T_WPSM])
        ts.sched[sm, sp, SC_WAKE] = min(ts.sched[sm, sp, SC_WAKE], start)
    ts.sm_use[sm, U_WAKE] = min(ts.sm_use[sm, U_WAKE], start)


@compiled
def finish_block(ws, slot_block, ts, tc, kgeom, warp_max_sp, counters, slot, sm, cycle):
    k = ts.slot_kernel[slot]
    ki = ts.kinfo
    wpb = kgeom[k][G_WPB]
    for w in range(slot * wpb, slot * wpb + wpb):
        ws.f[w, WF_OCCUPIED] = 0
        ws.f[w, WF_POOL] = 0
    retire_slot(ws, slot, wpb, slot_block, warp_max_sp, counters)
    claim(ts.sm_use[sm], ki, k, -1)
    for sp in range(tc[T_NSP]):
        rebuild_order(ts.order, ts.sched, ws.f, sm, sp, tc[T_NSP], tc[T_WPSM])
    ki[k, KF_BLOCKS_DONE] += 1
    ts.now[N_PLACE] = 1
    if ki[k, KF_BLOCKS_DONE] == ki[k, KF_BLOCKS]:
        end = max(cycle + 1, ki[k, KF_LAST_COMPLETE])
        ki[k, KF_END_CYCLE] = end
        ki[k, KF_STATE] = KSTATE_DONE
        for j in range(k + 1, ki.shape[0]):       # the next kernel of this stream may start
            if ki[j, KF_STREAM] == ki[k, KF_STREAM] and ki[j, KF_STATE] == KSTATE_WAITING:
                ki[j, KF_READY_AT] = max(ki[j, KF_READY_AT], end + tc[T_KLAUNCH] + tc[T_KGAP])
                break
