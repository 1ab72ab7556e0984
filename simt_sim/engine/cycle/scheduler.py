"""Warp schedulers: in which order a sub-partition's scheduler considers its warps each cycle.

  lrr        loose round robin: start after the warp that issued last, wrap around;
  gto        greedy then oldest: the warp that issued last while it can, otherwise the oldest;
  oldest     always the oldest warp first (age = launch order);
  two-level  a small active pool served round robin; a warp whose next instruction waits on a
             long-latency (global/local memory) result leaves the pool, and the longest-waiting
             pending warp takes its place (Narasiman et al., MICRO 2011);
  gty        greedy then youngest, with compiler-guided yield: the warp that issued last while it
             can, unless its instruction carried ptxas's yield hint (SASS), then the youngest
             first; a warp that yielded comes last;
  grr        greedy then round robin: the warp that issued in the previous cycle while it can issue
             back to back, otherwise the next warp after the last one by slot, wrapping around
             (a warp that pauses for a stall count over 1 hands on its turn; one passed over only
             because its pipe was busy keeps it: the next round starts from it, and it goes
             ahead of the warp issuing on as soon as its pipe frees).  With
             scheduler.greedy_cycles G over 1 a warp keeps its turn through a stall of up to G
             cycles after an FP32 or integer instruction without the yield hint, and a warp passed over for a
             busy FP32 or integer pipe no longer keeps the turn (probe alu_rate).
  gwf        greedy then weighted fair: grr, but after an instruction with the yield hint the
             warp does not issue on, and the next is the warp that has issued least, counted in
             strides (stride scheduling): slot s's stride is
             1 / (1 + scheduler.slot_weight_step * s), so among warps that are always ready slot
             s issues in proportion to that weight; ties go to the higher slot.  A warp back from
             a wait gets at most one stride of catch-up (tools/warp_ends.py: the H100's higher
             slots finish first, their shares growing linearly with the slot).
  ogr        oldest block first: grr's order (the warp issuing back to back kept first), but the
             other warps taken oldest block first (launch order, across kernels), round robin
             within a block (tools/block_order.py: on the H100 an SM's blocks end in launch
             order, and a later kernel's wait behind an earlier one's).
  awf        age-weighted fair: after an instruction with the yield hint, ogr's order with the
             warp that yielded last where other blocks' warps are listed (so the two oldest warps
             of different blocks take turns; one block alone goes as by grr); after one without, grr's
             order with the blocks sorted by how much they have issued, counted in strides (stride
             scheduling per block: the k-th oldest block with warps on the scheduler weighs
             max(1 - scheduler.age_weight_step * k, age_weight_step)), so that among warps that
             are always ready each block issues in proportion to its weight, and one block alone
             is scheduled as by grr (tools/warp_progress.py: on the H100 an SM's blocks advance
             at steady shares that fall by about the same step with each younger block where the
             code has no yield hints, and strictly oldest first where every instruction has one).

`candidates` writes the order into `out` and returns how many; the cycle loop issues the first
eligible ones.  `order[sm, sp]` lists the sub-partition's resident warps oldest first.
"""
from __future__ import annotations

from simt_sim.engine.jit import compiled, compiled_inline
from simt_sim.machine.layout import (PASS_ONE, R_LONG, SC_HELD_AT, SC_LAST, SC_RR_FROM, SC_N_ORDER, SC_SLOTS_USED, SC_VTIME, SCHED_AWF, SCHED_GRR, SCHED_GTO, SCHED_OGR, WF_BLOCK_AGE,
                                     SCHED_GTY, SCHED_GWF, SCHED_LRR, SCHED_OLDEST,
                                     WF_AGE, WF_GREEDY, WF_LAST_CYCLE, WF_PASS, WF_YIELDED,
                                     WF_OCCUPIED, WF_OPERANDS_AT, WF_OPERANDS_KIND, WF_POOL, WF_POOL_STAMP,
                                     WF_STATUS, W_READY)


