"""SASS convergence as the H100 does it: convergence barriers (BSSY / BSYNC / BREAK / BMOV,
WARPSYNC) and divergent branches that split the warp into groups run one at a time.

* A divergent BRA splits the running group; the side with fewer threads runs first (a tie: the
  fall-through side), the other waits on the warp's stack as a pending group, as measured on the
  H100 (../shared/h100-facts.md: "fewer active threads first, fall-through on a tie, no
  interleaving").  Waiting groups join as the H100's per-instruction counts show
  (programs/probes/t-bsync-join, one warp per launch, and every recorded program): the two newest join
  when they wait at the same pc as the same side of their branches (two taken sides, or two
  fall-through sides), and only at two moments: before a third group is parked, and when the
  running group issues a memory instruction.  So a loop's early leavers (fall-through sides) do
  not join the threads that skipped the loop (a taken side), two groups parked by an ALU-only
  chain of early exits stay apart (nested-ifelse executes its BSYNC for 7, 9 and 16 threads),
  while a chain with a load between its exits gathers them all (seed 000's ec).
* BSSY Bx records the running threads as the barrier's members.  A group reaching BSYNC Bx waits
  there until every member that has not exited has arrived; the last arrival continues with all of
  them.  BREAK Bx takes threads out of the members (a loop's early leavers).
* Threads waiting at a barrier stay waiting when the barrier is reused for other members: a
  device function saves its caller's barrier (BMOV.32.CLEAR R2, B6), opens it for its own region
  (BSSY B6), restores it before RET (BMOV.32 B6, R2), so in a recursion the threads that returned
  early wait at the caller's BSYNC while deeper calls use the same barrier.  A barrier completes
  when all its current members that have not exited have arrived, and releases only them.
* YIELD hands the warp to another group: the threads waiting at a barrier whose other members
  all wait at it or yield (NVIDIA's patent US 10,067,768: a barrier is cleared when each of its
  threads is blocked at it or has yielded), else the newest pending group; the yielders wait after
  the YIELD and later pass a cleared barrier's BSYNC as non-members.  A BSYNC lets its barrier's
  non-members through; when an arriving group holds both, the members go on first (s-control,
  t-yield-loop, t-yield-shfl: docs/sass-execution.md).
* When the running group has no threads left (all waiting or exited), a barrier that became
  complete releases its threads, else the most recent pending group runs.  Nothing left to run
  while threads wait is a deadlock (a fault).
"""
from __future__ import annotations

import numpy as np

from simt_sim.engine.functional.simt_stack import claim_entry, first_lane, log_event, popcount64
from simt_sim.engine.jit import compiled
from simt_sim.isa import encoding as E
from simt_sim.machine.layout import (CB_ARRIVED, CB_MEMBERS, CB_PC, CBAR_SLOTS, CBAR_WARPSYNC, EV_DIVERGE,
                                     EV_RECONVERGE, KIND_PENDING, KIND_PENDING_FALL, POLICY_FEWER_FIRST,
                                     POLICY_TAKEN_FIRST, SF_KIND, SF_PMASK, SF_PPC, SF_RPC, WF_GID, WF_LIVE,
                                     WF_MASK, WF_PC, WF_SP)

SF_CTX = SF_RPC          # a pending group's call context (its threads' CALL depth); PTX frames' field


@compiled
def push_pending(ws, w, pc, mask, kind, ctx):
    """Park a group at pc (kind: KIND_PENDING for a branch's taken side, KIND_PENDING_FALL for its
    fall-through side) in call context ctx (its threads' CALL depth: call_context); returns False
    when the stack is full.  The two newest groups join first when they can (join_newest)."""
    join_newest(ws, w)
    sp = claim_entry(ws, w, kind)
    if sp < 0:
        return False
    ws.stack[w, sp, SF_PPC] = pc
    ws.stack[w, sp, SF_PMASK] = mask
    ws.stack[w, sp, SF_CTX] = ctx
    return True


