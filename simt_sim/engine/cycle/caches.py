"""Memory timing: the L1 / L2 / DRAM hit model with bandwidth queues, the shared-memory port, the
global store path and the SM-wide units of constant loads and special-register reads (which
transactions an access makes is coalesce.py's business).

The hit model (documented in docs/timing.md): L1 (per SM) and L2 (whole GPU) are set-associative
LRU caches of `line_bytes` lines with a valid bit per sector.  A load sector that hits L1 costs
the L1 latency; one that misses L1 and hits L2 the L2 latency; one that misses both the DRAM
latency; missing sectors are filled into both levels.  `.cg`/`.cv`/`.volatile` loads skip L1.
Stores write through to L2 (allocating there) and update L1 only where the line is present.
Each level is also a queue with a bandwidth (sectors or bytes per cycle): a request waits until
the port is free, and n sectors take n / bandwidth cycles to pass.  The data is ready when the
slowest sector arrives.  A load's L2 hit strays from the mean by an offset fixed per SM and line
(the H100's near and far L2 halves), drawn from `memory.l2.latency_spread_ns` by a hash of the two.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from simt_sim.engine.jit import compiled

from simt_sim.machine.layout import (LATENCY_SPREAD_SLOTS, SECT_DRAM_READ, SECT_L1_HIT, SECT_L1_PENDING, SECT_L2_HIT,
                                     SECT_L2_READ, SECT_LOAD, SECT_STORE, TC, TF)

MemTiming = namedtuple("MemTiming", "l1_tag l1_valid l1_stamp l1_fill l2_tag l2_valid l2_stamp l2_fill ports clock "
                                     "shared_booked shared_end dram_done dram_flight store_fifo store_head")
# *_fill: cycle at which a line's most recently requested data arrives (a hit on a line still
# being filled waits for it, like a hit on an outstanding miss)
# ports (float64): [sm] L1 / LSU data port, [n_sm] L2, [n_sm + 1] DRAM, [n_sm + 2 + sm] the SM's
# store port (memory.l1.store_sectors_per_cycle), [(2 + k) n_sm + 2 + sm] its SM-wide unit k
# (sass.sm_unit_cycles: constant loads, special-register reads)
# store_fifo [sm, q, i] (float64): when each of the last stores left store buffer q (q < n_sp: that
# sub-partition's, q = n_sp: the SM's), a ring of the buffer's size; store_head [sm, q] its next slot.
# shared_booked / shared_end [sm, cycle % SHARED_CALENDAR]: the SM's shared-memory port, one pass per
# cycle, as a calendar: cycle + 1 where that cycle is booked, and the end of the booking it is in.
# Bookings lie at most a few hundred cycles ahead (the queues hold 4 x (memory_queue + 1) accesses
# of at most 32 passes), well inside the calendar.
SHARED_CALENDAR = 4096
# dram_done[cycle % DRAM_CALENDAR]: DRAM load sectors that arrive in that cycle; dram_flight: [the
# cycle up to which arrivals are counted, the sectors still in flight].  Loads finish within a few
# thousand cycles of their issue, well inside the calendar.
DRAM_CALENDAR = 16384

T_NSM, T_SECTOR, T_LINE = TC["n_sm"], TC["sector_bytes"], TC["line_bytes"]
T_L1_LAT, T_L1_SETS, T_L1_WAYS, T_L1_HASH = TC["l1_latency"], TC["l1_sets"], TC["l1_ways"], TC["l1_hash"]
T_L2_LAT, T_L2_SETS, T_L2_WAYS, T_L2_ATOM = TC["l2_latency"], TC["l2_sets"], TC["l2_ways"], TC["l2_atomic"]
T_DRAM_LAT, T_MISSES_IN_L2, T_DRAM_SHIFT = TC["dram_latency"], TC["misses_in_l2"], TC["dram_spread_shift"]
T_HOST_FAR, T_HOST_FAR_SHIFT = TC["host_far"], TC["host_far_shift"]
T_REFRESH_MASK, T_REFRESH_EVERY, T_REFRESH = TC["dram_refresh_mask"], TC["dram_refresh_interval"], TC["dram_refresh"]
T_REFRESH_UNITS = TC["dram_refresh_units"]
T_NSP, T_STORE_BUF, T_SP_STORE_BUF = TC["n_sp"], TC["l1_store_buffer"], TC["smsp_store_buffer"]
T_SM_UNITS = TC["sm_units"]
T_SMEM_LAT, T_SMEM_ATOM, T_SMEM_PASS_LAT = TC["smem_latency"], TC["smem_atomic"], TC["smem_wavefront_latency"]
F_L1_BW, F_L2_BW, F_DRAM_BW = TF["l1_sectors_per_cycle"], TF["l2_sectors_per_cycle"], TF["dram_bytes_per_cycle"]
F_L2_SPREAD, F_DRAM_SPREAD = TF["l2_spread0"], TF["dram_spread0"]
F_DRAM_INFLIGHT, F_STORE_BW = TF["dram_inflight_cycles"], TF["l1_store_sectors_per_cycle"]
F_STORE_MIN, F_SP_STORE = TF["l1_store_min_cycles"], TF["smsp_store_cycles"]

LEVEL_L1, LEVEL_L2, LEVEL_DRAM = 0, 1, 2


def make_mem_timing(tc, n_sm: int) -> MemTiming:
    l1_shape = (n_sm, tc[T_L1_SETS], tc[T_L1_WAYS])
    l2_shape = (tc[T_L2_SETS], tc[T_L2_WAYS])
    # all zeros: the OS hands out zeroed pages lazily, so a launch touches only the sets it uses
    return MemTiming(np.zeros(l1_shape, np.int64), np.zeros(l1_shape, np.int64), np.zeros(l1_shape, np.int64),
                     np.zeros(l1_shape, np.int64),
                     np.zeros(l2_shape, np.int64), np.zeros(l2_shape, np.int64), np.zeros(l2_shape, np.int64),
                     np.zeros(l2_shape, np.int64), np.zeros((2 + tc[T_SM_UNITS]) * n_sm + 2, np.float64),
                     np.zeros(1, np.int64),
                     np.zeros((n_sm, SHARED_CALENDAR), np.int64), np.zeros((n_sm, SHARED_CALENDAR), np.int64),
                     np.zeros(DRAM_CALENDAR, np.int64), np.zeros(2, np.int64),
                     np.full((n_sm, tc[T_NSP] + 1, max(tc[T_STORE_BUF], tc[T_SP_STORE_BUF])), -1e18),   # long gone
                     np.zeros((n_sm, tc[T_NSP] + 1), np.int64))


@compiled
def invalidate_l1(mt):
    """Every SM's L1 drops its lines (a kernel starts)."""
    mt.l1_tag[:] = 0
    mt.l1_valid[:] = 0