@compiled
def rebuild_order(order, sched, wf, sm, sp, n_sp, warps_per_sm):
    """Age-sorted list of the occupied warps of scheduler (sm, sp), and how many of its slots are
    in use (up to the highest occupied one)."""
    n = 0
    first = sm * warps_per_sm
    sched[sm, sp, SC_SLOTS_USED] = 0
    for local in range(sp, warps_per_sm, n_sp):
        w = first + local
        if wf[w, WF_OCCUPIED]:
            sched[sm, sp, SC_SLOTS_USED] = (local - sp) // n_sp + 1
            age = wf[w, WF_AGE]
            j = n - 1
            while j >= 0 and wf[order[sm, sp, j], WF_AGE] > age:
                order[sm, sp, j + 1] = order[sm, sp, j]
                j -= 1
            order[sm, sp, j + 1] = w
            n += 1
    sched[sm, sp, SC_N_ORDER] = n


@compiled_inline
def candidates(policy, greedy, order, sched, wf, pool_size, cycle, sm, sp, n_sp, warps_per_sm, out):
    n = sched[sm, sp, SC_N_ORDER]
    last = sched[sm, sp, SC_LAST]
    if policy == SCHED_OLDEST:
        for k in range(n):
            out[k] = order[sm, sp, k]
        return n
    if policy == SCHED_GTO:
        m = 0
        if last >= 0:
            out[0] = last
            m = 1
        for k in range(n):
            w = order[sm, sp, k]
            if w != last:
                out[m] = w
                m += 1
        return m
    if policy == SCHED_LRR:
        return round_robin(sched, wf, sm, sp, n_sp, warps_per_sm, last, out)
    if policy == SCHED_GTY:
        return greedy_then_youngest(order, n, wf, sm, sp, last, out)
    if policy == SCHED_GWF and last >= 0 and wf[last, WF_YIELDED] != 0:
        return weighted_fair(order, n, sched, wf, sm, sp, last, cycle, out)
    if grr_family(policy):
        frm = sched[sm, sp, SC_RR_FROM]
        m = round_robin(sched, wf, sm, sp, n_sp, warps_per_sm, last if frm < 0 else frm - n_sp, out)
        if policy == SCHED_AWF and not (last >= 0 and wf[last, WF_YIELDED] != 0):
            blocks_in_order(wf, out, m, True)       # the block that has issued least first
        elif policy == SCHED_OGR or policy == SCHED_AWF:
            blocks_in_order(wf, out, m, False)      # the oldest block first
            if policy == SCHED_AWF and other_block(wf, out, m, last):
                to_back(out, m, last)        # it yielded: the other blocks' warps go first
                return m
        if last >= 0 and keeps_turn(sched, wf, sm, sp, last, cycle, greedy):
            # still issuing (or held a cycle by a dispatch stall): keep it, behind a warp that
            # last cycle had the turn but not its pipe (it goes as soon as the pipe frees)
            at = 1 if m > 0 and frm >= 0 and frm != last and out[0] == frm else 0
            k = m - 1
            while k >= 0 and out[k] != last:     # last's place in the round, if it can issue at all
                k -= 1
            if k >= 0:
                while k > at:
                    out[k] = out[k - 1]
                    k -= 1
                out[at] = last
        return m
    return two_level(order, n, sched, wf, sm, sp, n_sp, warps_per_sm, last, pool_size, cycle, out)


@compiled_inline
def keeps_turn(sched, wf, sm, sp, last, cycle, greedy):
    """grr: whether the warp that issued last stays first: it issued in the previous cycle (or
    was held then by a dispatch stall), or, with scheduler.greedy_cycles over 1, it issued at most
    that many cycles ago an FP32 or integer instruction without the yield hint (probe alu_rate)."""
    at = wf[last, WF_LAST_CYCLE]
    return at == cycle - 1 or sched[sm, sp, SC_HELD_AT] == cycle - 1 or (at >= cycle - greedy and wf[last, WF_GREEDY] != 0)


