"""The issue stage of one sub-partition scheduler: which warps are eligible this cycle, issuing
one (execute it, time its results, occupy its pipe, count it), and when to look again.

Execution is at issue: the chosen warp runs `execute.step_warp` at cycle c (so %clock reads c) and
its results are marked ready at c + latency (units), or when the memory model says the data
arrives.  The functions on the per-instruction path are inlined into the cycle loop, so the
state records are not passed again for every warp-instruction.
"""
from __future__ import annotations

from simt_sim.engine.cycle.blocks import finish_block
from simt_sim.engine.cycle.caches import sm_unit_start
from simt_sim.engine.cycle.constants import immediate_constant_ready, ldc_line_ready
from simt_sim.engine.cycle.fetch import T_FETCH, fetch_next
from simt_sim.engine.cycle.memory_access import memory_ready
from simt_sim.engine.cycle.regfile import T_BANKS, T_WRITE_PORT, book_write, keep_reused, read_operands, write_port_taken
from simt_sim.engine.cycle.scheduler import candidates, charge_age_pass, charge_pass, grr_family
from simt_sim.engine.cycle.scoreboard import (barriers_clear, groups_done, operands_ready, set_barriers,
                                              track_copy_groups, write_results)
from simt_sim.engine.cycle.slots import sub_partition
from simt_sim.engine.cycle.stalls import account, account_ahead, sampled
from simt_sim.engine.cycle.units import accept_at, accepts, enqueue, hold_warp, occupy_pipe, pipe_time
from simt_sim.engine.functional.execute import STEP_FAULT, guard_mask, step_warp
from simt_sim.engine.functional.loop import slot_finished
from simt_sim.engine.functional.simt_stack import popcount64
from simt_sim.engine.jit import compiled, compiled_inline, unless_none
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (LAST_MATH_UNIT, WF_GREEDY, C_CLOCK, SC_STORE_DATA, SCRATCH_DATA_CYCLES, SCRATCH_SECTOR_COUNTS, SECT_L2_READ, SECTOR_FIELDS, CL_BARRIER, CL_BRANCH, CL_EXIT, CL_MEM, CL_SFU, CL_ALU, G, INF,
                                     KF_LAST_COMPLETE, KS_BUSY, KS_PIPE_INSTS, KS_SECTORS, KS_UNIT_INSTS, KS_WHIST, N_ISSUE_CYCLES,
                                     N_SLICE, N_TRACE, R_BARRIER, R_BRANCH, R_DISPATCH, R_DRAIN, R_LG, R_MIO, R_PIPE,
                                     R_IMC, R_SELECTED, R_SHORT, R_WAIT, SC_CBU, SC_HELD_AT, SC_LAST, SC_RR_FROM, SCHED_AWF, SCHED_GWF, SC_N_ORDER, SC_WAKE, U_LIVE, U_WAKE,
                                     STAT_ACTIVE_LANES, STAT_THREAD_INSTS, STAT_WARP_INSTS, TC, W_BARRIER,
                                     W_DONE, W_READY, WF_ACCOUNTED, WF_DRAIN, WF_GID, WF_LAST_COUNT, WF_LAST_CYCLE,
                                     WF_HELD, WF_MASK, WF_NOT_SELECTED, WF_OPERANDS_AT, WF_OPERANDS_KIND, WF_PC, WF_PREV_ISSUE, WF_RESUME,
                                     WF_BAR_COUNT, WF_BAR_RELEASE, WF_MISSES_DONE, WF_STORES_DONE, WF_DEFERRED, WF_RESUME_KIND, WF_STATUS, WF_WAIT_UNTIL, WF_YIELDED)