@compiled
def call_context(regs, base_t, mask):
    """The call depth of a group's threads (CALL +1, RET -1 per thread, kept in the register row
    E.SASS_CALL_DEPTH_ROW): the threads of one group are always at one depth."""
    if mask == 0:
        return np.int64(0)
    return np.int64(regs.r32[E.SASS_CALL_DEPTH_ROW, base_t + first_lane(mask)]) & DEPTH_BITS


DEPTH_BITS = 0xFFFF      # E.SASS_CALL_DEPTH_ROW: bits 0-15 the CALL depth, 16-31 the pc after the BSYNC
WAIT_SHIFT = 16          # the thread last arrived at, plus one (0: none; pcs past 0xfffe are not kept)


@compiled
def note_arrival(regs, base_t, lanes, wsz, next_pc):
    """Remember, per thread, the pc after the BSYNC it arrives at (wait_pc reads it)."""
    mark = np.int64(next_pc + 1) if next_pc + 1 <= 0xFFFF else np.int64(0)
    for lane in range(wsz):
        if (lanes >> lane) & 1:
            v = np.int64(regs.r32[E.SASS_CALL_DEPTH_ROW, base_t + lane])
            regs.r32[E.SASS_CALL_DEPTH_ROW, base_t + lane] = np.uint32((v & DEPTH_BITS) | (mark << WAIT_SHIFT))


@compiled
def abandoned_waiters(ws, w, b, running):
    """BSSY Bx while members of the barrier's current use still wait at its BSYNC, and the threads
    that reopen it (lanes the YIELD rule let run on start a loop body's next iteration; lanes that
    left a region without BREAK and come back round) will not arrive there for that use: those
    waiters would wait for a use that no longer exists, so they go on, each at the pc after the
    BSYNC it waits at (wait_pc).  A barrier a callee saved and cleared (BMOV.32.CLEAR: no members)
    keeps its waiters: they wait for the caller's use, which BMOV.32 Bx, Rn restores."""
    members = ws.cbar[w, b, CB_MEMBERS] & ws.f[w, WF_LIVE]
    if members == 0:
        return np.int64(0)
    waiting = ws.cbar[w, b, CB_ARRIVED] & members & ~running
    for i in range(ws.f[w, WF_SP]):            # threads parked elsewhere do not wait here
        waiting &= ~ws.stack[w, i, SF_PMASK]
    return waiting


@compiled
def wait_pc(regs, base_t, lane, fallback):
    """The pc after the BSYNC thread base_t + lane last arrived at (note_arrival), else fallback."""
    mark = np.int64(regs.r32[E.SASS_CALL_DEPTH_ROW, base_t + lane]) >> WAIT_SHIFT
    return mark - 1 if mark > 0 else fallback


@compiled
def pop_pending(ws, w):
    """The newest pending group (less its exited threads) becomes the running group."""
    sp = ws.f[w, WF_SP] - 1
    ws.f[w, WF_PC] = ws.stack[w, sp, SF_PPC]
    ws.f[w, WF_MASK] = ws.stack[w, sp, SF_PMASK] & ws.f[w, WF_LIVE]
    ws.f[w, WF_SP] = sp


@compiled
def join_newest(ws, w):
    """The two newest waiting groups become one when they wait at the same pc, are the same side
    (both taken or both fall-through) of their branches and are in the same call context (the
    same CALL depth: in a recursion, threads parked at a callee's BSYNC one level deeper wait
    for another instance of its barrier and must not join those of the level above).  The H100 does this before parking a
    third group and when the running group issues a memory instruction, not when the second one is
    parked (programs/probes/t-bsync-join)."""
    sp = ws.f[w, WF_SP]
    if sp < 2:
        return
    kind = ws.stack[w, sp - 1, SF_KIND]
    if (kind == KIND_PENDING or kind == KIND_PENDING_FALL) and ws.stack[w, sp - 2, SF_KIND] == kind \
            and ws.stack[w, sp - 2, SF_PPC] == ws.stack[w, sp - 1, SF_PPC] \
            and ws.stack[w, sp - 2, SF_CTX] == ws.stack[w, sp - 1, SF_CTX]:
        ws.stack[w, sp - 2, SF_PMASK] |= ws.stack[w, sp - 1, SF_PMASK]
        ws.f[w, WF_SP] = sp - 1