@compiled_inline
def grr_family(policy):
    """The policies built on grr's round robin (and its turn for a warp passed over for its pipe)."""
    return policy == SCHED_GRR or policy == SCHED_GWF or policy == SCHED_OGR or policy == SCHED_AWF


@compiled_inline
def goes_after(wf, a, b, by_pass):
    """Whether warp a's block sorts after warp b's: by block age (ogr), or by pass and then age
    (awf after an unhinted instruction)."""
    if by_pass and wf[a, WF_PASS] != wf[b, WF_PASS]:
        return wf[a, WF_PASS] > wf[b, WF_PASS]
    return wf[a, WF_BLOCK_AGE] > wf[b, WF_BLOCK_AGE]


@compiled_inline
def blocks_in_order(wf, out, m, by_pass):
    """grr's order stably sorted by block (each block's warps in grr's order): the oldest block
    first (ogr), or with by_pass the block that has issued least, in strides, first, a tie to the
    older block (awf after an unhinted instruction)."""
    for k in range(1, m):
        w = out[k]
        j = k
        while j > 0 and goes_after(wf, out[j - 1], w, by_pass):
            out[j] = out[j - 1]
            j -= 1
        out[j] = w


@compiled_inline
def other_block(wf, out, m, w):
    """Whether any of the m listed warps belongs to another block than warp w."""
    for k in range(m):
        if wf[out[k], WF_BLOCK_AGE] != wf[w, WF_BLOCK_AGE]:
            return True
    return False


@compiled_inline
def to_back(out, m, w):
    """Move warp w (if listed) behind the others."""
    k = 0
    while k < m and out[k] != w:
        k += 1
    if k < m:
        while k < m - 1:
            out[k] = out[k + 1]
            k += 1
        out[m - 1] = w


@compiled_inline
def weighted_fair(order, n, sched, wf, sm, sp, last, cycle, out):
    """gwf's order after a yield: a warp passed over for its busy pipe, then one held a cycle by
    a dispatch stall, then the others by pass (ties: the higher slot)."""
    head = 0
    frm = sched[sm, sp, SC_RR_FROM]
    if frm >= 0 and wf[frm, WF_OCCUPIED]:
        out[0] = frm
        head = 1
    else:
        frm = -1
    keep = -1       # the warp that yielded does not issue on (a warp held a cycle keeps its turn)
    if last >= 0 and last != frm and wf[last, WF_OCCUPIED] and sched[sm, sp, SC_HELD_AT] == cycle - 1:
        keep = last
        out[head] = last
        head += 1
    m = head
    for k in range(n):
        w = order[sm, sp, k]
        if w == frm or w == keep:
            continue
        j = m
        while j > head and (wf[w, WF_PASS] < wf[out[j - 1], WF_PASS]
                            or (wf[w, WF_PASS] == wf[out[j - 1], WF_PASS] and w > out[j - 1])):
            out[j] = out[j - 1]
            j -= 1
        out[j] = w
        m += 1
    return m


@compiled_inline
def charge_pass(sched, wf, w, sm, sp, n_sp, warps_per_sm, weight_ppm):
    """gwf: warp w issued; its pass moves on by its slot's stride, from no further back than
    one stride behind the scheduler's virtual time."""
    slot = (w - sm * warps_per_sm - sp) // n_sp
    stride = PASS_ONE * 1000000 // (1000000 + weight_ppm * slot)
    p = max(wf[w, WF_PASS], sched[sm, sp, SC_VTIME] - stride)
    sched[sm, sp, SC_VTIME] = max(sched[sm, sp, SC_VTIME], p)
    wf[w, WF_PASS] = p + stride


AGE_CATCH_UP = 1024       # awf: strides a warp may fall behind the scheduler's virtual time


