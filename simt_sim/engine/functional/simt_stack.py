"""The per-warp SIMT stack: where divergence splits a warp and where it reconverges.

Current state of a warp: pc and active mask.  Each stack entry is either
  * a reconvergence frame (KIND_FRAME): reconvergence pc `rpc`, the mask to restore there
    (`join`), and the side of the branch still to run (`ppc`, `pmask`; pmask 0 once started);
  * an explicit entry (KIND_EXPLICIT) of the branching article's mask-stack ISA: (`join` mask, `rpc`
    pc) pushed by push_mask / br_push and restored by pop_mask / mask_nz;
  * a call entry (KIND_CALL): the return pc (`rpc`), the mask to restore there (`join`: the lanes
    active at the call), the call's pc (`ppc`) and the lanes that called (`pmask`).  Lanes that
    execute `ret` leave the function's frames and wait in the call entry; when no lane is left in
    the function the caller (execute.py, calls.py) pops it, so the whole function is one region
    that reconverges at its exit.
A divergent branch whose reconvergence pc equals that of the frame on top, with no pending side
(a loop's next iteration), reuses that frame; so the depth is bounded by the static nesting depth.
"""
from __future__ import annotations

from simt_sim.engine.jit import compiled
from simt_sim.machine.layout import (EV_CALL, EV_DIVERGE, EV_RECONVERGE, EV_RETURN, KIND_CALL, KIND_EXPLICIT, KIND_FRAME,
                                     POLICY_FEWER_FIRST, POLICY_TAKEN_FIRST, SF_JOIN, SF_KIND, SF_PMASK,
                                     SF_PPC, SF_RPC, WF_GID, WF_LIVE, WF_MASK, WF_MAX_SP, WF_PC, WF_SP)



@compiled
def popcount64(m):
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


@compiled
def first_lane(mask):
    """The lowest lane set in mask (64 when none is)."""
    lane = 0
    while lane < 64 and not (mask >> lane) & 1:
        lane += 1
    return lane


@compiled
def log_event(ev, counters, gid, kind, pc, mask, depth):
    """Divergence / reconvergence log for tests and traces; counters[0] is its fill level."""
    i = counters[0]
    if i < ev.shape[0]:
        ev[i, 0] = gid
        ev[i, 1] = kind
        ev[i, 2] = pc
        ev[i, 3] = mask
        ev[i, 4] = depth
    counters[0] = i + 1


@compiled
def diverge(ws, w, taken_pc, taken, fall_pc, fall, rpc, policy, ev, evc):
    """Split warp w at a branch; returns False on stack overflow."""
    if policy == POLICY_FEWER_FIRST:
        taken_first = popcount64(taken) < popcount64(fall)
    else:
        taken_first = policy == POLICY_TAKEN_FIRST
    if taken_first:
        first_pc, first, second_pc, second = taken_pc, taken, fall_pc, fall
    else:
        first_pc, first, second_pc, second = fall_pc, fall, taken_pc, taken
    sp = ws.f[w, WF_SP]
    top = sp - 1
    if sp > 0 and ws.stack[w, top, SF_KIND] == KIND_FRAME and ws.stack[w, top, SF_RPC] == rpc:
        if ws.stack[w, top, SF_PMASK] == 0:
            # a loop's next split: the frame already holds the join mask
            log_event(ev, evc, ws.f[w, WF_GID], EV_DIVERGE, ws.f[w, WF_PC], ws.f[w, WF_MASK], sp)
            ws.stack[w, top, SF_PPC] = second_pc
            ws.stack[w, top, SF_PMASK] = second
            ws.f[w, WF_PC] = first_pc
            ws.f[w, WF_MASK] = first
            return True
        if ws.stack[w, top, SF_PPC] == rpc and (first_pc == rpc or second_pc == rpc):
            # lanes already parked at the join: new lanes heading there wait with them
            log_event(ev, evc, ws.f[w, WF_GID], EV_DIVERGE, ws.f[w, WF_PC], ws.f[w, WF_MASK], sp)
            if first_pc == rpc:
                ws.stack[w, top, SF_PMASK] |= first
                ws.f[w, WF_PC] = second_pc
                ws.f[w, WF_MASK] = second
            else:
                ws.stack[w, top, SF_PMASK] |= second
                ws.f[w, WF_PC] = first_pc
                ws.f[w, WF_MASK] = first
            return True
    top = claim_entry(ws, w, KIND_FRAME)
    if top < 0:
        return False
    ws.stack[w, top, SF_RPC] = rpc
    ws.stack[w, top, SF_JOIN] = ws.f[w, WF_MASK]
    log_event(ev, evc, ws.f[w, WF_GID], EV_DIVERGE, ws.f[w, WF_PC], ws.f[w, WF_MASK], ws.f[w, WF_SP])
    ws.stack[w, top, SF_PPC] = second_pc
    ws.stack[w, top, SF_PMASK] = second
    ws.f[w, WF_PC] = first_pc
    ws.f[w, WF_MASK] = first
    return True


