"""The constant caches of SASS timing (config `sass.constants`): each sub-partition's
immediate-constant cache, through which an instruction reads its c[bank][offset] operand (ULDC
too), and each SM's LDC cache.

Both hold lines of sass.constants.line_bytes, direct mapped, and start every launch empty: each
launch's constants have addresses of their own (tables.constant_reads).  An instruction whose line
is missing requests it; the line is there the miss latency later, for every warp that needs it
(the warps of a sub-partition share its immediate-constant cache, the sub-partitions their SM's
LDC cache, and neither path fills the other: tools/imc_miss.py).  The whole GPU has at most
sass.constants.gpu_misses line requests in flight (probe constant_congestion).  A warp waits at
an instruction whose immediate constant is missing (Nsight Compute: imc_miss); an LDC's result
comes its latency after its line is there.
"""
from __future__ import annotations

from simt_sim.engine.functional.regfile import opnd, source_bits
from simt_sim.engine.functional.simt_stack import first_lane
from simt_sim.engine.jit import compiled_inline
from simt_sim.machine.layout import CC_READY, CC_TAG, CONST_IMC, CONST_LDC, CONST_PATH_BITS, TC

T_CONST_LINE, T_CONST_LINES, T_GPU_MISSES = TC["const_line_bytes"], TC["const_lines"], TC["const_gpu_misses"]
T_IMC_MISS, T_LDC_MISS = TC["imc_miss"], TC["ldc_miss"]
PATH_MASK = (1 << CONST_PATH_BITS) - 1


@compiled_inline
def reads_through(tab, pc, path):
    """Whether pc's constant operand goes through cache `path` (layout.CONST_*)."""
    ref = tab.const_ref[pc]
    return ref >= 0 and (ref & PATH_MASK) == path


@compiled_inline
def constant_address(tab, pc):
    """The address of pc's constant (before an LDC's register index)."""
    return tab.const_ref[pc] >> CONST_PATH_BITS


@compiled_inline
def first_back(flight, n):
    """Which of the GPU's n constant line requests in flight (their return cycles) is back first."""
    first = 0
    for i in range(1, n):
        if flight[i, CC_READY] < flight[first, CC_READY]:
            first = i
    return first


@compiled_inline
def line_ready(cache, tc, sm, level, line, latency, now):
    """Cycle from which `line` is in constant cache `level` of SM sm (a sub-partition's, or the LDC
    cache after them), requested at `now` when missing.  A request leaves at once while the GPU has
    fewer than sass.constants.gpu_misses in flight (the last row of `cache`), else when the first
    of them is back, and holds its place until its line is."""
    slot = cache[sm, level, line % tc[T_CONST_LINES]]
    if slot[CC_TAG] != line + 1:
        slot[CC_TAG] = line + 1
        slot[CC_READY] = now + latency
        if tc[T_GPU_MISSES] > 0:
            flight = cache[cache.shape[0] - 1, 0]
            i = first_back(flight, tc[T_GPU_MISSES])
            slot[CC_READY] = max(now, flight[i, CC_READY]) + latency
            flight[i, CC_READY] = slot[CC_READY]
    return slot[CC_READY]


@compiled_inline
def immediate_constant_ready(cache, tab, tc, sm, sp, pc, now):
    """When pc's immediate constant is in sm/sp's cache for a warp that reached pc at `now` (`now`
    when pc reads none, or the cache is not modelled)."""
    if tc[T_IMC_MISS] == 0 or not reads_through(tab, pc, CONST_IMC):
        return now
    return line_ready(cache, tc, sm, sp, constant_address(tab, pc) // tc[T_CONST_LINE], tc[T_IMC_MISS], now)


@compiled_inline
def ldc_line_ready(code, regs, cache, tab, tc, pc, t0, exec_mask, sm, start):
    """When the line an LDC entering its unit at `start` reads is in its SM's LDC cache (`start`
    for any other instruction, or without the cache): the address adds the index register of its
    first executing thread (threads t0, t0 + 1, ... by exec_mask)."""
    if tc[T_LDC_MISS] == 0 or not reads_through(tab, pc, CONST_LDC) or exec_mask == 0:
        return start
    kind, idx, imm, _ = opnd(code.rows[pc], 2)
    address = constant_address(tab, pc) + source_bits(code, regs, t0 + first_lane(exec_mask), kind, idx, imm)
    ready = line_ready(cache, tc, sm, cache.shape[1] - 1, address // tc[T_CONST_LINE], tc[T_LDC_MISS], start)
    return max(start, ready)
