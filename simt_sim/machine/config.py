"""GPU configurations: configs/*.yaml, validated on load, turned into launch settings.

The schema below is the one list of keys a config may have; an unknown key, a wrong type or an
impossible value is reported with file:line:column.
"""
from __future__ import annotations

import copy
import numbers
from dataclasses import dataclass, field, replace
from typing import Any
from pathlib import Path

import yaml

from simt_sim.errors import InputError
from simt_sim.isa.table import UNIT_NAMES
from simt_sim.machine.layout import (LATENCY_SPREAD_SLOTS, MAX_MEMORY_QUEUE, MAX_REGISTER_BANKS, MAX_STORE_BUFFER,
                                     POLICY_NAMES, SCHEDULER_NAMES)
from simt_sim.frontend.yamlschema import Field, between, error_at, load_yaml_nodes, node_at, one_of, validate

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()     # a key left out stays out (the engine reads its absence: see the doc)


@dataclass(frozen=True)
class Key(Field):
    """One config key, declared once: its type and bounds (Field's kind and check), its default
    (NO_DEFAULT: a config that leaves it out has none) and its doc string, which names the tool or
    probe that measured it where one did (a config's own values name theirs in its comments).
    Validation, DEFAULTS, `simt-sim configs --show`, `--set` and the key reference
    (config_reference, docs/config-keys.md) all read it."""
    default: Any = NO_DEFAULT


class Section(dict):
    """A mapping of keys.  `present`: the defaults hold it (empty) even when none of its keys has a
    default, as sass.units and sass.memory, which lay values over `units` and `memory`."""
    def __init__(self, keys: dict, present: bool = False):
        super().__init__(keys)
        self.present = present


# Every count, size and latency stays far below int64 overflow in the engine's cycle arithmetic;
# the values that size host arrays (stack depth, pipes, caches) have tighter bounds below.
MAX_CONFIG_VALUE = 2**40


def positive_up_to(hi, least=None):
    """0 < v <= hi, and v >= least where a tiny value would be divided by."""
    floor = f" (at least {least})" if least is not None else ""

    def check(v):
        ok = 0 < v <= hi and (least is None or v >= least)
        return None if ok else f"must be positive{floor} and at most {hi}"
    return check


def bounded(lo, hi, why: str):
    """lo <= v <= hi, the reason for the range named in the error."""
    def check(v):
        return None if lo <= v <= hi else f"must be between {lo:,} and {hi:,} ({why})"
    return check


# Every field has a range a real GPU sits well inside (issue 62): a value far out of it models no
# machine and only makes a run crawl (a latency or port time the engine waits out) or allocate
# (arrays per SM, per bank, per way).  Cycle counts: the slowest H100 event measured here, a
# flushed-cache launch, takes a few thousand cycles.
MAX_CYCLES_VALUE = 10**6
_CYCLES_WHY = "cycles or a rate per cycle: over a million models no GPU and only stalls the run"


def positive(v) -> str | None:
    """0 < v <= MAX_CYCLES_VALUE (a latency, or a rate that may be a fraction per cycle)."""
    return None if 0 < v <= MAX_CYCLES_VALUE else f"must be positive and at most {MAX_CYCLES_VALUE:,} ({_CYCLES_WHY})"


non_negative = bounded(0, MAX_CYCLES_VALUE, _CYCLES_WHY)
_RATE_WHY = "a rate per cycle past a million is no GPU's"


def per_sm(hi: int, what: str, h100: str):
    return bounded(1, hi, f"{what}; the engine keeps state for each; H100: {h100}")


def power_of_two(v) -> str | None:
    return None if 0 < v <= MAX_CONFIG_VALUE and v & (v - 1) == 0 else "must be a power of two"


def _cycles(doc: str) -> Key:
    """A count of cycles (an int, 0 or more) that is 0 unless a config sets it; its doc says what 0 means."""
    return Key(int, non_negative, default=0, doc=doc)


def _hit_latency(what: str, default: int) -> Key:
    """memory.WHERE.latency: a hit's cycles in that level."""
    return Key(int, positive, default=default, doc=f"cycles for a {what} hit, issue to data")


# how many ways a data cache (memory.l1, memory.l2) may have; the instruction caches (fetch) allow 64
_DATA_CACHE_WAYS = bounded(1, 1024, "lines searched per access; H100 L1: 4")


def _cache_geometry(what: str, size_kb: float, size_range: tuple, ways: int, ways_check=_DATA_CACHE_WAYS) -> dict:
    """The size_kb and ways keys of a cache, data (memory.l1, l2) or instruction (fetch.l0, l1):
    their defaults, size_kb's (lowest, highest) and the ways' check; `what` is size_kb's doc."""
    return {"size_kb": Key(float, between(*size_range), default=size_kb, doc=what),
            "ways": Key(int, ways_check, default=ways, doc="associativity (LRU)")}


def _unit_schema(what: str, pipes=NO_DEFAULT, lanes=NO_DEFAULT, latency=NO_DEFAULT) -> dict:
    """The keys of unit `what` (units.WHAT, and sass.units.WHAT without defaults); the other keys have
    none: left out, the unit has no such limit (their docs say what 0 or absence means)."""
    return {
        "pipes": Key(int, between(1, 64), default=pipes,
                     doc=f"{what} pipelines per sub-partition that accept a warp-instruction each"),
        "lanes": Key(float, positive_up_to(64, least=0.001), default=lanes,
                     doc="lanes per pipe: a warp-instruction occupies it ceil(warp_size / lanes) cycles"),
        "latency": Key(int, positive, default=latency, doc="cycles from issue until the result can be read"),
        "shared_with": Key(str, one_of(*UNIT_NAMES), doc="use that unit's pipes instead of own ones"),
        "spare_first_pipe": Key(bool, doc="an instruction that may use any of the unit's pipes takes the first "
                                            "one last, sparing it for those that only it takes (FMA-heavy: IMAD)"),
        "shared_bytes_per_cycle": Key(float, between(0, 1e6),
                                        doc="bytes a pipe moves per cycle for shared-memory loads, stores and "
                                            "ldmatrix: such an instruction holds it for its passes through the "
                                            "banks (banks x bank_bytes each) over this, when that is longer than "
                                            "its interval (with sass.memory_queue: instead of it; 0: not "
                                            "modelled)"),
        "warp_shared_bytes_per_cycle": Key(float, between(0, 1e6),
                                             doc="bytes per cycle one warp's shared-memory accesses move through "
                                                 "the pipe: with sass.memory_queue, a warp's memory instruction "
                                                 "enters the pipe no sooner than its previous shared access's "
                                                 "passes at this rate allow (0: not modelled)"),
        "shared_store_cycles": Key(int, non_negative,
                                     doc="with sass.memory_queue: a shared-memory store holds the pipe for a "
                                         "warp's width of its data at shared_bytes_per_cycle and this many "
                                         "cycles more, whatever its bank conflicts, which cost the SM's port "
                                         "(probe shared_rate; 0: for its passes, as a load)"),
        "warp_shared_store_bytes_per_cycle": Key(float, between(0, 1e6),
                                                   doc="where shared_store_cycles is set, a warp's next memory "
                                                       "instruction waits for its shared store's width at "
                                                       "warp_shared_bytes_per_cycle or its passes through the "
                                                       "banks at this rate, whichever is longer (probe "
                                                       "shared_rate: a lone warp's conflicted stores; 0: "
                                                       "passes at warp_shared_bytes_per_cycle, as a load)"),
        "warp_ldsm_bytes_per_cycle": Key(float, between(0, 1e6),
                                           doc="where warp_shared_conflict_bytes_per_cycle is set, a warp's "
                                               "next memory instruction waits for an ldmatrix's 8x8 matrices "
                                               "(a pass each) at this rate (probe bank_conflicts; 0: at "
                                               "warp_shared_bytes_per_cycle)"),
        "warp_shared_conflict_bytes_per_cycle": Key(float, between(0, 1e6),
                                                      doc="a warp's next memory instruction waits for its shared "
                                                          "load's (ldmatrix's) width at "
                                                          "warp_shared_bytes_per_cycle, and for each pass its bank "
                                                          "conflicts add (each 8x8 matrix of an ldmatrix passes "
                                                          "the banks on its own) at this rate (probe "
                                                          "bank_conflicts; 0: every pass at "
                                                          "warp_shared_bytes_per_cycle)"),
    }


