"""The per-warp SIMT stack: where divergence splits a warp and where it reconverges.

Current state of a warp: pc and active mask.  Each stack entry is either
  * a reconvergence frame (KIND_FRAME): reconvergence pc `rpc`, the mask to restore there
    (`join`), and the side of the branch still to run (`ppc`, `pmask`; pmask 0 once started);
  * an explicit entry (KIND_EXPLICIT) of the branching article's mask-stack ISA: (`join` mask, `rpc`
    pc) pushed by push_mask / br_push and restored by pop_mask / mask_nz.
A divergent branch whose reconvergence pc equals that of the frame on top, with no pending side
(a loop's next iteration), reuses that frame; so the depth is bounded by the static nesting depth.
"""
from __future__ import annotations

from simt_sim.engine.jit import compiled


KIND_FRAME = 0
KIND_EXPLICIT = 1

POLICY_FEWER_FIRST = 0
POLICY_FALLTHROUGH_FIRST = 1
POLICY_TAKEN_FIRST = 2
POLICY_NAMES = ("fewer-first", "fallthrough-first", "taken-first")

EV_DIVERGE = 1
EV_RECONVERGE = 2


@compiled
def popcount64(m):
    n = 0
    while m != 0:
        m &= m - 1
        n += 1
    return n


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
    sp = ws.sp[w]
    top = sp - 1
    if sp > 0 and ws.kind[w, top] == KIND_FRAME and ws.rpc[w, top] == rpc:
        if ws.pmask[w, top] == 0:
            # a loop's next split: the frame already holds the join mask
            log_event(ev, evc, ws.gid[w], EV_DIVERGE, ws.pc[w], ws.mask[w], sp)
            ws.ppc[w, top] = second_pc
            ws.pmask[w, top] = second
            ws.pc[w] = first_pc
            ws.mask[w] = first
            return True
        if ws.ppc[w, top] == rpc and (first_pc == rpc or second_pc == rpc):
            # lanes already parked at the join: new lanes heading there wait with them
            log_event(ev, evc, ws.gid[w], EV_DIVERGE, ws.pc[w], ws.mask[w], sp)
            if first_pc == rpc:
                ws.pmask[w, top] |= first
                ws.pc[w] = second_pc
                ws.mask[w] = second
            else:
                ws.pmask[w, top] |= second
                ws.pc[w] = first_pc
                ws.mask[w] = first
            return True
    if sp >= ws.kind.shape[1]:
        return False
    top = sp
    ws.kind[w, top] = KIND_FRAME
    ws.rpc[w, top] = rpc
    ws.join[w, top] = ws.mask[w]
    ws.sp[w] = sp + 1
    if sp + 1 > ws.max_sp[w]:
        ws.max_sp[w] = sp + 1
    log_event(ev, evc, ws.gid[w], EV_DIVERGE, ws.pc[w], ws.mask[w], ws.sp[w])
    ws.ppc[w, top] = second_pc
    ws.pmask[w, top] = second
    ws.pc[w] = first_pc
    ws.mask[w] = first
    return True


@compiled
def settle(ws, w, ev, evc):
    """After pc or mask changed: switch to the pending side or reconverge while due.
    Marks the warp finished (mask 0, sp 0) when no thread is left."""
    while ws.sp[w] > 0:
        top = ws.sp[w] - 1
        if ws.kind[w, top] == KIND_FRAME:
            if ws.mask[w] != 0 and ws.pc[w] != ws.rpc[w, top]:
                return
            if ws.pmask[w, top] != 0:
                ws.pc[w] = ws.ppc[w, top]
                ws.mask[w] = ws.pmask[w, top]
                ws.pmask[w, top] = 0
                continue
            ws.pc[w] = ws.rpc[w, top]
            ws.mask[w] = ws.join[w, top]
            ws.sp[w] = top
            if ws.mask[w] != 0:
                log_event(ev, evc, ws.gid[w], EV_RECONVERGE, ws.pc[w], ws.mask[w], top)
        else:
            if ws.mask[w] != 0:
                return
            pop_explicit(ws, w)


@compiled
def remove_lanes(ws, w, lanes):
    """Threads that exited leave every mask of the warp, so joins never wait for them."""
    keep = ~lanes
    ws.mask[w] &= keep
    ws.live[w] &= keep
    for i in range(ws.sp[w]):
        ws.join[w, i] &= keep
        ws.pmask[w, i] &= keep


@compiled
def push_explicit(ws, w, mask, pc):
    sp = ws.sp[w]
    if sp >= ws.kind.shape[1]:
        return False
    ws.kind[w, sp] = KIND_EXPLICIT
    ws.join[w, sp] = mask & ws.live[w]
    ws.rpc[w, sp] = pc
    ws.pmask[w, sp] = 0
    ws.sp[w] = sp + 1
    if sp + 1 > ws.max_sp[w]:
        ws.max_sp[w] = sp + 1
    return True


@compiled
def pop_explicit(ws, w):
    """Restore the mask and pc of the top explicit entry; False when there is none."""
    sp = ws.sp[w]
    if sp == 0 or ws.kind[w, sp - 1] != KIND_EXPLICIT:
        return False
    ws.mask[w] = ws.join[w, sp - 1] & ws.live[w]
    ws.pc[w] = ws.rpc[w, sp - 1]
    ws.sp[w] = sp - 1
    return True