@compiled
def settle(ws, w, ev, evc):
    """After pc or mask changed: switch to the pending side or reconverge while due.
    Marks the warp finished (mask 0, sp 0) when no thread is left; stops at a call entry (a
    function's lanes have all returned when the mask is 0 there)."""
    while ws.f[w, WF_SP] > 0:
        top = ws.f[w, WF_SP] - 1
        if ws.stack[w, top, SF_KIND] == KIND_CALL:
            return
        if ws.stack[w, top, SF_KIND] == KIND_FRAME:
            if ws.f[w, WF_MASK] != 0 and ws.f[w, WF_PC] != ws.stack[w, top, SF_RPC]:
                return
            if ws.stack[w, top, SF_PMASK] != 0:
                ws.f[w, WF_PC] = ws.stack[w, top, SF_PPC]
                ws.f[w, WF_MASK] = ws.stack[w, top, SF_PMASK]
                ws.stack[w, top, SF_PMASK] = 0
                continue
            ws.f[w, WF_PC] = ws.stack[w, top, SF_RPC]
            ws.f[w, WF_MASK] = ws.stack[w, top, SF_JOIN]
            ws.f[w, WF_SP] = top
            if ws.f[w, WF_MASK] != 0:
                log_event(ev, evc, ws.f[w, WF_GID], EV_RECONVERGE, ws.f[w, WF_PC], ws.f[w, WF_MASK], top)
        else:
            if ws.f[w, WF_MASK] != 0:
                return
            pop_explicit(ws, w)


@compiled
def claim_entry(ws, w, kind):
    """Push an entry of this kind and return its slot (the caller fills its fields), or -1 when the
    stack is full.  Keeps the warp's deepest stack for the statistics."""
    sp = ws.f[w, WF_SP]
    if sp >= ws.stack.shape[1]:
        return -1
    ws.stack[w, sp, SF_KIND] = kind
    ws.f[w, WF_SP] = sp + 1
    if sp + 1 > ws.f[w, WF_MAX_SP]:
        ws.f[w, WF_MAX_SP] = sp + 1
    return sp


@compiled
def remove_lanes(ws, w, lanes):
    """Threads that exited leave every mask of the warp, so joins never wait for them."""
    keep = ~lanes
    ws.f[w, WF_MASK] &= keep
    ws.f[w, WF_LIVE] &= keep
    for i in range(ws.f[w, WF_SP]):
        ws.stack[w, i, SF_JOIN] &= keep
        ws.stack[w, i, SF_PMASK] &= keep


@compiled
def push_explicit(ws, w, mask, pc):
    sp = claim_entry(ws, w, KIND_EXPLICIT)
    if sp < 0:
        return False
    ws.stack[w, sp, SF_JOIN] = mask & ws.f[w, WF_LIVE]
    ws.stack[w, sp, SF_RPC] = pc
    ws.stack[w, sp, SF_PMASK] = 0
    return True


@compiled
def pop_explicit(ws, w):
    """Restore the mask and pc of the top explicit entry; False when there is none."""
    sp = ws.f[w, WF_SP]
    if sp == 0 or ws.stack[w, sp - 1, SF_KIND] != KIND_EXPLICIT:
        return False
    ws.f[w, WF_MASK] = ws.stack[w, sp - 1, SF_JOIN] & ws.f[w, WF_LIVE]
    ws.f[w, WF_PC] = ws.stack[w, sp - 1, SF_RPC]
    ws.f[w, WF_SP] = sp - 1
    return True


@compiled
def push_call(ws, w, return_pc, call_pc, callers, ev, evc):
    """Enter a function with the lanes `callers`; returns False on stack overflow."""
    sp = claim_entry(ws, w, KIND_CALL)
    if sp < 0:
        return False
    ws.stack[w, sp, SF_RPC] = return_pc
    ws.stack[w, sp, SF_JOIN] = ws.f[w, WF_MASK]
    ws.stack[w, sp, SF_PPC] = call_pc
    ws.stack[w, sp, SF_PMASK] = callers
    log_event(ev, evc, ws.f[w, WF_GID], EV_CALL, call_pc, ws.f[w, WF_MASK], sp + 1)
    ws.f[w, WF_MASK] = callers
    return True


@compiled
def leave_function(ws, w, lanes):
    """`ret` of `lanes` inside a function: they leave the active mask and every frame above the
    innermost call entry, and wait in that entry until the function's other lanes return."""
    keep = ~lanes
    ws.f[w, WF_MASK] &= keep
    i = ws.f[w, WF_SP] - 1
    while i >= 0 and ws.stack[w, i, SF_KIND] != KIND_CALL:
        ws.stack[w, i, SF_JOIN] &= keep
        ws.stack[w, i, SF_PMASK] &= keep
        i -= 1


@compiled
def pop_call(ws, w, ev, evc):
    """Return to the caller: restore the mask of the call, continue at the return pc.  Returns
    the call's pc and the lanes that called (minus those that exited)."""
    top = ws.f[w, WF_SP] - 1
    call_pc = ws.stack[w, top, SF_PPC]
    callers = ws.stack[w, top, SF_PMASK] & ws.f[w, WF_LIVE]
    ws.f[w, WF_PC] = ws.stack[w, top, SF_RPC]
    ws.f[w, WF_MASK] = ws.stack[w, top, SF_JOIN] & ws.f[w, WF_LIVE]
    ws.f[w, WF_SP] = top
    log_event(ev, evc, ws.f[w, WF_GID], EV_RETURN, ws.f[w, WF_PC], ws.f[w, WF_MASK], top)
    return call_pc, callers


@compiled
def in_call(ws, w):
    """The warp's innermost stack entry is a call entry whose lanes have all returned."""
    sp = ws.f[w, WF_SP]
    return sp > 0 and ws.f[w, WF_MASK] == 0 and ws.stack[w, sp - 1, SF_KIND] == KIND_CALL