def _unit_names(v) -> str | None:
    """A list of unit names."""
    bad = [u for u in v if u not in UNIT_NAMES]
    return f"names no unit: {', '.join(map(str, bad))} (units: {', '.join(UNIT_NAMES)})" if bad else None


def _latency_table(op_names, what: str, quantity: str = "latency"):
    """Check for a table of cycles (a latency, an interval) whose keys are `name` or `name.type`,
    name one of op_names() (called when a config is checked: the ISA tables load on first use)."""
    def check(v) -> str | None:
        names = op_names()
        for key, value in v.items():
            if str(key).split(".")[0] not in names:
                return f"has key {key!r}, which is not {what}"
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_CYCLES_VALUE:
                return f"{key}: {quantity} must be an integer between 1 and {MAX_CYCLES_VALUE:,} ({_CYCLES_WHY})"
        return None
    return check


def _ptx_opcodes() -> set[str]:
    from simt_sim.isa import isa
    return {op.name for op in isa().ops}


def _sass_families() -> set[str]:
    from simt_sim.isa.sass_table import sass_table
    return {op.name for op in sass_table().ops}


# SASS classes whose instructions their own ports or the control flow time, not a latency
_NOT_LATENCY_TIMED = {"atomic", "async", "barrier", "branch", "call", "control", "convergence", "exit",
                      "memory_load", "memory_order", "memory_store"}


def _sass_latency_families() -> set[str]:
    """SASS families timed by a latency."""
    from simt_sim.isa.sass_table import sass_table
    return {op.name for op in sass_table().ops if op.semantics not in _NOT_LATENCY_TIMED}


def _sass_sm_unit_families() -> set[str]:
    """SASS families sass.sm_unit_cycles can put behind an SM-wide unit: those timed by a latency
    (the unit delays the result) and the barriers (it takes their arrivals)."""
    from simt_sim.isa.sass_table import sass_table
    return _sass_latency_families() | {op.name for op in sass_table().ops if op.semantics == "barrier"}


_SPREAD_LENGTHS = [n for n in range(LATENCY_SPREAD_SLOTS + 1) if n == 0 or LATENCY_SPREAD_SLOTS % n == 0]


def _latency_spread(v) -> str | None:
    """A list of equally likely latency offsets, as many as divide LATENCY_SPREAD_SLOTS."""
    if len(v) not in _SPREAD_LENGTHS:
        return f"must hold {', '.join(map(str, _SPREAD_LENGTHS))} offsets (it holds {len(v)})"
    bad = [x for x in v if isinstance(x, bool) or not isinstance(x, (int, float)) or not -1e4 <= x <= 1e4]
    return f"offsets must be numbers between -10000 and 10000 ns, not {bad[0]!r}" if bad else None


def _address_bits(v) -> str | None:
    """A list of address bits, 0 to 47."""
    bad = [b for b in v if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b < 48]
    return f"must be address bit numbers from 0 to 47, not {bad[0]!r}" if bad else None


def dram_refresh_mean_ns(interval_ns: float, refresh_ns: float) -> float:
    """What DRAM refreshes add to the mean load: a share refresh / interval of the loads wait, half
    a refresh on average (0 without refreshes)."""
    return refresh_ns * refresh_ns / (2 * interval_ns) if interval_ns > 0 else 0.0


def _spread_field(what: str, kept: str, default: list) -> Key:
    return Key(list, _latency_spread, default=default,
               doc=f"equally likely offsets (ns) of {what}, their mean removed; {kept}; [] = none")


def _memory_side(what: str, default: float) -> Key:
    return Key(float, between(0, 1e6), default=default,
               doc=f"nanoseconds of the {what} spent on the memory side's own clocks (crossbar, L2, DRAM), added to "
                   "the cycles at `clock_mhz`")


# memory.l2's near and far partitions for the host's copies (engine/cycle/caches.global_access); the
# sass section's l2 takes the same keys
_HOST_COPY_FAR = {
    "host_copy_far_ns": Key(float, between(0, 1e6),
                              default=0.0, doc="how much longer a host-copied line's first access takes from an SM of "
                                               "the other L2 partition than from one of its own (t-ldg-path's first "
                                               "touches: the H100's alternate every 8 KiB); host_copy_latency stays "
                                               "the mean of the two; 0 = one latency"),
    "host_copy_far_bytes": Key(int, power_of_two, default=8192, doc="the blocks of memory a partition holds whole "
                                                        "(host_copy_far_ns): each aligned pair of them has one in "
                                                        "either partition, which one drawn by a hash of the "
                                                        "pair; a multiple of memory.line_bytes"),
}

# memory.l1's global store path (engine/cycle/caches.store_port); the sass section's l1 takes the same keys
_STORE_PATH = {
    "store_sectors_per_cycle": Key(float, non_negative,
                                   default=0, doc="sectors of global and local stores the SM's store port sends "
                                                    "toward L2 per cycle (t-stg-tput-w8, t-stg-burst-32); 0: no store "
                                                    "path (a store leaves as it issues)"),
    "store_min_cycles": Key(float, non_negative,
                            default=0, doc="the fewest cycles the SM's store port spends on one store instruction, "
                                           "however few its sectors (t-stg-burst-4-sector)"),
    "store_buffer": Key(int, between(1, MAX_STORE_BUFFER),
                        default=1, doc="stores waiting for the SM's store port; while it is full the sub-partitions' "
                                       "stores wait in their own buffers (t-stg-burst-4)"),
    "smsp_store_cycles": Key(float, non_negative,
                               default=0, doc="cycles between two stores of one sub-partition leaving its store "
                                              "buffer for the SM's (t-stg-burst-1: a lone warp's long burst)"),
    "smsp_store_buffer": Key(int, between(1, MAX_STORE_BUFFER),
                               default=1, doc="stores a sub-partition's buffer holds; a store finding it full holds "
                                              "the LD/ST pipe, and so the memory queue, until an entry frees (Nsight "
                                              "Compute: lg_throttle; t-stg-burst-1)"),
}