@compiled_inline
def charge_age_pass(order, sched, wf, w, sm, sp, step_ppm):
    """awf: warp w issued; its block's pass on this scheduler (kept in each of its warps) moves on
    by the block's stride, 1 / max(1 - step * k, step) for the k-th oldest block with warps on
    the scheduler, from no further back than AGE_CATCH_UP strides behind the virtual time."""
    k = 0
    seen = -1
    age = wf[w, WF_BLOCK_AGE]
    n = sched[sm, sp, SC_N_ORDER]
    for j in range(n):                                # oldest warp first: the blocks in age order
        b = wf[order[sm, sp, j], WF_BLOCK_AGE]
        if b < age and b != seen:
            k += 1
            seen = b
    step = step_ppm / 1e6
    stride = int(PASS_ONE / max(1.0 - step * k, step, 1e-3))
    p = max(wf[w, WF_PASS], sched[sm, sp, SC_VTIME] - AGE_CATCH_UP * PASS_ONE)
    sched[sm, sp, SC_VTIME] = max(sched[sm, sp, SC_VTIME], p)
    for j in range(n):
        v = order[sm, sp, j]
        if wf[v, WF_BLOCK_AGE] == age:
            wf[v, WF_PASS] = p + stride


@compiled_inline
def greedy_then_youngest(order, n, wf, sm, sp, last, out):
    m = 0
    if last >= 0 and wf[last, WF_YIELDED] == 0:
        out[0] = last
        m = 1
    for k in range(n - 1, -1, -1):           # youngest first
        w = order[sm, sp, k]
        if w != last:
            out[m] = w
            m += 1
    if last >= 0 and wf[last, WF_YIELDED] != 0 and wf[last, WF_OCCUPIED]:
        out[m] = last
        m += 1
    return m


@compiled_inline
def round_robin(sched, wf, sm, sp, n_sp, warps_per_sm, last, out):
    """The scheduler's warp slots by id, starting after `last` and wrapping around; only the
    warps that may issue (W_READY): the others could not take their turn, and leaving them out
    (and the slots past the highest in use) spares the scheduler a look at every empty slot."""
    first = sm * warps_per_sm
    n = sched[sm, sp, SC_SLOTS_USED]
    start = 0
    if last >= 0 and n > 0:
        start = ((last - first - sp) // n_sp + 1) % ((warps_per_sm - sp + n_sp - 1) // n_sp)
        if start >= n:
            start = 0
    m = 0
    for slot in range(start, start + n):       # slots start .. n-1, then 0 .. start-1
        w = first + sp + (slot if slot < n else slot - n) * n_sp
        if wf[w, WF_STATUS] == W_READY:
            out[m] = w
            m += 1
    return m


@compiled
def two_level(order, n, sched, wf, sm, sp, n_sp, warps_per_sm, last, pool_size, cycle, out):
    # demote active warps that wait on long-latency results, a barrier, or have finished
    in_pool = 0
    for k in range(n):
        w = order[sm, sp, k]
        if wf[w, WF_POOL]:
            if wf[w, WF_STATUS] != W_READY or (wf[w, WF_OPERANDS_AT] > cycle and wf[w, WF_OPERANDS_KIND] == R_LONG):
                wf[w, WF_POOL] = 0
                wf[w, WF_POOL_STAMP] = cycle
            else:
                in_pool += 1
    # promote pending warps, longest-waiting first (stamps tie: oldest, as order is by age)
    while in_pool < pool_size:
        best = -1
        for k in range(n):
            w = order[sm, sp, k]
            if (not wf[w, WF_POOL] and wf[w, WF_STATUS] == W_READY
                    and (best < 0 or wf[w, WF_POOL_STAMP] < wf[best, WF_POOL_STAMP])):
                best = w
        if best < 0:
            break
        wf[best, WF_POOL] = 1
        in_pool += 1
    m = 0
    tmp = out[out.shape[0] // 2:]
    for k in range(round_robin(sched, wf, sm, sp, n_sp, warps_per_sm, last, tmp)):
        if wf[tmp[k], WF_POOL]:
            out[m] = tmp[k]
            m += 1
    return m