@compiled
def branch(ws, w, target, taken, fall_pc, policy, ev, evc, ctx):
    """BRA of the running group (call context ctx) with `taken` threads going to target; False on
    stack overflow."""
    mask = ws.f[w, WF_MASK]
    fall = mask & ~taken
    if fall == 0:
        ws.f[w, WF_PC] = target
        return True
    if taken == 0:
        ws.f[w, WF_PC] = fall_pc
        return True
    if policy == POLICY_FEWER_FIRST:
        taken_first = popcount64(taken) < popcount64(fall)
    else:
        taken_first = policy == POLICY_TAKEN_FIRST
    log_event(ev, evc, ws.f[w, WF_GID], EV_DIVERGE, ws.f[w, WF_PC], mask, ws.f[w, WF_SP] + 1)
    if taken_first:
        ok = push_pending(ws, w, fall_pc, fall, KIND_PENDING_FALL, ctx)
        ws.f[w, WF_PC], ws.f[w, WF_MASK] = target, taken
    else:
        ok = push_pending(ws, w, target, taken, KIND_PENDING, ctx)
        ws.f[w, WF_PC], ws.f[w, WF_MASK] = fall_pc, fall
    return ok


@compiled
def open_barrier(ws, w, b, members):
    """BSSY: the running threads are the members (threads still waiting from an earlier use of
    the barrier, which cannot be running, keep waiting)."""
    ws.cbar[w, b, CB_MEMBERS] = members
    ws.cbar[w, b, CB_ARRIVED] &= ~members


@compiled
def complete(ws, w, b):
    members = ws.cbar[w, b, CB_MEMBERS] & ws.f[w, WF_LIVE]
    arrived = ws.cbar[w, b, CB_ARRIVED]
    return (members & arrived) != 0 and (members & ~arrived) == 0


@compiled
def arrive(ws, w, b, arriving, next_pc, ev, evc, ctx):
    """BSYNC (or WARPSYNC) of `arriving` threads: either the barrier completes and all its threads
    continue at next_pc together, or the arrivals wait and the rest of the group goes on.  Arrivals
    that are not members (the barrier was cleared by a YIELD, or opened again by others) pass
    without joining the members: after them when the members go on too.  Returns False on stack
    overflow."""
    outsiders = arriving & ~ws.cbar[w, b, CB_MEMBERS]
    arriving &= ~outsiders
    if arriving == 0:
        ws.f[w, WF_PC] = next_pc
        return True
    ws.cbar[w, b, CB_ARRIVED] |= arriving
    ws.cbar[w, b, CB_PC] = next_pc
    if complete(ws, w, b):
        if outsiders != 0 and not push_pending(ws, w, next_pc, outsiders, KIND_PENDING_FALL, ctx):
            return False
        release(ws, w, b, ev, evc)
        return True
    ws.f[w, WF_MASK] &= ~arriving
    ws.f[w, WF_PC] = next_pc
    return True


@compiled
def release(ws, w, b, ev, evc):
    merged = ws.cbar[w, b, CB_ARRIVED] & ws.cbar[w, b, CB_MEMBERS] & ws.f[w, WF_LIVE]
    ws.cbar[w, b, CB_ARRIVED] &= ~merged
    ws.f[w, WF_MASK] = merged
    ws.f[w, WF_PC] = ws.cbar[w, b, CB_PC]
    log_event(ev, evc, ws.f[w, WF_GID], EV_RECONVERGE, ws.f[w, WF_PC], merged, ws.f[w, WF_SP])