@compiled
def cache_access(tag, valid, stamp, s, ways, line, sector_bit, now, allocate):
    """Look up one sector in set s of a set-associative LRU cache (tag/valid/stamp are [sets, ways]
    views).  Returns (hit, way) — way is where the line now lives, -1 when it is not cached; on a
    miss with allocate the sector is filled (evicting the least recently used line).  A tag holds
    line + 1, so that 0 marks an empty way."""
    victim = 0
    oldest = np.int64(1) << 62
    for wy in range(ways):
        if tag[s, wy] == line + 1:
            stamp[s, wy] = now
            if valid[s, wy] & sector_bit:
                return True, wy
            if allocate:
                valid[s, wy] |= sector_bit
                return False, wy
            return False, -1
        if stamp[s, wy] < oldest:
            oldest = stamp[s, wy]
            victim = wy
    if allocate:
        tag[s, victim] = line + 1
        valid[s, victim] = sector_bit
        stamp[s, victim] = now
        return False, victim
    return False, -1


@compiled
def l1_set(line, sets, hashed):
    """The L1 set of a line: line mod sets, or with `hashed` (memory.l1.hash_sets; tc l1_hash:
    log2(sets) + 1 for a power of two, -1 for other counts) its higher digits folded in, so that
    lines a power of two apart do not meet in one set.  Shifts where they do the divisions' work:
    a division by a number the compiler does not know costs the memory-bound runs 8-14%."""
    if hashed > 0:
        b = hashed - 1
        return (line ^ (line >> b) ^ (line >> (2 * b))) & (sets - 1)
    if hashed < 0:
        return (line ^ (line // sets) ^ (line // sets // sets)) % sets
    return line % sets


@compiled
def spread_slot(line, sm):
    """The latency-offset slot of an SM/line pair: a fixed pseudo-random number in
    [0, LATENCY_SPREAD_SLOTS), the same for every access of the pair (factors below 2**31 keep each
    product inside int64 with and without numba)."""
    return hash32(line, sm + 1) % LATENCY_SPREAD_SLOTS


@compiled
def host_copy_offset(tc, line, sm):
    """A host-copied line's first-touch offset from the mean (memory.l2.host_copy_far_ns): half the
    far partition's extra for a line of the other partition, less half for one of the SM's own.
    The two blocks of host_copy_far_bytes of each aligned pair belong to different partitions (the
    H100 alternates every 8 KiB), which one to which drawn by a hash of the pair, so that strides
    of a power of two do not land on one partition; which SMs sit by which is not measured: the
    two SMs of a TPC together, TPCs alternating."""
    block = line >> tc[T_HOST_FAR_SHIFT]
    far = (block ^ hash32(block >> 1, 7) ^ (sm >> 1)) & 1
    return (far - 0.5) * tc[T_HOST_FAR]


@compiled
def hash32(key, salt):
    """A fixed pseudo-random 32-bit number of (key, salt)."""
    h = ((key & 0xFFFFFFFF) * 0x5BD1E995 + salt * 0x2545F491) & 0xFFFFFFFF
    h = ((h ^ (h >> 16)) * 0x27D4EB2F) & 0xFFFFFFFF
    h = ((h ^ (h >> 15)) * 0x165667B1) & 0xFFFFFFFF
    return h ^ (h >> 16)


@compiled
def refresh_wait(tc, line, cycle):
    """Cycles a DRAM load of `line` at `cycle` waits for its refresh (memory.dram.
    refresh_interval_ns): the lines that differ only in refresh_shared_bits are refreshed once an
    interval, at a phase fixed by a hash of their common address (or of the one of refresh_units
    groups that hash picks)."""
    every = tc[T_REFRESH_EVERY]
    if every <= 0:
        return 0
    key = hash32(line & ~tc[T_REFRESH_MASK], 0)
    if tc[T_REFRESH_UNITS] > 0:
        key = hash32(key % tc[T_REFRESH_UNITS], 1)
    into = (cycle - key) % every
    return max(tc[T_REFRESH] - into, 0)


@compiled
def queue(ports, port, start, amount, rate):
    """Pass `amount` through a port of `rate` per cycle no earlier than `start`; returns the wait
    (cycles from start until the last unit has passed, minus one unit's time)."""
    t = max(start, ports[port])
    ports[port] = t + amount / rate
    return t - start + (amount - 1) / rate


@compiled
def sm_unit_start(mt, tc, sm, k, cycle, held):
    """The cycle SM-wide unit k of sm takes an instruction issued at `cycle`, which holds it `held`
    cycles (sass.sm_unit_cycles): the SM's sub-partitions share it, first come first served."""
    port = (2 + k) * tc[T_NSM] + 2 + sm
    start = max(np.float64(cycle), mt.ports[port])
    mt.ports[port] = start + held
    return np.int64(start)


@compiled
def store_port(mt, tc, tf, sm, sp, cycle, n_sect):
    """A global store of n_sect sectors issued at `cycle` by sub-partition sp: returns the cycles it
    waits for room in the sub-partition's store buffer.  A store leaves its sub-partition's buffer
    at most one per memory.l1.smsp_store_cycles, and only when the SM's buffer has room; the port
    takes one per max(store_min_cycles, n_sect / store_sectors_per_cycle) cycles.  Without a port
    (rate 0) the store leaves as it issues."""
    rate = tf[F_STORE_BW]
    if rate <= 0:
        return np.int64(0)
    enter = max(np.float64(cycle), slot_free_at(mt, sm, sp, tc[T_SP_STORE_BUF]))
    n_sp = tc[T_NSP]
    leave_sp = max(enter, last_left_at(mt, sm, sp, tc[T_SP_STORE_BUF]) + tf[F_SP_STORE],
                   slot_free_at(mt, sm, n_sp, tc[T_STORE_BUF]))
    port = tc[T_NSM] + 2 + sm
    taken = max(leave_sp, mt.ports[port])
    mt.ports[port] = taken + max(tf[F_STORE_MIN], n_sect / rate)
    push_slot(mt, sm, sp, tc[T_SP_STORE_BUF], leave_sp)
    push_slot(mt, sm, n_sp, tc[T_STORE_BUF], taken)
    return np.int64(np.ceil(enter - cycle))


@compiled
def slot_free_at(mt, sm, q, size):
    """When store buffer q (a ring of `size`) has room for one more: when the store `size` stores
    back left it."""
    return mt.store_fifo[sm, q, mt.store_head[sm, q] % size]


@compiled
def last_left_at(mt, sm, q, size):
    """When the latest store left store buffer q."""
    return mt.store_fifo[sm, q, (mt.store_head[sm, q] - 1) % size]


@compiled
def push_slot(mt, sm, q, size, leave):
    head = mt.store_head[sm, q]
    mt.store_fifo[sm, q, head % size] = leave
    mt.store_head[sm, q] = (head + 1) % size


@compiled
def dram_in_flight(done, flight, cycle):
    """DRAM load sectors still in flight at `cycle` (arrivals up to it counted off)."""
    if cycle - flight[0] >= done.shape[0]:
        done[:] = 0
        flight[1] = 0
        flight[0] = cycle
    while flight[0] < cycle:
        flight[0] += 1
        flight[1] -= done[flight[0] % done.shape[0]]
        done[flight[0] % done.shape[0]] = 0
    return flight[1]


@compiled
def book_dram(done, flight, cycle, arrive, sectors):
    """`sectors` DRAM load sectors issued at `cycle` arrive at `arrive` (kept within the calendar)."""
    at = min(max(arrive, flight[0] + 1), flight[0] + done.shape[0] - 1)
    done[at % done.shape[0]] += sectors
    flight[1] += sectors


@compiled
def count_sectors(counts, tc, n_sect, is_store, l1_hits, l1_pending, l2_hits, dram):
    """Where an access's sectors went, as layout.SECTOR_FIELDS counts them (the host's copies'
    lines, which the model misses in L2 but times from it, count as L2 hits)."""
    counts[:] = 0
    if is_store:
        counts[SECT_STORE] = n_sect
        return
    from_dram = 0 if tc[T_MISSES_IN_L2] else dram
    counts[SECT_LOAD] = n_sect
    counts[SECT_L1_HIT] = l1_hits
    counts[SECT_L1_PENDING] = l1_pending
    counts[SECT_L2_READ] = l2_hits + dram
    counts[SECT_L2_HIT] = l2_hits + dram - from_dram
    counts[SECT_DRAM_READ] = from_dram


@compiled
def global_access(mt, tc, tf, sm, cycle, sectors, n_sect, is_store, skip_l1, atomic_serial, ways_l1, ways_l2, counts):
    """Timing of one warp-instruction's global (or local) access of n_sect distinct sectors.
    Returns the cycle its data is ready (loads, atomics) or written (stores).
    ways_l1 / ways_l2: scratch for where each sector's line sits (-1: not cached); counts: set to
    where its sectors went (layout.SECTOR_FIELDS)."""
    sector_bytes = tc[T_SECTOR]
    per_line = tc[T_LINE] // sector_bytes
    n_sm = tc[T_NSM]
    sets1, sets2 = tc[T_L1_SETS], tc[T_L2_SETS]
    mt.clock[0] += 1
    now = mt.clock[0]
    l1_hits = 0
    l1_pending = 0
    l2_hits = 0
    dram = 0
    pending = np.int64(0)           # hits on lines whose fill is still on its way
    # the slowest L2 line's latency offset (stores keep the mean: the spread is a load's round trip)
    l2_offset = 0.0 if is_store else -np.inf
    dram_offset = 0.0 if is_store else -np.inf      # the slowest DRAM line's (tools/dram_lines.py)
    for i in range(n_sect):
        sec = sectors[i]
        line = sec // per_line
        bit = np.int64(1) << (sec % per_line)
        ways_l1[i] = -1
        ways_l2[i] = -1
        if not skip_l1 and atomic_serial == 0:
            s1 = l1_set(line, sets1, tc[T_L1_HASH])
            hit1, ways_l1[i] = cache_access(mt.l1_tag[sm], mt.l1_valid[sm], mt.l1_stamp[sm], s1,
                                            tc[T_L1_WAYS], line, bit, now, not is_store)
            if hit1 and not is_store:
                l1_hits += 1
                l1_pending += mt.l1_fill[sm, s1, ways_l1[i]] > cycle
                pending = max(pending, mt.l1_fill[sm, s1, ways_l1[i]])
                ways_l1[i] = -1          # nothing to fill
                continue
        hit2, ways_l2[i] = cache_access(mt.l2_tag, mt.l2_valid, mt.l2_stamp, line % sets2, tc[T_L2_WAYS], line,
                                        bit, now, True)
        if hit2 or is_store:
            l2_hits += 1
            if not is_store:
                l2_offset = max(l2_offset, tf[F_L2_SPREAD + spread_slot(line, sm)])
            if hit2:
                pending = max(pending, mt.l2_fill[line % sets2, ways_l2[i]])
                ways_l2[i] = -1
        else:
            dram += 1                   # a load (a store counts as an L2 hit above)
            if tc[T_MISSES_IN_L2]:      # a host copy's line: near or far L2 partition, no DRAM offset
                dram_offset = max(dram_offset, host_copy_offset(tc, line, sm))
            else:
                dram_offset = max(dram_offset, tf[F_DRAM_SPREAD + spread_slot(line >> tc[T_DRAM_SHIFT], sm)]
                                  + refresh_wait(tc, line, cycle))
    wait1 = queue(mt.ports, sm, np.float64(cycle), n_sect, tf[F_L1_BW])
    ready = np.float64(cycle)
    if l1_hits > 0:
        ready = max(ready, cycle + wait1 + tc[T_L1_LAT])
    below = l2_hits + dram
    count_sectors(counts, tc, n_sect, is_store, l1_hits, l1_pending, l2_hits, dram)
    if below > 0:
        wait2 = wait1 + queue(mt.ports, n_sm, cycle + wait1, below, tf[F_L2_BW])
        if l2_hits > 0:
            ready = max(ready, cycle + wait2 + tc[T_L2_LAT] + l2_offset)
        if dram > 0 and tc[T_MISSES_IN_L2]:     # the host's copies: L2's lines, past its port alone
            ready = max(ready, cycle + wait2 + tc[T_DRAM_LAT] + dram_offset)
        elif dram > 0:
            wait3 = wait2 + queue(mt.ports, n_sm + 1, cycle + wait2, dram, tf[F_DRAM_BW] / sector_bytes)
            arrive = cycle + wait3 + tc[T_DRAM_LAT] + dram_offset
            if tf[F_DRAM_INFLIGHT] > 0:
                arrive += tf[F_DRAM_INFLIGHT] * dram_in_flight(mt.dram_done, mt.dram_flight, np.int64(cycle))
                book_dram(mt.dram_done, mt.dram_flight, np.int64(cycle), np.int64(np.ceil(arrive)), dram)
            ready = max(ready, arrive)
    if atomic_serial > 0:
        ready += (atomic_serial - 1) * tc[T_L2_ATOM]
    done = max(np.int64(np.ceil(ready)), pending)
    for i in range(n_sect):             # lines filled by this access become usable at `done`
        line = sectors[i] // per_line
        if ways_l1[i] >= 0:
            mt.l1_fill[sm, l1_set(line, sets1, tc[T_L1_HASH]), ways_l1[i]] = done
        if ways_l2[i] >= 0:
            mt.l2_fill[line % sets2, ways_l2[i]] = done
    return done


@compiled
def shared_access(mt, tc, sm, cycle, ways, atomic_serial):
    """Shared-memory timing: `ways` passes through the SM's shared port, then the latency (and
    `memory.shared.wavefront_latency` for each pass after the first).  Returns the cycle the data
    is ready and the cycles the access waited for the port to start taking it."""
    start = book_port(mt.shared_booked, mt.shared_end, sm, cycle, ways)
    ready = start + (ways - 1) + tc[T_SMEM_LAT] + (ways - 1) * tc[T_SMEM_PASS_LAT]
    if atomic_serial > 0:
        ready += (atomic_serial - 1) * tc[T_SMEM_ATOM]
    return np.int64(ready), np.int64(start - cycle)


@compiled
def book_port(booked, end, sm, cycle, n):
    """The first cycle from `cycle` on that begins n free cycles of the SM's shared port; books them.
    Accesses book in issue order, but a queued one (sass.memory_queue) may enter its pipe before
    one issued earlier: it takes a gap before that one's booking instead of waiting behind it.  With
    accesses in cycle order this is the port's first free cycle."""
    size = booked.shape[1]
    t = np.int64(cycle)
    i = 0
    while i < n:
        c = t + i
        if booked[sm, c % size] == c + 1:          # taken: go on from the end of its booking
            t = end[sm, c % size]
            i = 0
        else:
            i += 1
    for c in range(t, t + n):
        booked[sm, c % size] = c + 1
        end[sm, c % size] = t + n
    return t
