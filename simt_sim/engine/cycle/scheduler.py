"""Warp schedulers: in which order a sub-partition's scheduler considers its warps each cycle.

  lrr        loose round robin: start after the warp that issued last, wrap around;
  gto        greedy then oldest: the warp that issued last while it can, otherwise the oldest;
  oldest     always the oldest warp first (age = launch order);
  two-level  a small active pool served round robin; a warp whose next instruction waits on a
             long-latency (global/local memory) result leaves the pool, and the longest-waiting
             pending warp takes its place (Narasiman et al., MICRO 2011).

`candidates` writes the order into `out` and returns how many; the cycle loop issues the first
eligible ones.  `order[sm, sp]` lists the sub-partition's resident warps oldest first.
"""
from __future__ import annotations

from simt_sim.engine.jit import compiled

from simt_sim.machine.state import W_READY
from simt_sim.machine.layout import R_LONG, SCHED_GTO, SCHED_LRR, SCHED_OLDEST


@compiled
def rebuild_order(order, n_order, w_age, occupied, sm, sp, n_sp, warps_per_sm):
    """Age-sorted list of the occupied warps of scheduler (sm, sp)."""
    n = 0
    first = sm * warps_per_sm
    for local in range(sp, warps_per_sm, n_sp):
        w = first + local
        if occupied[w]:
            age = w_age[w]
            j = n - 1
            while j >= 0 and w_age[order[sm, sp, j]] > age:
                order[sm, sp, j + 1] = order[sm, sp, j]
                j -= 1
            order[sm, sp, j + 1] = w
            n += 1
    n_order[sm, sp] = n


@compiled
def candidates(policy, order, n_order, last, pool, pool_size, next_ready, next_kind, pool_stamp, cycle,
               sm, sp, n_sp, warps_per_sm, status, out):
    n = n_order[sm, sp]
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
        return round_robin(sm, sp, n_sp, warps_per_sm, last, out)
    return two_level(order, n, sm, sp, n_sp, warps_per_sm, last, pool, pool_size, next_ready, next_kind,
                     pool_stamp, cycle, status, out)


@compiled
def round_robin(sm, sp, n_sp, warps_per_sm, last, out):
    """The scheduler's warp slots by id, starting after `last` and wrapping around."""
    first = sm * warps_per_sm
    n = (warps_per_sm - sp + n_sp - 1) // n_sp
    start = 0
    if last >= 0:
        start = ((last - first - sp) // n_sp + 1) % n
    for k in range(n):
        out[k] = first + sp + ((start + k) % n) * n_sp
    return n


@compiled
def two_level(order, n, sm, sp, n_sp, warps_per_sm, last, pool, pool_size, next_ready, next_kind, pool_stamp,
              cycle, status, out):
    # demote active warps that wait on long-latency results, a barrier, or have finished
    in_pool = 0
    for k in range(n):
        w = order[sm, sp, k]
        if pool[w]:
            if status[w] != W_READY or (next_ready[w] > cycle and next_kind[w] == R_LONG):
                pool[w] = 0
                pool_stamp[w] = cycle
            else:
                in_pool += 1
    # promote pending warps, longest-waiting first (stamps tie: oldest, as order is by age)
    while in_pool < pool_size:
        best = -1
        for k in range(n):
            w = order[sm, sp, k]
            if not pool[w] and status[w] == W_READY and (best < 0 or pool_stamp[w] < pool_stamp[best]):
                best = w
        if best < 0:
            break
        pool[best] = 1
        in_pool += 1
    m = 0
    tmp = out[out.shape[0] // 2:]
    for k in range(round_robin(sm, sp, n_sp, warps_per_sm, last, tmp)):
        if pool[tmp[k]]:
            out[m] = tmp[k]
            m += 1
    return m
