"""Which memory transactions a warp-instruction's lane addresses make: distinct 32-byte sectors
(global and local memory), passes through the shared-memory banks, and how many lanes of an
atomic hit the same address (they serialise)."""
from __future__ import annotations

from simt_sim.engine.jit import compiled
from simt_sim.machine.layout import TC

T_BANKS, T_BANK_BYTES, T_GROUP_BYTES = TC["smem_banks"], TC["smem_bank_bytes"], TC["smem_group_bytes"]


@compiled
def unique_sorted(values, n):
    """Sort values[:n] in place and compact the distinct ones to the front; returns their count."""
    for i in range(1, n):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    m = 0
    for i in range(n):
        if m == 0 or values[i] != values[m - 1]:
            values[m] = values[i]
            m += 1
    return m


@compiled
def granules_of(addrs, n, nbytes, granule, out):
    """Distinct granule indices (addr // granule) touched by n lanes each accessing nbytes at
    addrs[i], sorted into out; returns their count."""
    k = 0
    for i in range(n):
        for g in range(addrs[i] // granule, (addrs[i] + nbytes - 1) // granule + 1):
            out[k] = g
            k += 1
    return unique_sorted(out, k)


@compiled
def sectors_of(addrs, n, nbytes, sector_bytes, out):
    """Distinct sectors touched by the lanes; returns the count."""
    return granules_of(addrs, n, nbytes, sector_bytes, out)


@compiled
def lines_of(sectors, n, sectors_per_line):
    """Distinct lines among n distinct sectors in ascending order."""
    m = 0
    for i in range(n):
        if i == 0 or sectors[i] // sectors_per_line != sectors[i - 1] // sectors_per_line:
            m += 1
    return m


@compiled
def max_same_address(addrs, n, scratch):
    """Largest number of lanes that address the same word (atomics to one address serialise)."""
    for i in range(n):
        scratch[i] = addrs[i]
    m = unique_sorted(scratch, n)
    best = 0
    for j in range(m):
        c = 0
        for i in range(n):
            if addrs[i] == scratch[j]:
                c += 1
        if c > best:
            best = c
    return best


@compiled
def bank_ways(addrs, n, nbytes, tc, scratch):
    """Shared-memory passes: the most distinct words any one bank must deliver (same word: broadcast)."""
    banks = tc[T_BANKS]
    m = granules_of(addrs, n, nbytes, tc[T_BANK_BYTES], scratch)
    best = 0
    for b in range(banks):
        c = 0
        for j in range(m):
            if scratch[j] % banks == b:
                c += 1
        if c > best:
            best = c
    return max(best, 1)


@compiled
def shared_passes(addrs, lanes, n, nbytes, tc, scratch):
    """Passes through the banks of a shared-memory load or store of nbytes per lane by the lanes
    lanes[:n] (ascending) at addrs[:n]: the warp's lanes go in groups of `memory.shared.group_bytes`
    worth of accesses, each group with its own passes (the H100 takes a 16-byte access half a warp at
    a time: an LDS.128 makes two passes even when every lane reads one address)."""
    group_bytes = tc[T_GROUP_BYTES]
    if group_bytes <= 0 or n == 0:
        return bank_ways(addrs, n, nbytes, tc, scratch)
    per_group = max(group_bytes // nbytes, 1)
    total = 0
    first = 0
    while first < n:
        end = first + 1
        while end < n and lanes[end] // per_group == lanes[first] // per_group:
            end += 1
        total += bank_ways(addrs[first:end], end - first, nbytes, tc, scratch)
        first = end
    return total