G_WS, G_WPB = G["warp_size"], G["wpb"]
N_SECTOR_FIELDS = len(SECTOR_FIELDS)
T_NSP, T_WPSM = TC["n_sp"], TC["warps_per_sm"]
T_POLICY, T_WIDTH, T_PER_WARP, T_POOL = TC["policy"], TC["issue_width"], TC["max_per_warp"], TC["pool"]
T_BRANCH, T_BARRIER, T_TRACE = TC["branch_latency"], TC["barrier_latency"], TC["record_trace"]
T_CTRL, T_READ_LAT, T_TAKEN, T_RECONVERGE = TC["control_codes"], TC["read_latency"], TC["taken_branch"], TC["reconverge"]
T_CBU, T_SWITCH = TC["convergence_cycles"], TC["group_switch"]
T_STORE_READ, T_GLOBAL_STORE_READ = TC["store_data_read"], TC["global_store_data_read"]
T_RESOLVE, T_SLOT_WEIGHT, T_AGE_STEP = TC["branch_resolve"], TC["slot_weight_ppm"], TC["age_step_ppm"]
T_GREEDY = TC["greedy_cycles"]
T_STORE_ACK, T_DEFER, T_AFTER_STORES = TC["store_ack"], TC["deferred_barrier"], TC["barrier_after_stores"]
T_IN_ORDER = TC["loads_in_order"]


@compiled_inline
def warp_ready(wf, w, cycle):
    """Whether warp w waits on nothing of its own (resume delay, operands) at cycle."""
    return wf[w, WF_STATUS] == W_READY and cycle >= wf[w, WF_RESUME] and cycle >= wf[w, WF_OPERANDS_AT]


@compiled_inline
def can_issue(wf, ts, tab, tc, w, sm, sp, cycle):
    if not warp_ready(wf, w, cycle):
        return False
    if wf[w, WF_LAST_CYCLE] == cycle and wf[w, WF_LAST_COUNT] >= tc[T_PER_WARP]:
        return False
    return accepts(ts.unit_free, ts.mem_queue, tab, tc, sm, sp, wf[w, WF_PC], cycle)


@compiled_inline
def pipe_throttled(wf, ts, tab, tc, w, sm, sp, cycle):
    """Whether warp w could issue now but for its busy pipe (or full memory queue)."""
    return warp_ready(wf, w, cycle) and not accepts(ts.unit_free, ts.mem_queue, tab, tc, sm, sp, wf[w, WF_PC], cycle)


@compiled
def no_write_port(sass, wf, ts, tab, tc, w, sm, sp, cycle):
    """Code without SASS rows books no register-file writes."""
    return False


@unless_none(no_write_port)
def dispatch_blocked(sass, wf, ts, tab, tc, w, sm, sp, cycle):
    """Whether the selected warp w's result would land on a booked register-file write: then it
    is held this cycle (a dispatch stall) and the scheduler issues nothing.  (SASS only: `sass` is
    Code.sass, and for code without SASS rows none of the SASS timing in this file is compiled.)"""
    if sass is None:
        return no_write_port(sass, wf, ts, tab, tc, w, sm, sp, cycle)
    if tc[T_WRITE_PORT] and write_port_taken(ts.sched, tab, sm, sp, wf[w, WF_PC], cycle):
        wf[w, WF_HELD] += 1
        return True
    return False


@compiled_inline
def throttle_reason(rows, tab, pc):
    if tab.cls[pc] == CL_MEM:
        return R_MIO if rows[pc, E.F_SPACE] == E.SP_SHARED else R_LG
    return R_PIPE


@compiled_inline
def result_timing(code, regs, mt, tab, tc, tf, scratch, cc, geom, w, gid, pc, exec_mask, sm, cycle):
    """(ready cycle, stall class) of pc's results, decided before it executes (cc: the constant
    caches)."""
    cls = tab.cls[pc]
    if cls == CL_MEM:
        return memory_ready(code.ext, code.rows, regs, mt, tc, tf, scratch, geom, w, gid, pc, exec_mask, sm, cycle)
    if cls == CL_ALU or cls == CL_SFU:
        if tab.sm_unit[pc] >= 0:        # served by a unit the SM's sub-partitions share
            cycle = sm_unit_start(mt, tc, sm, tab.sm_unit[pc], cycle, tab.sm_unit_cycles[pc])
        cycle = ldc_line_ready(code, regs, cc, tab, tc, pc, w * geom[G_WS], exec_mask, sm, cycle)
        return cycle + tab.lat[pc], (R_SHORT if cls == CL_SFU else R_WAIT)
    if cls == CL_BARRIER and tab.sm_unit[pc] >= 0:     # the SM's barrier unit takes the arrival
        cycle = sm_unit_start(mt, tc, sm, tab.sm_unit[pc], cycle, tab.sm_unit_cycles[pc])
    return cycle + 1, R_WAIT        # control flow writes no registers; its delay is the resume time