SCHEMA = {
    "name": Key(str, required=True, doc="short name, as used by --config"),
    "base": Key(str, doc="the config this one inherits from: a name from configs/ (`base: h100`) or a .yaml path "
                         "relative to this file; every key left out here has the base's value (name, description "
                         "and sources excepted), a base may have a base; `simt-sim configs --show NAME` prints "
                         "where each value comes from"),
    "description": Key(str, doc="one line: what machine this models"),
    "sources": Key(str, doc="where the numbers come from"),
    "warp_size": Key(int, between(1, 64), required=True, doc="threads per warp"),
    "num_sms": Key(int, bounded(1, 1024, "the engine keeps caches, ports and block slots for every SM; H100: 132"),
                      default=1, doc="streaming multiprocessors"),
    "clock_mhz": Key(float, positive_up_to(100_000), default=1000.0,
        doc="SM clock a run is simulated at: turns the memory side's nanoseconds into cycles, and cycles into time"),
    "sm": {
        "sub_partitions": Key(int, between(1, 16), default=1, doc="warp schedulers per SM; warp w belongs to w mod N"),
        "max_resident_blocks": Key(int, per_sm(1024, "block slots per SM", "32"), default=32,
            doc="blocks resident at once per SM"),
        "max_warps": Key(int, per_sm(4096, "warp records per SM", "64"), default=64, doc="resident warps per SM"),
        "max_threads": Key(int, per_sm(1 << 17, "resident threads' registers per SM", "2048"),
                             default=2048, doc="resident threads per SM"),
        "registers": Key(int, bounded(1, 1 << 24, "32-bit registers per SM; H100: 65,536"), default=65536,
            doc="32-bit registers per SM"),
        "register_granularity": Key(int, bounded(1, 1 << 16, "at most a whole SM's registers; H100: 256"),
                                      default=256, doc="registers are allocated per warp in multiples of this"),
        "shared_memory": Key(int, bounded(0, 1 << 26, "bytes; shared memory is allocated for every resident block; "
                                                         "H100: 233,472"), default=49152,
            doc="shared memory bytes per SM"),
        "shared_granularity": Key(int, bounded(1, 1 << 16, "bytes; H100: 128"),
                                    default=128, doc="shared memory is allocated per block in multiples of this"),
        "block_launch_latency": _cycles("cycles from a free slot to the new block's first issue"),
        "kernel_launch_latency": _cycles("cycles a kernel spends before its first block starts (launch "
                                         "overhead, counted in its cycles)"),
        "stream_kernel_gap": _cycles("further cycles between a kernel's end and the launch of the next "
                                     "kernel of its stream"),
    },
    "scheduler": {
        "policy": Key(str, one_of(*SCHEDULER_NAMES), default="gto", doc="warp scheduling policy"),
        "issue_width": Key(int, between(1, 16), default=1, doc="warp-instructions a scheduler issues per cycle"),
        "max_issue_per_warp": Key(int, between(1, 16), default=1, doc="of those, how many may come from one warp"),
        "active_pool": Key(int, bounded(1, 4096, "at most sm.max_warps' range"),
                             default=8, doc="two-level: warps in the active pool per scheduler"),
        "slot_weight_step": Key(float, between(0, 1),
                                  default=0.0, doc="gwf: a warp's issue share grows by this fraction per scheduler "
                                                   "slot (slot s weighs 1 + step * s)"),
        "age_weight_step": Key(float, between(0, 1),
                                 default=0.0, doc="awf: after an instruction without the yield hint, the k-th oldest "
                                                  "block resident on the SM (k = 0, 1, ...) issues in proportion to "
                                                  "max(1 - step * k, step)"),
        "greedy_cycles": Key(int, between(1, 64),
                               default=1, doc="grr family: the warp that issued last keeps its turn through a stall "
                                              "of up to this many cycles after an FP32 or integer instruction without "
                                              "the yield hint (1: only while it issues back to back); over 1, a warp "
                                              "passed over for a busy FP32 or integer pipe no longer keeps the turn "
                                              "(probe alu_rate)"),
        "branch_latency": Key(int, non_negative, default=1, doc="cycles after a branch before its warp issues again"),
        "barrier_latency": Key(int, non_negative, default=1, doc="cycles from the last arrival to the release"),
    },
    "units": {                   # per sub-partition; the defaults: a plain machine with H100-like units
        "fp32": _unit_schema("fp32", pipes=1, lanes=32, latency=4),
        "int": _unit_schema("int", pipes=1, lanes=16, latency=4),
        "fp64": _unit_schema("fp64", pipes=1, lanes=16, latency=8),
        "sfu": _unit_schema("sfu", pipes=1, lanes=4, latency=16),
        "tensor": _unit_schema("tensor", pipes=1, lanes=32, latency=24),
        "ldst": _unit_schema("ldst", pipes=1, lanes=8, latency=4),
        "control": _unit_schema("control", pipes=1, lanes=32, latency=1),
    },
    "latency_overrides": Key(dict, _latency_table(_ptx_opcodes, "an opcode (opcode or opcode.type expected)"),
                               default={}, doc="per-opcode latency, key `opcode` or `opcode.type` (e.g. div.f32: 40)"),
    "memory": {
        "sector_bytes": Key(int, bounded(1, 4096, "bytes; a warp's access is split into at most this many per lane; H100: 32"),
                              default=32, doc="coalescing granule: one request per distinct sector"),
        "line_bytes": Key(int, bounded(1, 1 << 16, "bytes; H100: 128"), default=128,
            doc="cache line (tag) size; a multiple of sector_bytes"),
        "param_latency": Key(int, positive, default=4, doc="ld.param / ld.const (constant cache hit)"),
        "shared": {
            "latency": _hit_latency("shared-memory", 24),
            "banks": Key(int, bounded(1, 64, "every access counts its words bank by bank; one per lane of a 64-lane warp at "
                                               "most; H100: 32"),
                           default=32, doc="banks; lanes hitting different words of one bank serialise"),
            "bank_bytes": Key(int, bounded(1, 64, "bytes; H100: 4"), default=4, doc="bytes per bank word"),
            "atomic_cycles": Key(int, positive, default=2, doc="extra cycles per same-address shared atomic"),
            "group_bytes": Key(int, bounded(0, 1 << 16, "bytes of a warp's access; H100: 256"),
                                 default=0, doc="a load or store passes the banks in groups of lanes whose accesses "
                                                "total at most this many bytes, each group with its own passes (256: "
                                                "a 16-byte access half a warp at a time; 0: the whole warp at once)"),
            "wavefront_latency": _cycles("cycles each pass after the first adds to an access's latency, "
                                         "beyond its turn at the SM's port (one cycle a pass)"),
        },
        "l1": {
            "latency": _hit_latency("L1", 32),
            **_cache_geometry("L1 data cache per SM", 128, (1, 65536), 4),
            "hash_sets": Key(bool, default=False, doc="a line's set folds its address's higher digits in (line ^ line "
                                                      "/ sets ^ line / sets^2, mod sets), so lines a power of two "
                                                      "apart spread over the sets (probe l1_sets: the H100's L1 "
                                                      "keeps 1,536 lines 128 B, 64 KiB or 256 KiB apart alike); "
                                                      "false: line mod sets"),
            "sectors_per_cycle": Key(float, positive, default=4, doc="bandwidth per SM"),
            "invalidate_at_launch": Key(bool, default=False, doc="every SM's L1 drops its lines when a kernel starts "
                                                                 "(the GPU keeps L1, which is not coherent, from "
                                                                 "serving a later kernel stale data; python -m "
                                                                 "simt_sim.calibrate.memory_counters compare "
                                                                 "t-bsync-join)"),
            **_STORE_PATH,
        },
        "l2": {
            "latency": _hit_latency("L2", 200),
            "latency_ns": _memory_side("L2 hit", default=0.0),
            "latency_spread_ns": _spread_field("an L2 hit's latency", "each SM/line pair keeps one, drawn by a hash "
                                               "of the two (the H100's near and far L2 halves: tools/latency_spread.py)",
                                               default=[]),
            "host_copy_latency": _cycles("cycles for the first access to data the host copied in before "
                                         "the launch, which the copy left in L2: past the L2 port, not "
                                         "DRAM's nor DRAM's loads in flight (0: such data comes from "
                                         "DRAM); not when `host.caches_flushed`"),
            "host_copy_latency_ns": _memory_side("first access to host-copied data", default=0.0),
            **_HOST_COPY_FAR,
            **_cache_geometry("L2 for the whole GPU", 4096, (1, 1048576), 16),
            "sectors_per_cycle": Key(float, positive, default=32, doc="bandwidth, whole GPU"),
            "atomic_cycles": Key(int, positive, default=2, doc="extra cycles per same-address global atomic"),
        },
        "dram": {
            "latency": _hit_latency("DRAM (L2 miss)", 400),
            "latency_ns": _memory_side("DRAM access", default=0.0),
            "bytes_per_cycle": Key(float, positive, default=512, doc="bandwidth, whole GPU, per SM clock"),
            "bytes_per_ns": Key(float, between(0, 1e9), default=0.0,
                doc="bandwidth, whole GPU, in bytes per ns (GB/s) on DRAM's own clock; replaces bytes_per_cycle when "
                    "above 0"),
            "inflight_cycles": Key(float, between(0, 1e6), default=0.0,
                doc="cycles a DRAM load waits longer for each sector of earlier loads still in flight on the GPU"),
            "latency_spread_ns": _spread_field("a DRAM load's latency", "each SM and block of `spread_bytes` keep one, "
                                               "drawn by a hash of the two (the H100's near and far memory: "
                                               "tools/dram_lines.py); a load waits for its slowest line", default=[]),
            "spread_bytes": Key(int, power_of_two, default=4096, doc="the blocks of memory that share a DRAM latency "
                                                                     "offset (latency_spread_ns): a multiple of "
                                                                     "memory.line_bytes"),
            "refresh_interval_ns": Key(float, between(0, 1e9),
                                         default=0.0, doc="DRAM refresh: the lines of one refresh "
                                                          "(refresh_shared_bits) are refreshed once in this many ns, "
                                                          "at a phase drawn by a hash of their address, for "
                                                          "`refresh_ns`; a load of one of them in that time waits "
                                                          "until the refresh ends (tools/dram_lines.py); 0 = none"),
            "refresh_ns": Key(float, between(0, 1e9), default=0.0, doc="how long one refresh holds its block (below "
                                                                         "refresh_interval_ns)"),
            "refresh_units": Key(int, between(0, 1 << 20),
                                   default=0, doc="how many refreshes run at their own phases: the lines' refreshes "
                                                  "fall into this many groups by a hash of their address, so that one "
                                                  "moment finds several lines refreshing or none (tools/dram_lines.py "
                                                  "--fit: the H100's launches of 32 lines find none of them waiting "
                                                  "in 21-29%); 0 = each refresh on its own"),
            "refresh_shared_bits": Key(list, _address_bits,
                                         default=[], doc="address bits that do not change which refresh a line falls "
                                                         "in: lines that differ only in them are refreshed together, "
                                                         "the others each at its own phase (tools/dram_lines.py: the "
                                                         "H100's lines 128 and 512 B apart wait together, 256 B and 1 "
                                                         "KiB apart not: [7, 9])"),
        },
    },
    "sass": {
        "control_codes": Key(bool, default=True, doc="time SASS instructions from ptxas's control codes: a warp's "
                                                     "next instruction waits the stall count, variable-latency "
                                                     "results and source reads release dependence barriers that wait "
                                                     "masks block on"),
        "operand_read_latency": Key(int, positive,
                                      default=2, doc="cycles from the issue of a variable-latency instruction until "
                                                     "its sources are read (releases its read barrier)"),
        "store_data_read_cycles": _cycles("cycles after operand_read_latency that a store, reduction or "
                                          "atomic to shared memory reads its data operand (its read "
                                          "barrier releases then; a load's address is read at "
                                          "operand_read_latency)"),
        "global_store_data_read_cycles": _cycles("the same for a store, reduction or atomic to global (or "
                                                 "local) memory"),
        "global_store_bytes_per_cycle": Key(int, bounded(0, MAX_CYCLES_VALUE, _RATE_WHY),
                                              default=0, doc="bytes of global (or local) store data its "
                                                             "sub-partition's port reads per cycle, one store after "
                                                             "another from its issue: a store's read barrier releases "
                                                             "when its data are through (and not before "
                                                             "operand_read_latency), global_store_data_read_cycles "
                                                             "after that; 0: no port, the data read with the address"),
        "shared_store_bytes_per_cycle": Key(int, bounded(0, MAX_CYCLES_VALUE, _RATE_WHY),
                                              default=0, doc="the same port's rate for the data of stores to shared "
                                                             "memory: they queue there with the global stores' (0: no "
                                                             "port, a shared store's data read with its address)"),
        "global_store_line_passes": Key(int, bounded(0, 64, "passes per 128-byte line, each holding the SM's "
                                                               "shared-memory port a cycle; H100: 1"),
                                          default=0, doc="passes a global (or local) store takes through its SM's "
                                                         "shared-memory port for each 128-byte line it writes, since "
                                                         "L1 and shared memory share their data banks: a shared "
                                                         "access waits behind them (the stg_read probe's tile "
                                                         "epilogue); 0: none"),
        "copy_line_passes": Key(int, bounded(0, 64, "passes per 128 bytes, each holding the SM's shared-memory "
                                                       "port a cycle; H100: 1"),
                                  default=0, doc="passes a cp.async (LDGSTS) takes through its SM's shared-memory "
                                                 "port for each 128 bytes of its data, when they arrive: L1 and "
                                                 "shared memory share their data banks, which read (or fill) the line "
                                                 "and write it into shared memory (the tile_loop probe's k_tile_copy, "
                                                 "k_tile_copy_l2); 0: none"),
        "convergence_unit_cycles": _cycles("cycles a BSSY or BSYNC holds its sub-partition's convergence "
                                           "unit: another warp's BSSY or BSYNC waits for it "
                                           "(probe control_rate: 8 warps of a sub-partition pass one "
                                           "each every 10 cycles; 0: no unit)"),
        "taken_branch_latency": _cycles("cycles a SASS warp waits after a branch that leaves the "
                                        "fall-through path (instruction fetch redirect), at least its "
                                        "stall count"),
        "branch_resolve_cycles": _cycles("of a taken branch's wait past its stall count, the cycles "
                                         "counted as branch_resolving; the rest is no_instruction, its "
                                         "target being fetched (attribution only: probe dmul_phase "
                                         "--stalls)"),
        "reconverge_latency": _cycles("cycles a SASS warp waits after a BSYNC that completes its "
                                      "convergence barrier (the warp goes on as one), at least its stall "
                                      "count"),
        "group_switch_latency": _cycles("cycles a SASS warp waits after a BSYNC that leaves its group "
                                        "waiting for the barrier's other threads, before the next group "
                                        "runs (at least the taken-branch latency and its stall count)"),
        "block_launch_interval": _cycles("cycles between two block starts on one SM (SASS runs; PTX runs "
                                         "keep sm.block_launch_latency alone)"),
        "kernel_launch_latency": Key(int, non_negative,
                                       doc="over sm.kernel_launch_latency for SASS runs: what launch-empty's "
                                           "Nsight Compute cycles leave beside its SASS (python -m "
                                           "simt_sim.calibrate.sass_fit)"),
        "barrier_latency": Key(int, non_negative,
                                 doc="over scheduler.barrier_latency for SASS runs: cycles from the SM's barrier "
                                     "unit taking the last arrival (sm_unit_cycles BAR) to the release "
                                     "(probe tile_loop)"),
        "greedy_cycles": Key(int, between(1, 64), doc="over scheduler.greedy_cycles for SASS runs, whose "
                                                        "instructions carry the yield hint (probe alu_rate)"),
        "barrier_after_stores": Key(bool, default=False, doc="a warp's arrival at a barrier counts once its "
                                                             "shared-memory stores are written (__syncthreads orders "
                                                             "the block's shared memory; the tile_loop probe's "
                                                             "k_tile_store, k_tile_store_l2)"),
        "loads_in_order": Key(bool, default=False, doc="a warp's loads that go past L1 deliver their data in the "
                                                       "order they issued: one whose line comes back early waits for "
                                                       "the warp's earlier misses; L1 hits do not wait "
                                                       "(probe load_pair)"),
        "deferred_barrier": Key(bool, default=False, doc="a warp at BAR.SYNC.DEFER_BLOCKING whose block has not all "
                                                         "arrived goes on issuing ALU instructions and waits at the "
                                                         "first other one (Nsight Compute's PC samples: the barrier "
                                                         "wait falls on the EXIT or LDS after an ISETP, IMAD.MOV or "
                                                         "CS2R that follows the barrier); false: it waits at the "
                                                         "barrier"),
        "store_ack_ns": Key(float, between(0, 100_000),
                              default=0.0, doc="nanoseconds at the end of a global store's L2 write (or a reduction's "
                                               "without a result) that its kernel's end does not wait for, in cycles "
                                               "at clock_mhz: the acknowledgement's way back (tools/kernel_ends.py: a "
                                               "trailing store ends the kernel some 80 cycles after its issue, the L2 "
                                               "write takes 250); 0: the end waits for the whole write"),
        "stream_kernel_gap": Key(int, non_negative,
                                   doc="over sm.stream_kernel_gap for SASS runs: what one more empty kernel of "
                                       "a stream costs beyond sass.kernel_launch_latency and its body "
                                       "(python tools/launch_sequence.py --fit)"),
        "register_banks": Key(int, between(0, MAX_REGISTER_BANKS),
                                default=0, doc="register-file banks per sub-partition (register number mod banks), "
                                               "each reading one register per cycle for the operand collector, which "
                                               "holds two instructions; operands in the reuse cache need no read (0: "
                                               "not modelled)"),
        "memory_queue": Key(int, between(0, MAX_MEMORY_QUEUE),
                              default=0, doc="memory instructions that may wait for a sub-partition's LD/ST pipe: a "
                                             "warp issues one into the queue and goes on, waiting only at its "
                                             "results; with that many waiting, the next waits to issue (Nsight "
                                             "Compute: mio / lg throttle); 0: a memory instruction issues only into a "
                                             "free pipe"),
        "write_port_units": Key(list, _unit_names,
                                  default=[], doc="units whose fixed-latency vector-register results share the "
                                                  "sub-partition's one register-file write per cycle: an instruction "
                                                  "whose result would land in a cycle already taken waits a cycle "
                                                  "(Nsight Compute: dispatch stall); [] = not modelled"),
        "write_port_latency": Key(dict, _latency_table(lambda: UNIT_NAMES, "a unit"),
                                    default={}, doc="per unit of write_port_units, the cycles from issue until its "
                                                    "result takes the write port, where that is not its latency "
                                                    "(t-fp64-issue-*, probe dmul_phase: a DMUL's takes it 2 cycles "
                                                    "after an FMUL issued with it, though its dependants wait 8 "
                                                    "cycles to the FMUL's 4)"),
        "units": Section({name: _unit_schema(name) for name in UNIT_NAMES}, present=True),
        "memory": Section({"shared": {"latency": Key(int, positive,
                                               doc="over memory.shared.latency for SASS runs: issue to data of "
                                                   "an LDS (t-chase-lanes)")},
                   "l1": {"latency": Key(int, positive,
                                           doc="over memory.l1.latency for SASS runs: issue to data of an L1-hit "
                                               "load sector, as SASS's LDG meets it (t-ldg-path's second pass)"),
                          **{key: replace(field, doc=f"over memory.l1.{key} for SASS runs", default=NO_DEFAULT)
                             for key, field in _STORE_PATH.items()}},
                   "l2": {"sectors_per_cycle": Key(float, between(0.001, 1e6),
                                                     doc="over memory.l2.sectors_per_cycle for SASS runs: the GPU's "
                                                         "L2 bandwidth (probe l2_rate)"),
                          **{key: replace(field, doc=f"over memory.l2.{key} for SASS runs", default=NO_DEFAULT)
                             for key, field in _HOST_COPY_FAR.items()}}}, present=True),
        "latency_overrides": Key(dict, _latency_table(_sass_families, "a SASS family (family or family.type "
                                                                        "expected, e.g. F2F.f64)"),
                                   default={}, doc="per-family latency of SASS instructions, key `family` or "
                                                   "`family.type` (the destination type, e.g. F2F.f64: 19); replaces "
                                                   "latency_overrides, whose keys are PTX opcodes"),
        "interval_overrides": Key(dict, _latency_table(_sass_families, "a SASS family (family or family.type "
                                                                         "expected, e.g. F2F.f64)", "interval"),
                                    default={}, doc="per-family cycles a SASS instruction holds its pipe, key "
                                                    "`family`, `family.type` as in latency_overrides, or "
                                                    "`family.WIDE` for the WIDE modifier (IMAD.WIDE); replaces the "
                                                    "interval its unit's lanes give (probe xu_rate measures F2F "
                                                    "with a 64-bit operand at 8.6-9.05 cycles)"),
        "sm_unit_cycles": Key(dict, _latency_table(_sass_sm_unit_families, "a SASS family timed by a "
                                                     "latency or a barrier (family or family.type expected, "
                                                     "e.g. LDC, BAR; memory and other control-flow "
                                                     "instructions have their own ports)", "cycles"),
                                default={}, doc="families an SM-wide unit serves, one unit per key (`family` or "
                                                "`family.type` as in latency_overrides): the cycles each "
                                                "warp-instruction holds it; its result comes its latency after the "
                                                "unit takes it, a barrier releases scheduler.barrier_latency after "
                                                "the unit took its last arrival (probe control_rate: LDC and S2R "
                                                "at one per 2 cycles per SM, apart from each other and from LDS; "
                                                "probe tile_loop: a loop of __syncthreads costs 2 cycles more per "
                                                "warp of the block); {} = not modelled"),
        "constants": {
            "line_bytes": Key(int, between(4, 4096),
                                default=64, doc="line of the constant caches (tools/imc_miss.py: a word 32 bytes from "
                                                "one read hits, 64 bytes away misses)"),
            "lines": Key(int, between(1, 4096),
                           default=64, doc="lines each constant cache holds, direct mapped (not measured: enough for a "
                                           "kernel's parameter lines)"),
            "imc_miss_ns": Key(float, between(0, 100_000),
                                 default=0.0, doc="nanoseconds from a warp's arrival at an instruction whose constant "
                                                  "operand misses its sub-partition's immediate-constant cache until "
                                                  "the line is there and it may issue (Nsight Compute: imc_miss), in "
                                                  "cycles at clock_mhz (the line comes from the memory side: Nsight "
                                                  "Compute's runs at its lower clock see fewer cycles); the cache "
                                                  "starts every launch empty and its warps share it; 0: always hits"),
            "ldc_miss_ns": Key(float, between(0, 100_000),
                                 default=0.0, doc="nanoseconds an LDC waits, beyond its latency, for a line its SM's "
                                                  "LDC cache lacks, in cycles at clock_mhz (the cache starts every "
                                                  "launch empty; its sub-partitions share it); 0: always hits"),
            "gpu_misses": Key(int, between(0, 4096),
                                default=0, doc="constant line requests (a sub-partition's immediate-constant cache's "
                                               "or an SM's LDC cache's) the whole GPU has in flight at once: a miss "
                                               "finding them all taken waits for the first to come back "
                                               "(probe constant_congestion: a miss while 132 SMs start together "
                                               "takes twice its time, with 66 or later not); 0: no limit"),
        },
        "fetch": {
            "enabled": Key(bool, default=False, doc="model instruction fetch (L0 per sub-partition, L1 per SM)"),
            "line_bytes": Key(int, between(16, 4096), default=128,
                doc="instruction cache line; SASS instructions are 16 bytes"),
            "l0": _cache_geometry("L0 instruction cache per sub-partition", 32, (0.125, 4096), 4, between(1, 64)),
            "l1": {**_cache_geometry("L1 instruction cache per SM", 128, (0.125, 65536), 8, between(1, 64)),
                   "line_cycles": Key(int, positive,
                                        default=16, doc="cycles the sub-partition's fetch path takes per line from "
                                                        "here")},
            "l2_line_cycles": Key(int, positive, default=40, doc="cycles per line that misses the L1 instruction "
                                                                 "cache"),
            "redirect_next_line_cycles": Key(int, between(0, 64),
                                               default=0, doc="after a taken branch, cycles from the warp's "
                                                              "resumption until the line after its target's reaches "
                                                              "it (a target late in its line waits for it)"),
            "flushed_first_line_ns": Key(float, between(0, 100_000),
                                           default=0.0, doc="with host.caches_flushed (Nsight Compute's runs), "
                                                            "nanoseconds a sub-partition's first code line of the "
                                                            "launch takes beyond its line time, in cycles at "
                                                            "clock_mhz (tools/kernel_ends.py: about 190 cycles of "
                                                            "no_instruction at each warp's start, 7 without the "
                                                            "flush); 0: none"),
        },
    },
    "host": {
        "caches_flushed": Key(bool, default=False, doc="the launch finds every cache empty, as under Nsight Compute "
                                                       "(--cache-control all): the first access to any data goes to "
                                                       "DRAM; else the host's copies sit in L2 "
                                                       "(memory.l2.host_copy_latency)"),
        "profiler_clock_mhz": Key(float, between(0, 100_000),
                                    default=0.0, doc="the SM clock Nsight Compute locks the GPU to (--clock-control "
                                                     "base); `validate` simulates the runs it compares with ncu's "
                                                     "cycles at this clock with caches flushed (0: clock_mhz)"),
        "event_overhead": _cycles("cycles that CUDA events around a launch sequence measure beyond its "
                                  "kernels' own time (the event records and the host's launch of the "
                                  "first kernel); added to the simulated cycles wherever they are "
                                  "compared with an event-timed run, never to the cycles of a run"),
        "stream_start_delay": _cycles("cycles later that the kernels of a launch sequence in S > 1 "
                                      "streams start, per stream beyond the first: each stream waits for "
                                      "the start event as the references' timing holds it "
                                      "(calibrate.record.timed_sequence; tools/stream_events.py)"),
        "stream_join": _cycles("cycles that joining each further stream's end to the stop event costs, "
                               "one join at a time in the order the streams finish "
                               "(tools/stream_events.py); like event_overhead, only in event-timed "
                               "comparisons"),
    },
    "simt": {
        "stack_depth": Key(int, between(1, 1024), default=32, doc="SIMT stack entries per warp; deeper nesting faults"),
        "call_depth": Key(int, between(1, 1024),
                            default=64, doc="nested device-function calls per thread (recursion depth); a deeper call "
                                            "faults"),
        "divergence_policy": Key(str, one_of(*POLICY_NAMES),
                                   default="fewer-first", doc="which side of a divergent branch runs first"),
        "memcheck": Key(str, one_of("fault", "report"),
                          default="fault", doc="an out-of-bounds or misaligned access: fault stops the run there "
                                               "(exit 3); report lists every one as compute-sanitizer does (kernel, "
                                               "block, thread, pc, address, size, the nearest buffer), reads zeros, "
                                               "drops the writes and runs on (simt-sim run --memcheck; docs/api.md)"),
    },
    "limits": {
        "max_warp_instructions": Key(int, positive_up_to(MAX_CONFIG_VALUE), default=50_000_000,
            doc="stop with an error after this many"),
        "max_cycles": Key(int, positive_up_to(MAX_CONFIG_VALUE), default=1_000_000_000,
            doc="stop with an error after this many cycles"),
        "host_memory_mib": Key(int, bounded(64, 1 << 22, "MiB: 64 MiB to 4 TiB"),
                                 default=8192, doc="the run's host-memory budget: what its buffers (input, global "
                                                   "memory and output copies), module globals, resident blocks' "
                                                   "registers, shared and local memory, SIMT stacks, the timing "
                                                   "model's caches and the kept history (history_rows) need is "
                                                   "estimated before anything is allocated; a run over it stops with "
                                                   "exit 2 naming the largest parts (docs/errors.md)"),
        "history_rows": Key(int, bounded(0, 1 << 31, "rows of the kept history"),
                              default=4_000_000, doc="mask-history rows (one per issued warp-instruction) and "
                                                     "divergence events a run keeps for --masks / --json / the API, "
                                                     "the first ones in issue order; the rest are counted, not kept "
                                                     "(the JSON says how many: history_complete, history_dropped). "
                                                     "Counted in host_memory_mib at 128 bytes a row"),
        "wall_seconds": Key(float, between(0, 1e9),
                              default=30.0, doc="stop with a runtime error (exit 3) after this many seconds of host "
                                                "time in the engine, counted from its first slice (after the JIT "
                                                "compile); 0: no limit. An endless kernel loop stops here "
                                                "(docs/errors.md)"),
    },
}