@compiled
def yield_group(ws, w, next_pc, ev, evc, ctx):
    """YIELD of the running group, which then waits at next_pc while another group runs: the
    threads waiting at a convergence barrier whose members are all either waiting at it or in the
    yielding group (the barrier is cleared: the yielders no longer belong to it), else the newest
    pending group.  On the H100 (s-control's data-dependent loop and t-yield-loop, which hold
    ptxas's YIELD) a loop's leavers, waiting at its BSYNC or parked at the exit branch (as the
    larger or tied side), run ahead at the loopers' next YIELD, and once the barrier is cleared,
    lanes that leave as the smaller side pass its BSYNC at once; without a YIELD
    (t-loop-exit-plain, -vote, -break) they wait until the loop ends.  Returns False on stack
    overflow."""
    running = ws.f[w, WF_MASK]
    live = ws.f[w, WF_LIVE]
    for b in range(CBAR_SLOTS):
        if b == CBAR_WARPSYNC:
            continue
        members = ws.cbar[w, b, CB_MEMBERS] & live
        waiting = ws.cbar[w, b, CB_ARRIVED] & members & ~running
        if waiting == 0 or (members & ~ws.cbar[w, b, CB_ARRIVED] & ~running) != 0:
            continue
        if not push_pending(ws, w, next_pc, running, KIND_PENDING_FALL, ctx):
            return False
        release(ws, w, b, ev, evc)
        ws.cbar[w, b, CB_MEMBERS] = 0
        return True
    if ws.f[w, WF_SP] == 0:
        ws.f[w, WF_PC] = next_pc
        return True
    pop_pending(ws, w)
    return push_pending(ws, w, next_pc, running, KIND_PENDING_FALL, ctx)


@compiled
def break_out(ws, w, b, leaving):
    ws.cbar[w, b, CB_MEMBERS] &= ~leaving


@compiled
def warpsync(ws, w, wanted, arriving, next_pc, ev, evc, ctx):
    """WARPSYNC: a barrier over `wanted` (less exited threads) opened by its first arrival; False
    on stack overflow."""
    b = CBAR_WARPSYNC
    if ws.cbar[w, b, CB_ARRIVED] == 0:
        ws.cbar[w, b, CB_MEMBERS] = wanted
    if (ws.cbar[w, b, CB_MEMBERS] & ws.f[w, WF_LIVE] & ~(arriving | ws.cbar[w, b, CB_ARRIVED])) == 0 \
            and ws.cbar[w, b, CB_ARRIVED] == 0:
        ws.f[w, WF_PC] = next_pc          # everyone is here already: nothing to wait for
        return True
    return arrive(ws, w, b, arriving, next_pc, ev, evc, ctx)


@compiled
def settle(ws, w, ev, evc):
    """While the running group is empty: run the newest pending group or the threads of a barrier
    that completed (its last members broke out or exited), whichever has fewer threads (a
    completed barrier on a tie; the barrier with the fewest threads when several completed).
    This is the fewer-threads-first rule of the branches applied to a released group: on the H100
    (v-switch8's trace) a switch's default group, released when the last case group broke out of
    the switch's barrier, runs after a two-thread group still inside a case but before an
    eight-thread case group.  Returns False on a deadlock (threads wait and nothing can run)."""
    while ws.f[w, WF_MASK] == 0:
        best, fewest = -1, 65
        for b in range(CBAR_SLOTS):
            if complete(ws, w, b):
                n = popcount64(ws.cbar[w, b, CB_ARRIVED] & ws.cbar[w, b, CB_MEMBERS] & ws.f[w, WF_LIVE])
                if n < fewest:
                    best, fewest = b, n
        sp = ws.f[w, WF_SP]
        if best >= 0 and not (sp > 0 and popcount64(ws.stack[w, sp - 1, SF_PMASK] & ws.f[w, WF_LIVE]) < fewest):
            release(ws, w, best, ev, evc)
            continue
        if sp > 0:
            pop_pending(ws, w)
            continue
        if ws.f[w, WF_LIVE] != 0:
            return False
        return True
    return True


@compiled
def waiting_threads(ws, w):
    """Threads parked at convergence barriers (for a deadlock message)."""
    m = np.int64(0)
    for b in range(CBAR_SLOTS):
        m |= ws.cbar[w, b, CB_ARRIVED]
    return m