@compiled
def record_issue(trace, now, fields):
    """One trace row: `fields` in the order of layout.TRACE_FIELDS."""
    i = now[N_TRACE]
    if i < trace.shape[0]:
        for f, v in enumerate(fields):
            trace[i, f] = v
    now[N_TRACE] = i + 1


@compiled
def release_barrier(wf, sched, sm_use, tab, tc, w, wpb, sm, taken, completed):
    """After warp w's arrival at its block's barrier was taken at cycle `taken` (or w exited then),
    the warps that were waiting there and are now released resume after the barrier latency, and
    so does w where it goes on after that latency (not deferred).  If w's arrival `completed` a
    block-wide barrier, every warp of the block waits for the release at its first instruction
    that does not pass (WF_BAR_RELEASE): w itself, and those that arrived deferred and issue on."""
    first = (w // wpb) * wpb
    resume = taken + tc[T_BARRIER]
    for v in range(first, first + wpb):
        if wf[v, WF_RESUME_KIND] == R_BARRIER and wf[v, WF_RESUME] == INF and wf[v, WF_STATUS] == W_READY:
            wf[v, WF_RESUME] = resume
            sp = sub_partition(tc, v, sm)
            sched[sm, sp, SC_WAKE] = min(sched[sm, sp, SC_WAKE], resume)
            sm_use[sm, U_WAKE] = min(sm_use[sm, U_WAKE], resume)
        if completed:
            wf[v, WF_BAR_RELEASE] = resume
    if wf[w, WF_RESUME_KIND] == R_BARRIER and wf[w, WF_RESUME] != INF:
        wf[w, WF_RESUME] = max(wf[w, WF_RESUME], resume)
    elif completed and not passes_barrier(tab.cls[wf[w, WF_PC]]):
        wf[w, WF_RESUME] = max(wf[w, WF_RESUME], resume)
        wf[w, WF_RESUME_KIND] = R_BARRIER


@compiled_inline
def count_issue(kstats, k, u, own_unit, ncu_pipe, ii, mask, exec_mask):
    st = kstats[k]
    st[KS_BUSY + u] += ii
    st[KS_UNIT_INSTS + own_unit] += 1
    st[KS_PIPE_INSTS + ncu_pipe] += 1
    st[STAT_WARP_INSTS] += 1
    st[STAT_THREAD_INSTS] += popcount64(exec_mask)
    n_active = popcount64(mask)
    st[STAT_ACTIVE_LANES] += n_active
    st[KS_WHIST + n_active] += 1


@compiled_inline
def add_sector_counts(kstats, k, scratch):
    """Add where a memory instruction's global sectors went (memory_access.memory_ready) to its kernel's."""
    for f in range(N_SECTOR_FIELDS):
        kstats[k, KS_SECTORS + f] += scratch[SCRATCH_SECTOR_COUNTS + f]


@compiled_inline
def sources_read(row, tc, scratch, sched, sm, sp, cycle):
    """The cycle an instruction issued at cycle has read its sources (its read barrier releases):
    sass.operand_read_latency after issue, however long it then waits in the memory queue, and
    sass.store_data_read_cycles later for the data of a store, reduction or atomic to shared
    memory, sass.global_store_data_read_cycles to anywhere else.  A store's data go through its
    sub-partition's port for them (sass.global_store_bytes_per_cycle, for shared stores
    sass.shared_store_bytes_per_cycle) one store after the other, so a store's read can wait for
    those before it; this books the port."""
    op = row[E.F_OP]
    if op == E.OP_ST or op == E.OP_RED or op == E.OP_ATOM:
        later = tc[T_STORE_READ] if row[E.F_SPACE] == E.SP_SHARED else tc[T_GLOBAL_STORE_READ]
        read = cycle + tc[T_READ_LAT]
        if scratch[SCRATCH_DATA_CYCLES] > 0:
            data = max(cycle, sched[sm, sp, SC_STORE_DATA]) + scratch[SCRATCH_DATA_CYCLES]
            sched[sm, sp, SC_STORE_DATA] = data
            read = max(read, data)
        return read + later
    return cycle + tc[T_READ_LAT]


@compiled_inline
def control_code(rows, tc, pc):
    """pc's SASS control code when the config times by control codes, else -1."""
    return rows[pc, E.F_CTRL] if tc[T_CTRL] else -1


@compiled_inline
def passes_barrier(cls):
    """Whether an instruction of timing class cls may issue past a deferred barrier: any but memory
    accesses, control flow and barriers (the H100 lets ISETP, IMAD.MOV and CS2R pass, and waits at
    LDS, LDC, ULDC, BRA and EXIT)."""
    return cls != CL_MEM and cls != CL_BRANCH and cls != CL_EXIT and cls != CL_BARRIER


@compiled_inline
def after_issue(wf, tab, tc, w, pc, op, cmp, ctrl, ran, completed, cycle):
    """When warp w may issue again and what it waits on, from the class of what it issued (SASS:
    from its stall count, and a taken branch's fetch redirect); `ran`: whether any of its threads
    executed it.  Returns the stall count of a BSYNC that left its group waiting for another to
    run (0 otherwise), for the stall accounting."""
    if wf[w, WF_LAST_CYCLE] == cycle:
        wf[w, WF_LAST_COUNT] += 1
    else:
        wf[w, WF_PREV_ISSUE] = wf[w, WF_LAST_CYCLE]
        wf[w, WF_LAST_CYCLE] = cycle
        wf[w, WF_LAST_COUNT] = 1
    cls = tab.cls[pc]
    wf[w, WF_ACCOUNTED] = cycle + 1
    wf[w, WF_RESUME] = cycle          # may issue again this cycle if max_issue_per_warp allows
    wf[w, WF_RESUME_KIND] = R_WAIT
    wf[w, WF_WAIT_UNTIL] = 0
    wf[w, WF_YIELDED] = 1 if ctrl >= 0 and (ctrl >> E.CTRL_YIELD_SHIFT) & 1 == 0 else 0   # raw 0: yield
    wf[w, WF_GREEDY] = 1 if ctrl >= 0 and wf[w, WF_YIELDED] == 0 and tab.unit[pc] <= LAST_MATH_UNIT else 0
    switched = 0
    if ctrl >= 0:
        coded = max(ctrl & E.CTRL_STALL_MASK, 1)
        stall = coded
        if cls == CL_BRANCH and wf[w, WF_PC] != pc + 1:
            stall = max(stall, tc[T_TAKEN])
            if op == E.OP_S_BSYNC:          # its group waits; another runs
                stall = max(stall, tc[T_SWITCH])
                switched = coded
            if tc[T_RESOLVE] > 0:
                wf[w, WF_WAIT_UNTIL] = cycle + coded
        elif op == E.OP_S_BSYNC and wf[w, WF_PC] == pc + 1:      # the barrier completed: one warp again
            stall = max(stall, tc[T_RECONVERGE])
        elif cls == CL_EXIT and ran and wf[w, WF_STATUS] != W_DONE and wf[w, WF_PC] == pc + 1:
            stall = max(stall, tc[T_RECONVERGE])     # some threads exited; the others go on as one
        wf[w, WF_RESUME] = cycle + stall
        if stall > coded:
            wf[w, WF_RESUME_KIND] = R_BRANCH
    elif cls == CL_BRANCH:
        wf[w, WF_RESUME] = cycle + max(tc[T_BRANCH], 1)
        wf[w, WF_RESUME_KIND] = R_BRANCH
    if cls == CL_BARRIER:
        if tc[T_DEFER] and defers_barrier(wf, tab, w, cmp, ctrl):
            wf[w, WF_STATUS] = W_READY      # arrived; issues on at its stall count (sass.deferred_barrier)
            wf[w, WF_DEFERRED] = 1
        elif tc[T_DEFER] and completed and ctrl >= 0:
            pass                            # the last to arrive issues on too; release_barrier sets its wait
        else:
            wf[w, WF_RESUME_KIND] = R_BARRIER
            wf[w, WF_RESUME] = INF if wf[w, WF_STATUS] == W_BARRIER else cycle + tc[T_BARRIER]
    elif wf[w, WF_DEFERRED] and not passes_barrier(tab.cls[wf[w, WF_PC]]):
        wf[w, WF_DEFERRED] = 0              # waits here for the others
        wf[w, WF_STATUS] = W_BARRIER
        wf[w, WF_RESUME_KIND] = R_BARRIER
        wf[w, WF_RESUME] = INF
    elif wf[w, WF_BAR_RELEASE] > wf[w, WF_RESUME] and not passes_barrier(tab.cls[wf[w, WF_PC]]):
        wf[w, WF_RESUME] = wf[w, WF_BAR_RELEASE]    # released while issuing on: waits for the release
        wf[w, WF_RESUME_KIND] = R_BARRIER
    return switched


@compiled_inline
def completes_block_barrier(wf, row, w):
    """Whether warp w, issuing the barrier `row`, completed a block-wide one (bar.sync 0 or BAR.SYNC
    0x0, not a reduction, a named barrier with a count or an arrival): it goes on, no longer
    waiting there or deferred."""
    return (wf[w, WF_STATUS] == W_READY and wf[w, WF_DEFERRED] == 0 and row[E.F_CMP] == E.BARRED_NONE
            and row[E.F_NOPS] <= 1 and row[E.F_FLAGS] & E.FL_ARRIVE == 0)


@compiled_inline
def defers_barrier(wf, tab, w, cmp, ctrl):
    """sass.deferred_barrier: whether warp w, having arrived at a block-wide BAR.SYNC (not a
    reduction) whose block has not all arrived, goes on: its next instruction passes
    (passes_barrier).  It is then counted as arrived (WF_DEFERRED: execute.barrier_arrive counts
    it, and clears the flag when all have arrived) and waits at the first instruction that does
    not pass."""
    return (wf[w, WF_STATUS] == W_BARRIER and wf[w, WF_BAR_COUNT] < 0 and cmp == E.BARRED_NONE
            and ctrl >= 0 and passes_barrier(tab.cls[wf[w, WF_PC]]))


@compiled
def registers_ready(sass, wf, ts, tab, rows, tc, w, sm, sp, cycle):
    """(cycle, stall class) at which warp w's next instruction has its source registers, by the
    per-register scoreboard."""
    return operands_ready(tab, ts.reg_ready, ts.reg_kind, w, wf[w, WF_PC])


@unless_none(registers_ready)
def operands_at(sass, wf, ts, tab, rows, tc, w, sm, sp, cycle):
    """registers_ready, or for SASS timed by its control codes: when its wait mask's barriers are
    clear, its register-file reads are done and its immediate constant is in the cache, for a warp
    that reached it at cycle."""
    if sass is None:
        return registers_ready(sass, wf, ts, tab, rows, tc, w, sm, sp, cycle)
    ctrl = control_code(rows, tc, wf[w, WF_PC])
    if ctrl < 0:
        return registers_ready(sass, wf, ts, tab, rows, tc, w, sm, sp, cycle)
    nxt, nkind = barriers_clear(wf, w, ctrl)
    if rows[wf[w, WF_PC], E.F_OP] == E.OP_S_DEPBAR:
        done, dkind = groups_done(wf, w, rows[wf[w, WF_PC], E.F_VEC])
        if done > nxt:
            nxt, nkind = done, dkind
    if tc[T_BANKS]:
        read = read_operands(wf, ts.sched, tab, tc, w, sm, sp, wf[w, WF_PC])
        if read > nxt:
            nxt, nkind = read, R_DISPATCH
    there = immediate_constant_ready(ts.const_cache, tab, tc, sm, sp, wf[w, WF_PC], cycle)
    if there > nxt:
        nxt, nkind = there, R_IMC
    return nxt, nkind


@compiled_inline
def next_operands(code, wf, ts, tab, tc, w, sm, sp, cycle):
    """Record when warp w's next instruction, reached at cycle, has its operands, and exit its
    outstanding loads."""
    nxt, nkind = operands_at(code.sass, wf, ts, tab, code.rows, tc, w, sm, sp, cycle)
    if tab.cls[wf[w, WF_PC]] == CL_EXIT and wf[w, WF_DRAIN] > nxt:
        nxt = wf[w, WF_DRAIN]       # a warp exits only when its outstanding results are written
        nkind = R_DRAIN
    wf[w, WF_OPERANDS_AT] = nxt
    wf[w, WF_OPERANDS_KIND] = nkind


@compiled
def scoreboard_results(sass, wf, ts, tab, tc, w, pc, row, ctrl, ready, kind, sm, sp, cycle):
    """pc's destination registers are ready at `ready` (per-register scoreboard)."""
    write_results(tab, ts.reg_ready, ts.reg_kind, w, pc, ready, kind)


@unless_none(scoreboard_results)
def note_results(sass, wf, ts, tab, tc, w, pc, row, ctrl, ready, kind, sm, sp, cycle):
    """scoreboard_results, or for SASS timed by its control codes: the write and read barriers
    pc sets release when its results arrive and its sources are read."""
    if sass is None or ctrl < 0:
        scoreboard_results(sass, wf, ts, tab, tc, w, pc, row, ctrl, ready, kind, sm, sp, cycle)
        return
    set_barriers(wf, w, ctrl, ready, kind, sources_read(row, tc, ts.scratch, ts.sched, sm, sp, cycle))
    track_copy_groups(wf, w, row[E.F_OP], ready, cycle)


@compiled
def no_sass_issued(sass, wf, ts, tab, tc, w, pc, ctrl, sm, sp, cycle):
    return


@unless_none(no_sass_issued)
def sass_issued(sass, wf, ts, tab, tc, w, pc, ctrl, sm, sp, cycle):
    """What a SASS instruction leaves behind at issue: its register-file write booked, its reuse
    flags' operands kept, and the next instruction's fetch."""
    if sass is None:
        return no_sass_issued(sass, wf, ts, tab, tc, w, pc, ctrl, sm, sp, cycle)
    if tc[T_WRITE_PORT]:
        book_write(ts.sched, tab, sm, sp, pc, cycle)
    if ctrl >= 0 and tc[T_BANKS]:
        keep_reused(wf, tab, w, pc, ctrl)
    if ctrl >= 0 and tc[T_FETCH]:
        fetch_next(wf, ts, tc, w, pc, sm, sp, cycle)


@compiled_inline
def kernel_waits_until(tab, tc, pc, start, ready):
    """How long the instruction at pc, in its pipe from `start` and done at `ready`, holds its
    kernel's end: a memory instruction without a result (a store) until its write has reached L2,
    not for the acknowledgement (sass.store_ack_ns)."""
    if tab.cls[pc] == CL_MEM and tab.dsts[pc, 0] < 0:
        return max(start + 1, ready - tc[T_STORE_ACK])
    return ready


@compiled_inline
def issue(code, regs, ws, mem, run, tc, tf, tab, ts, mt, w, sm, sp, cycle):
    """Issue warp w's next instruction at cycle.  Returns False on a fault."""
    kgeom, slot_block, counters, thread_icount, warp_max_sp, hist, ev, fault = run
    wf = ws.f
    slot = w // kgeom[0][G_WPB]
    k = ts.slot_kernel[slot]
    geom = kgeom[k]
    pc = wf[w, WF_PC]
    row = code.rows[pc]
    gid = wf[w, WF_GID]
    mask = wf[w, WF_MASK]
    exec_mask = guard_mask(row, regs, w * geom[G_WS], mask, geom[G_WS])
    accounted = wf[w, WF_ACCOUNTED]
    account(wf, ts.pc_stalls, ts.tlog, ts.now, tc, w, gid, pc, cycle, throttle_reason(code.rows, tab, pc))
    ts.pc_stalls[pc, R_SELECTED] += 1
    weight = 1.0 / max(ts.sm_use[sm, U_LIVE], 1)
    sampled(ts.pc_samples, pc, max(cycle - accounted, 0) + 1, weight)
    start = enqueue(ts.unit_free, ts.mem_queue, wf, tab, tc, w, sm, sp, pc, cycle)     # when it enters its pipe
    at = start
    if tab.cls[pc] == CL_BARRIER and tc[T_AFTER_STORES]:     # arrives once its shared stores are written
        at = max(start, wf[w, WF_STORES_DONE])
    ready, kind = result_timing(code, regs, mt, tab, tc, tf, ts.scratch, ts.const_cache, geom, w, gid, pc,
                                exec_mask, sm, at)
    if tc[T_IN_ORDER] and tab.cls[pc] == CL_MEM and tab.dsts[pc, 0] >= 0 and ts.scratch[SCRATCH_SECTOR_COUNTS + SECT_L2_READ] > 0:
        ready = max(ready, wf[w, WF_MISSES_DONE])     # delivered after the warp's earlier misses
        wf[w, WF_MISSES_DONE] = ready
    counters[C_CLOCK] = cycle
    if step_warp(code, regs, ws, mem, w, geom, slot_block, counters, thread_icount, hist, ev,
                 fault) == STEP_FAULT:
        return False
    busy = pipe_time(tab, tc, ts.scratch, pc)
    pipe = occupy_pipe(ts.unit_free, tab, sm, sp, pc, start, busy)
    hold_warp(wf, tab, tc, ts.scratch, w, pc, start)
    u = tab.unit[pc]
    count_issue(ts.kstats, k, u, tab.own_unit[pc], tab.ncu_pipe[pc], busy, mask, exec_mask)
    if tab.cls[pc] == CL_MEM:
        add_sector_counts(ts.kstats, k, ts.scratch)
    ctrl = control_code(code.rows, tc, pc)
    note_results(code.sass, wf, ts, tab, tc, w, pc, row, ctrl, ready, kind, sm, sp, cycle)
    if tab.cls[pc] == CL_MEM and tab.dsts[pc, 0] < 0 and row[E.F_SPACE] == E.SP_SHARED:   # a shared store
        wf[w, WF_STORES_DONE] = max(wf[w, WF_STORES_DONE], ready)
    if tab.cls[pc] == CL_MEM and tab.dsts[pc, 0] >= 0:
        # exit waits for outstanding loads (their registers are still to be written); stores
        # need no registers once issued and only delay the kernel's end
        wf[w, WF_DRAIN] = max(wf[w, WF_DRAIN], ready)
    ts.kinfo[k, KF_LAST_COMPLETE] = max(ts.kinfo[k, KF_LAST_COMPLETE], kernel_waits_until(tab, tc, pc, start, ready))
    if tc[T_TRACE]:
        record_issue(ts.trace, ts.now, (cycle, gid, pc, mask, exec_mask, u, pipe, busy, sm, sp, k, ready))
    ts.now[N_SLICE] -= 1
    completed = tab.cls[pc] == CL_BARRIER and completes_block_barrier(wf, row, w)
    switched = after_issue(wf, tab, tc, w, pc, row[E.F_OP], row[E.F_CMP], ctrl, exec_mask != 0, completed, cycle)
    if switched > 0:                    # counted where Nsight Compute counts it
        accounted = wf[w, WF_ACCOUNTED]
        account_ahead(wf, ts.pc_stalls, ts.tlog, ts.now, tc, w, gid, pc + 1, cycle + switched, wf[w, WF_RESUME])
        sampled(ts.pc_samples, pc + 1, wf[w, WF_ACCOUNTED] - accounted, weight)
    sass_issued(code.sass, wf, ts, tab, tc, w, pc, ctrl, sm, sp, cycle)
    status = wf[w, WF_STATUS]
    if tab.cls[pc] == CL_BARRIER:       # its arrival was taken at ready - 1
        release_barrier(wf, ts.sched, ts.sm_use, tab, tc, w, geom[G_WPB], sm, ready - 1, completed)
    elif status == W_DONE:
        release_barrier(wf, ts.sched, ts.sm_use, tab, tc, w, geom[G_WPB], sm, cycle, False)
    if status == W_DONE:
        ts.sm_use[sm, U_LIVE] -= 1
        if slot_finished(ws, slot, geom[G_WPB]):
            finish_block(ws, slot_block, ts, tc, kgeom, warp_max_sp, counters, slot, sm, cycle)
    else:
        next_operands(code, wf, ts, tab, tc, w, sm, sp, cycle)
    return True


@compiled_inline
def needs_convergence_unit(rows, tc, pc):
    """Whether pc's instruction is a BSSY or BSYNC that waits for its sub-partition's convergence
    unit (sass.convergence_unit_cycles)."""
    if tc[T_CBU] <= 0:
        return False
    op = rows[pc, E.F_OP]
    return op == E.OP_S_BSSY or op == E.OP_S_BSYNC


@compiled_inline
def scan_scheduler(code, regs, ws, mem, run, tc, tf, tab, ts, mt, sm, sp, cycle):
    """One scheduler's cycle: issue up to issue_width eligible warp-instructions in policy order.
    Returns the number issued, or -1 on a fault."""
    cand = ts.candidates
    wf = ws.f
    n = candidates(tc[T_POLICY], tc[T_GREEDY], ts.order, ts.sched, wf, tc[T_POOL], cycle, sm, sp, tc[T_NSP], tc[T_WPSM], cand)
    issued = 0
    width = tc[T_WIDTH]
    held = False
    throttled = -1
    w = -1
    for j in range(n):
        w = cand[j]
        before = issued
        while issued < width and can_issue(wf, ts, tab, tc, w, sm, sp, cycle):
            cbu = needs_convergence_unit(code.rows, tc, wf[w, WF_PC])
            if cbu and ts.sched[sm, sp, SC_CBU] > cycle:
                break                # the unit serves another warp's BSSY / BSYNC
            if dispatch_blocked(code.sass, wf, ts, tab, tc, w, sm, sp, cycle):
                held = True
                ts.sched[sm, sp, SC_LAST] = w        # it had the turn: greedy policies keep it
                ts.sched[sm, sp, SC_HELD_AT] = cycle
                break
            if not issue(code, regs, ws, mem, run, tc, tf, tab, ts, mt, w, sm, sp, cycle):
                return -1
            issued += 1
            if cbu:
                ts.sched[sm, sp, SC_CBU] = cycle + tc[T_CBU]
                break
            ts.sched[sm, sp, SC_LAST] = w
            if tc[T_POLICY] == SCHED_GWF:
                charge_pass(ts.sched, wf, w, sm, sp, tc[T_NSP], tc[T_WPSM], tc[T_SLOT_WEIGHT])
            elif tc[T_POLICY] == SCHED_AWF:
                charge_age_pass(ts.order, ts.sched, wf, w, sm, sp, tc[T_AGE_STEP])
        if (issued == before and not held and throttled < 0 and grr_family(tc[T_POLICY])
                and pipe_throttled(wf, ts, tab, tc, w, sm, sp, cycle)
                and (tc[T_GREEDY] <= 1 or tab.unit[wf[w, WF_PC]] > LAST_MATH_UNIT)):
            throttled = w            # passed over for a busy pipe: grr's next round starts from it
                                     # (with greedy_cycles over 1 not for the FP32 and integer pipes)
        if held or issued >= width:
            break
    if held or issued >= width:
        tally_waiting(wf, cand, n, w, held, cycle)
    if issued > 0:
        ts.sched[sm, sp, SC_WAKE] = cycle + 1
        ts.now[N_ISSUE_CYCLES] += 1
        ts.sched[sm, sp, SC_RR_FROM] = throttled
    elif held:
        ts.sched[sm, sp, SC_WAKE] = cycle + 1
    else:
        ts.sched[sm, sp, SC_WAKE] = next_wake(wf, ts, tab, tc, sm, sp, cycle)
    return issued


@compiled_inline
def tally_waiting(wf, cand, n, chosen, held, cycle):
    """The scheduler's other ready warps, in a cycle whose issue slots were all taken or whose
    dispatch held `chosen`: they count as not selected, or as waiting on the stalled dispatch,
    also where their own pipe is busy, as Nsight Compute counts them (t-fp64-issue-d1: 5.95
    dispatch-stall warp-cycles per warp-iteration on the H100 for 0.85 cycles held, 8 warps each;
    w-warpspec-fp64w0, 8 FMUL warps per scheduler: not_selected 50%, math_pipe_throttle 1%)."""
    for k in range(n):
        v = cand[k]
        if v != chosen and wf[v, WF_LAST_CYCLE] != cycle and warp_ready(wf, v, cycle):
            wf[v, WF_HELD if held else WF_NOT_SELECTED] += 1


@compiled
def next_wake(wf, ts, tab, tc, sm, sp, cycle):
    """Earliest cycle at which one of the scheduler's warps may become eligible."""
    wake = INF
    for j in range(ts.sched[sm, sp, SC_N_ORDER]):
        w = ts.order[sm, sp, j]
        if wf[w, WF_STATUS] != W_READY:
            continue
        t = max(wf[w, WF_RESUME], wf[w, WF_OPERANDS_AT], accept_at(ts.unit_free, ts.mem_queue, tab, tc, sm, sp, wf[w, WF_PC]),
                cycle + 1)
        wake = min(wake, t)
    return wake