def defaults_of(schema: dict) -> dict:
    """Every key's default (Key.default), sections nested as in the schema: what a config may
    leave out.  A section none of whose keys has a default is left out unless `present`."""
    out = {}
    for key, spec in schema.items():
        if isinstance(spec, dict):
            sub = defaults_of(spec)
            if sub or getattr(spec, "present", False):
                out[key] = sub
        elif spec.default is not NO_DEFAULT:
            out[key] = copy.deepcopy(spec.default)
    return out


# Values a config may leave out, read from SCHEMA: a plain single-issue machine with H100-like units
# and memory.  Every shipped config states the values that define it; `simt-sim configs --show NAME`
# prints all, and where each comes from.
DEFAULTS = defaults_of(SCHEMA)


def _sections(schema: dict, prefix: str = "") -> dict:
    out = {}
    for key, spec in schema.items():
        if isinstance(spec, dict):
            out[prefix + key] = spec
            out.update(_sections(spec, f"{prefix}{key}."))
    return out


SCHEMA_SECTIONS = _sections(SCHEMA)       # dotted name -> the section's schema (sm, memory.l2, sass.fetch.l0, ...)


def merged(defaults: dict, data: dict) -> dict:
    out = copy.deepcopy(defaults)
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "latency_overrides":
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


@dataclass
class GPUConfig:
    name: str
    path: str
    data: dict
    # where each key's value comes from, by its dotted name: "FILE:LINE" (the config file's own),
    # "base FILE:LINE" (a base config's), "--set"; keys not in it have their default
    origins: dict = field(default_factory=dict, compare=False, repr=False)

    def get(self, dotted: str, default=None):
        node = self.data
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def for_sass(self) -> "GPUConfig":
        """The config a launch holding SASS kernels is timed on: `sass.units` over `units`,
        `sass.memory` over `memory`, `sass.kernel_launch_latency` / `stream_kernel_gap` over sm's and
        `sass.barrier_latency` and `sass.greedy_cycles` over the scheduler's (SASS
        and PTX runs keep their own calibrated values)."""
        data = copy.deepcopy(self.data)
        data["units"] = merged(data["units"], self.get("sass.units") or {})
        data["memory"] = merged(data["memory"], self.get("sass.memory") or {})
        data["latency_overrides"] = copy.deepcopy(self.get("sass.latency_overrides") or {})
        for key, section in (("kernel_launch_latency", "sm"), ("stream_kernel_gap", "sm"), ("barrier_latency", "scheduler"),
                             ("greedy_cycles", "scheduler")):
            if self.get(f"sass.{key}") is not None:
                data[section] = {**data[section], key: self.get(f"sass.{key}")}
        return GPUConfig(self.name, self.path, data)

    def memory_latency(self, key: str) -> int:
        """Cycles at clock_mhz of memory.KEY (shared.latency, l1.latency, l2.latency,
        l2.host_copy_latency, dram.latency): the SM's own cycles plus KEY_ns, the memory side's
        nanoseconds, where the level has them (L2 and DRAM)."""
        key = f"memory.{key}"
        return self.get(key) + self.cycles_of_ns(self.get(key + "_ns", 0.0))

    def cycles_of_ns(self, ns: float) -> int:
        """Nanoseconds of the memory side in cycles at clock_mhz."""
        return round(ns * self.get("clock_mhz") / 1000.0)

    def latency_spread(self, key: str) -> list[float]:
        """memory.KEY_spread_ns in cycles at clock_mhz, zero-mean, one per LATENCY_SPREAD_SLOTS slot
        (a shorter list repeats each offset equally often)."""
        ns = self.get(f"memory.{key}_spread_ns") or [0.0]
        mean = sum(ns) / len(ns)
        per = LATENCY_SPREAD_SLOTS // len(ns)
        return [(ns[i // per] - mean) * self.get("clock_mhz") / 1000.0 for i in range(LATENCY_SPREAD_SLOTS)]

    def host_copies_in_l2(self) -> bool:
        """Whether the launch finds the host's copies in L2 (plain launches of a config that
        models them), so that what misses the model's L2 is a host copy's line, not DRAM's."""
        return bool(self.get("memory.l2.host_copy_latency")) and not self.get("host.caches_flushed")

    def miss_latency(self) -> int:
        """Cycles of an access that misses L2: DRAM's, or the host copy's where the launch finds
        the host's copies in L2."""
        if self.host_copies_in_l2():
            return self.memory_latency("l2.host_copy_latency")
        return self.memory_latency("dram.latency")

    def dram_refresh_mean_ns(self) -> float:
        """What memory.dram.refresh_* add to the mean DRAM load (dram_refresh_mean_ns)."""
        return dram_refresh_mean_ns(self.get("memory.dram.refresh_interval_ns"), self.get("memory.dram.refresh_ns"))

    def dram_bytes_per_cycle(self) -> float:
        per_ns = self.get("memory.dram.bytes_per_ns")
        return per_ns * 1000.0 / self.get("clock_mhz") if per_ns else self.get("memory.dram.bytes_per_cycle")

    def under_profiler(self, clock_mhz: float | None = None) -> "GPUConfig":
        """The conditions of Nsight Compute's runs: caches flushed before the launch, the SMs at
        `clock_mhz` (a recorded clock), else at host.profiler_clock_mhz."""
        clock = clock_mhz or self.get("host.profiler_clock_mhz") or self.get("clock_mhz")
        return self.with_overrides(["host.caches_flushed=true", f"clock_mhz={clock}"])

    def launch_config(self) -> "LaunchConfig":
        return LaunchConfig(warp_size=self.get("warp_size"), stack_depth=self.get("simt.stack_depth"),
                            call_depth=self.get("simt.call_depth"), policy=self.get("simt.divergence_policy"),
                            max_warp_insts=self.get("limits.max_warp_instructions"),
                            wall_seconds=self.get("limits.wall_seconds"),
                            shared_memory=self.get("sm.shared_memory"),
                            host_memory_mib=self.get("limits.host_memory_mib"),
                            history_rows=self.get("limits.history_rows"),
                            max_resident_blocks=self.get("sm.max_resident_blocks"), num_sms=self.get("num_sms"),
                            memcheck=self.get("simt.memcheck", "fault"))

    def with_overrides(self, items: list[str]) -> "GPUConfig":
        """A copy with `key=value` overrides applied and validated (as `--set`)."""
        data = copy.deepcopy(self.data)
        for item in items:
            apply_override(data, item)
        text = yaml.safe_dump(data, sort_keys=False)
        odata, oroot = load_yaml_nodes(f"{self.path} (with --set)", text)
        validate(odata, SCHEMA, f"{self.path} (with --set {' '.join(items)})", oroot)
        origins = dict(self.origins)
        for item in items:
            key = item.partition("=")[0].strip()
            origins = {k: v for k, v in origins.items() if k != key and not k.startswith(key + ".")}
            origins[key] = "--set"
        return GPUConfig(odata.get("name", self.name), self.path, odata, origins)


@dataclass
class LaunchConfig:
    """The few settings a functional run needs, for calls that do not name a GPU config; every
    default is the config schema's default (DEFAULTS)."""
    warp_size: int = 32
    stack_depth: int = DEFAULTS["simt"]["stack_depth"]
    call_depth: int = DEFAULTS["simt"]["call_depth"]
    policy: str = DEFAULTS["simt"]["divergence_policy"]
    max_warp_insts: int = DEFAULTS["limits"]["max_warp_instructions"]
    wall_seconds: float | None = None       # 0: no limit; None: the schema's default when asked (wall_budget)
    max_resident_blocks: int = DEFAULTS["sm"]["max_resident_blocks"]
    num_sms: int = DEFAULTS["num_sms"]
    shared_memory: int = 233472      # bytes a block may use: the H100's per SM (the programs target sm_90)
    host_memory_mib: int = DEFAULTS["limits"]["host_memory_mib"]
    history_rows: int = DEFAULTS["limits"]["history_rows"]
    record_history: bool = True
    memcheck: str = DEFAULTS["simt"]["memcheck"]     # "fault" or "report" (simt.memcheck)

    def validate(self) -> None:
        """Each setting against its config key's declaration (LAUNCH_KEYS): type and bounds."""
        for attr, dotted in LAUNCH_KEYS.items():
            value = getattr(self, attr)
            if value is None and attr == "wall_seconds":
                continue
            problem = check_value(dotted, value)
            if problem:
                raise InputError(f"{dotted} {problem}")

    def wall_budget(self) -> float:
        """The run's wall-clock budget in seconds (0: none): wall_seconds, or the schema's default
        (DEFAULTS, read when the run starts) when not given."""
        return float(DEFAULTS["limits"]["wall_seconds"] if self.wall_seconds is None else self.wall_seconds)

    def gpu_config(self) -> GPUConfig:
        data = merged(DEFAULTS, {"name": "launch", "warp_size": self.warp_size, "num_sms": self.num_sms,
                                 "sm": {"max_resident_blocks": self.max_resident_blocks,
                                        "shared_memory": self.shared_memory},
                                 "simt": {"stack_depth": self.stack_depth, "call_depth": self.call_depth,
                                          "divergence_policy": self.policy, "memcheck": self.memcheck},
                                 "limits": {"max_warp_instructions": self.max_warp_insts,
                                            "wall_seconds": self.wall_budget(),
                                            "host_memory_mib": self.host_memory_mib,
                                            "history_rows": self.history_rows}})
        return GPUConfig("launch", "<launch settings>", data)


# LaunchConfig's settings and the config keys whose declarations check them
LAUNCH_KEYS = {"warp_size": "warp_size", "stack_depth": "simt.stack_depth", "call_depth": "simt.call_depth",
               "policy": "simt.divergence_policy", "memcheck": "simt.memcheck",
               "max_warp_insts": "limits.max_warp_instructions", "wall_seconds": "limits.wall_seconds",
               "max_resident_blocks": "sm.max_resident_blocks", "num_sms": "num_sms",
               "shared_memory": "sm.shared_memory", "host_memory_mib": "limits.host_memory_mib",
               "history_rows": "limits.history_rows"}


def key_of(dotted: str) -> Key:
    """The declaration of a config key by its dotted name (KeyError: no such key)."""
    node = SCHEMA
    for part in dotted.split("."):
        node = node[part]
    if not isinstance(node, Key):
        raise KeyError(dotted)
    return node


def check_value(dotted: str, value) -> str | None:
    """What is wrong with `value` for key `dotted` (its declared type and bounds), or None."""
    spec = key_of(dotted)
    kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
    # numbers as Python's and numpy's alike (an API caller's np.int64); a bool is no number here
    accepted = tuple({int: numbers.Integral, float: numbers.Real}.get(k, k) for k in kinds)
    ok = isinstance(value, accepted) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        return f"expected {' or '.join(k.__name__ for k in kinds)}, found {type(value).__name__} {value!r}"
    problem = spec.check(value) if spec.check else None
    return f"{problem} (found {value!r})" if problem else None


def config_path(name_or_path: str, relative_to: Path | None = None) -> Path:
    """configs/NAME.yaml for a name; a .yaml path as it is (relative_to: a base's path is relative
    to the directory of the config that names it)."""
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or (relative_to is None and p.exists()):
        return relative_to / p if relative_to is not None and not p.is_absolute() else p
    return CONFIG_DIR / f"{name_or_path}.yaml"


def list_configs() -> list[Path]:
    return sorted(CONFIG_DIR.glob("*.yaml"))


# identification: each config file states its own, a base's is not inherited
NOT_INHERITED = ("name", "description", "sources")


def _leaf_paths(data: dict, schema: dict, prefix: tuple = ()):
    """The dotted keys of data's values (a section's keys, not the section; a table such as
    latency_overrides is one value)."""
    for key, value in data.items():
        spec = schema.get(key)
        if isinstance(spec, dict) and isinstance(value, dict):
            yield from _leaf_paths(value, spec, prefix + (key,))
        else:
            yield prefix + (key,)


def overlay(schema: dict, under: dict, over: dict) -> dict:
    """`over` laid over `under`: sections merge key by key, a value (a table too) replaces the base's."""
    out = copy.deepcopy(under)
    for key, value in over.items():
        spec = schema.get(key)
        if isinstance(spec, dict) and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = overlay(spec, out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _load_file(path: Path, chain: tuple = ()) -> tuple[dict, dict]:
    """(data, origins) of one config file with its bases under it, checked against SCHEMA: data
    holds what the files state (not the defaults), origins each value's "FILE:LINE"."""
    data, root = load_yaml_nodes(str(path))
    inherited, inherited_origins = {}, {}
    if isinstance(data, dict) and "base" in data:
        base = data["base"]
        if not isinstance(base, str) or not base:
            raise error_at(str(path), root, ("base",), f"base: expected the name of a config or a .yaml path, "
                                                        f"found {type(base).__name__} {base!r}")
        bpath = config_path(base, relative_to=path.parent)
        if not bpath.exists():
            names = ", ".join(p.stem for p in list_configs())
            raise error_at(str(path), root, ("base",), f"base {base!r}: no such config ({bpath}; available: {names})")
        here = (*chain, path.resolve())
        if bpath.resolve() in here:
            names = " -> ".join(p.name for p in (*here, bpath.resolve()))
            raise error_at(str(path), root, ("base",), f"base {base!r} closes a cycle: {names}")
        bdata, borigins = _load_file(bpath, here)
        inherited = {k: v for k, v in bdata.items() if k not in NOT_INHERITED}
        inherited_origins = {k: v if v.startswith("base ") else f"base {v}" for k, v in borigins.items()
                             if k.split(".")[0] not in NOT_INHERITED}
    # a key the schema requires may come from the base (warp_size); the file's own keys are checked here
    checked = {**{k: v for k, v in inherited.items() if isinstance(SCHEMA.get(k), Key) and SCHEMA[k].required},
               **data} if isinstance(data, dict) else data
    validate(checked, SCHEMA, str(path), root)
    own = {".".join(map(str, keys)): f"{path.name}:{(node_at(root, *keys) or root).start_mark.line + 1}"
           for keys in _leaf_paths(data, SCHEMA)}
    return overlay(SCHEMA, inherited, data), {**inherited_origins, **own}


def load_config(name_or_path: str = "h100", overrides: list[str] | None = None) -> GPUConfig:
    path = config_path(name_or_path)
    if not path.exists():
        names = ", ".join(p.stem for p in list_configs())
        raise InputError(f"no config {name_or_path!r} (available: {names})")
    data, origins = _load_file(path)
    origins = {k: v for k, v in origins.items()
               if not any(o.startswith(k + ".") for o in origins)}       # a section stated empty: its keys' own
    cfg = GPUConfig(data.get("name", path.stem), str(path), merged(DEFAULTS, data), origins)
    return cfg.with_overrides(overrides) if overrides else cfg


def bounds_text(check) -> str:
    """A key's bounds in words, read from its check (bounded, between, positive_up_to, one_of, ...)."""
    if check is None:
        return ""
    if check is positive:
        return f"> 0 to {MAX_CYCLES_VALUE:,}"
    if check is power_of_two:
        return "a power of two"
    if check is _latency_spread:
        return f"a list of {', '.join(map(str, _SPREAD_LENGTHS[:-1]))} or {_SPREAD_LENGTHS[-1]} offsets, -10,000 to 10,000 ns"
    cells = dict(zip(check.__code__.co_freevars, (c.cell_contents for c in check.__closure__ or ())))
    def num(v) -> str:
        return f"{int(v):,}" if float(v).is_integer() else f"{v:,}"
    if "lo" in cells and "hi" in cells:
        return f"{num(cells['lo'])} to {num(cells['hi'])}"
    if "hi" in cells:
        return f"> 0 to {num(cells['hi'])}" + (f" (at least {cells['least']})" if cells.get("least") is not None else "")
    if "choices" in cells:
        return "one of " + ", ".join(map(str, cells["choices"]))
    if "op_names" in cells:
        return f"a table of {cells['what'].split(' (')[0]}: {cells['quantity']} 1 to {MAX_CYCLES_VALUE:,}"
    first = (check.__doc__ or "").strip().split("\n")[0].rstrip(".")
    return first[:1].lower() + first[1:]


def config_reference() -> str:
    """docs/config-keys.md: every key of SCHEMA with its type, bounds, default and doc (`simt-sim
    configs --keys`)."""
    def cell(text) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    def default_text(spec) -> str:
        if spec.default is NO_DEFAULT:
            return "required" if spec.required else "(none)"
        return "`" + yaml.safe_dump([spec.default], default_flow_style=True, width=1 << 30).strip()[1:-1] + "`"

    def walk(schema: dict, prefix: str):
        for key, spec in schema.items():
            if isinstance(spec, dict):
                walk(spec, f"{prefix}{key}.")
            else:
                kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
                rows.append(f"| `{prefix}{key}` | {'/'.join(k.__name__ for k in kinds)} | {cell(bounds_text(spec.check))} "
                            f"| {default_text(spec)} | {cell(spec.doc)} |")
    rows: list[str] = []
    walk(SCHEMA, "")
    return "\n".join([
        "# GPU config keys",
        "",
        "Generated from the config schema (simt_sim/machine/config.py, where each key is declared once) by",
        "`simt-sim configs --keys > docs/config-keys.md`; do not edit by hand.  A config may leave out",
        "every key that has a default; `(none)`: left out, the key is absent and its doc says what that",
        "means.  `simt-sim configs --show NAME` prints a config's values and where each comes from.",
        "",
        "| key | type | bounds | default | meaning |",
        "|---|---|---|---|---|",
        *rows]) + "\n"


def show_config(cfg: GPUConfig) -> str:
    """The effective config as YAML, each value with where it comes from (`# h200.yaml:14`,
    `# base h100.yaml:9`, `# default`, `# --set`): what `simt-sim configs --show NAME` prints."""
    def scalar(v) -> str:
        return yaml.safe_dump([v], default_flow_style=True, width=1 << 30).strip()[1:-1]

    def walk(node: dict, schema: dict, prefix: str, indent: int):
        keys = [k for k in schema if k in node] + [k for k in node if k not in schema]   # the schema's order
        for key in keys:
            value, spec = node[key], schema.get(key)
            dotted = f"{prefix}{key}"
            if isinstance(spec, dict) and isinstance(value, dict):
                lines.append(f"{' ' * indent}{key}:{' {}' if not value else ''}")
                walk(value, spec, dotted + ".", indent + 2)
            else:
                text = f"{' ' * indent}{key}: {scalar(value)}"
                lines.append(f"{text:<40} # {cfg.origins.get(dotted, 'default')}")
    lines: list[str] = []
    walk(cfg.data, SCHEMA, "", 0)
    return "\n".join(lines) + "\n"


def apply_override(data: dict, item: str) -> None:
    """`--set simt.stack_depth=4`: the value is read as YAML (numbers, strings, booleans)."""
    if "=" not in item:
        raise InputError(f"--set expects key=value, found {item!r}")
    key, _, raw = item.partition("=")
    parts = key.strip().split(".")
    if parts == ["base"]:
        raise InputError("--set base: a base config is read when a config file loads; write a file with "
                         "`base: NAME` and the keys to change, and pass it to --config")
    node = data
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise InputError(f"--set {key}: {part} is not a section")
    try:
        node[parts[-1]] = yaml.safe_load(raw)
    except yaml.YAMLError:
        raise InputError(f"--set {key}: cannot read value {raw!r}") from None
