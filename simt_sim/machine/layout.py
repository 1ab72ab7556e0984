"""Integer layout of every engine array: per-kernel geometry, the warp record, the SIMT stack,
run counters, fault and status codes, the timing model's scalars, statistics, stall reasons and
trace records.

The host side (simt_sim/machine, simt_sim/run) fills these arrays and the numba engine reads them;
both take field positions from here and nowhere else.  Sizes of derived buffers (statistics
columns, scratch space) are computed from these layouts too.
"""
from __future__ import annotations

from simt_sim.isa.table import NCU_PIPES, TIMING_CLASSES, UNIT_NAMES


def _index(fields: tuple[str, ...]) -> dict[str, int]:
    return {name: i for i, name in enumerate(fields)}


# ---- per-kernel geometry (int64[K, GEOM_FIELDS]) ----
# grid x,y,z, block x,y,z, warp size, warps/block of a slot, threads/block, slots, blocks,
# shared bytes per block, local bytes per thread, divergence policy, max instructions, n_sm,
# resident-block slots per SM (slot // slots_per_sm is the SM); the call stack: where it starts in
# each thread's local memory, bytes per saved frame, deepest call nesting allowed
GEOM_FIELDS = ("gx", "gy", "gz", "bx", "by", "bz", "warp_size", "wpb", "tpb", "slots", "blocks",
               "shared_bytes", "local_bytes", "policy", "max_warp_insts", "n_sm", "slots_per_sm",
               "call_base", "frame_bytes", "call_depth", "isa")
G = _index(GEOM_FIELDS)

# ---- divergence policies (which side of a divergent branch runs first) ----
POLICY_NAMES = ("fewer-first", "fallthrough-first", "taken-first")
POLICY_FEWER_FIRST, POLICY_FALLTHROUGH_FIRST, POLICY_TAKEN_FIRST = range(len(POLICY_NAMES))

# ---- the warp record (int64[n_warps, WARP_FIELDS]): one row per resident warp slot ----
# functional state: pc, active mask, threads not yet exited, threads the warp started with,
# status, global warp id, SIMT stack depth and its maximum, mask that arrived at a barrier;
# timing state: cycle its outstanding loads complete, cycle it may resume (and why it waits
# until then), age (launch order), cycle up to which its stalls are attributed, cycles it was
# eligible but not selected, cycle its operands are ready (and why it waits), cycle and count of
# its last issue, two-level pool membership and the cycle it last entered/left the pool,
# whether its slot holds a block; the named barrier it waits at; the call nesting depth of its
# active lanes (0: in the kernel).
# SASS control-code timing: per dependence barrier (scoreboard) SB0..SB5, the cycle its last
# pending event (a result written, sources read) happens, and the stall class until then; whether
# the warp's last instruction carried the yield hint.
N_SB = 6
N_COPY_GROUPS = 8
N_REUSE_SLOTS = 4             # SASS source operand slots with a reuse flag (control bits 122..125)
WARP_FIELDS = ("pc", "mask", "live", "full", "status", "gid", "sp", "max_sp", "bar_mask",
               "drain", "resume", "resume_kind", "age", "accounted", "not_selected", "operands_at",
               "operands_kind", "last_cycle", "last_count", "pool", "pool_stamp", "occupied",
               "bar_id", "bar_count", "arrived", "call_depth") \
    + tuple(f"sb{i}" for i in range(N_SB)) + tuple(f"sb_kind{i}" for i in range(N_SB)) + ("yielded", "greedy") \
    + ("copies_open", "groups") + tuple(f"group{i}" for i in range(N_COPY_GROUPS)) \
    + tuple(f"reuse{i}" for i in range(N_REUSE_SLOTS)) + ("prev_issue", "held", "shared_free", "wait_until", "pass", "next_line", "next_line_at", "block_age", "deferred", "bar_release", "stores_done", "misses_done")
(WF_PC, WF_MASK, WF_LIVE, WF_FULL, WF_STATUS, WF_GID, WF_SP, WF_MAX_SP, WF_BAR_MASK,
 WF_DRAIN, WF_RESUME, WF_RESUME_KIND, WF_AGE, WF_ACCOUNTED, WF_NOT_SELECTED, WF_OPERANDS_AT,
 WF_OPERANDS_KIND, WF_LAST_CYCLE, WF_LAST_COUNT, WF_POOL, WF_POOL_STAMP, WF_OCCUPIED,
 WF_BAR_ID, WF_BAR_COUNT, WF_ARRIVED, WF_CALL_DEPTH) = range(WARP_FIELDS.index("sb0"))
WF_SB, WF_SB_KIND = WARP_FIELDS.index("sb0"), WARP_FIELDS.index("sb_kind0")
WF_YIELDED = WARP_FIELDS.index("yielded")     # its last SASS instruction asked the scheduler to switch
WF_GREEDY = WARP_FIELDS.index("greedy")       # its last SASS instruction, on an FP32 or integer pipe, did not
# cp.async groups (LDGSTS ... LDGDEPBAR ... DEPBAR.LE SBn, N): when the copies issued since the last
# commit complete, how many groups were committed, and the completion cycles of the last
# N_COPY_GROUPS (a ring indexed by group number)
WF_COPIES_OPEN, WF_GROUPS, WF_GROUP = (WARP_FIELDS.index(f) for f in ("copies_open", "groups", "group0"))
# register-file reads (SASS, sass.register_banks > 0): per source slot, the register its reuse cache
# holds + 1 (0: nothing), and the cycle of the warp's issue before its last one (the operand
# collector holds two instructions, so the next one's reads may begin then)
WF_REUSE, WF_PREV_ISSUE = WARP_FIELDS.index("reuse0"), WARP_FIELDS.index("prev_issue")
# cycles the warp was selected but held by a register-file write conflict since its last issue
# (SASS, sass.write_port_units; counted as dispatch stalls)
WF_HELD = WARP_FIELDS.index("held")
# the cycle the warp's shared-memory accesses have passed its LD/ST pipe at the warp's own rate
# (units.ldst.warp_shared_bytes_per_cycle; with sass.memory_queue, its next memory instruction
# enters the pipe no sooner)
WF_SHARED_FREE = WARP_FIELDS.index("shared_free")
# after a taken SASS branch, how its wait is named: its stall count until wait_until (`wait`), then
# branch_resolving for sass.branch_resolve_cycles, then `no_instruction` while its target is fetched
# (0: one reason for the whole wait)
WF_WAIT_UNTIL = WARP_FIELDS.index("wait_until")
# gwf: the warp's virtual time, its issues so far in strides (a higher slot's stride is shorter)
WF_PASS = WARP_FIELDS.index("pass")
# SASS fetch after a taken branch: the line after the target's (+ 1; 0: none pending) and the cycle
# it reaches the warp (sass.fetch.redirect_next_line_cycles after the warp resumes)
WF_NEXT_LINE, WF_NEXT_LINE_AT = WARP_FIELDS.index("next_line"), WARP_FIELDS.index("next_line_at")
# the age of the warp's block (its first warp's): ogr serves the oldest block first
WF_BLOCK_AGE = WARP_FIELDS.index("block_age")
# SASS BAR.SYNC.DEFER_BLOCKING (sass.deferred_barrier): the warp arrived at its block's barrier and
# issues on (status ready) while its next instructions neither access memory nor branch; the
# functional barrier counts it as arrived, and it waits (status barrier) at the first that does
WF_DEFERRED = WARP_FIELDS.index("deferred")
# the cycle its block's last barrier released (scheduler.barrier_latency after the SM's barrier unit
# took the last arrival: sass.sm_unit_cycles BAR): a warp that arrived deferred and was released
# while issuing on waits for it at its first instruction that does not pass
WF_BAR_RELEASE = WARP_FIELDS.index("bar_release")
# the cycle the warp's last shared-memory store is written: with sass.barrier_after_stores its
# arrival at a barrier counts no sooner
WF_STORES_DONE = WARP_FIELDS.index("stores_done")
# the cycle the data of the warp's last load that went past L1 arrive: with sass.loads_in_order a
# later such load of the warp delivers no sooner (probe load_pair)
WF_MISSES_DONE = WARP_FIELDS.index("misses_done")
# named barriers (`bar.sync a, b` with b below the block's threads, `bar.arrive a, b`): the barrier a
# warp waits at, that barrier's thread count (-1: the whole block), the barriers it passed with
# bar.arrive whose count is not yet complete (a bit per barrier)
N_NAMED_BARRIERS = 16

# warp status
W_EMPTY, W_READY, W_BARRIER, W_DONE = range(4)

# ---- the SIMT stack (int64[n_warps, depth, STACK_FIELDS]) ----
# kind (frame, explicit entry or call entry), reconvergence / restore pc, mask to restore, pending
# side's pc and mask (a call entry: the call's pc and the lanes that called; see
# engine/functional/simt_stack.py)
STACK_FIELDS = ("kind", "rpc", "join", "ppc", "pmask")
SF_KIND, SF_RPC, SF_JOIN, SF_PPC, SF_PMASK = range(len(STACK_FIELDS))
KIND_FRAME, KIND_EXPLICIT, KIND_CALL, KIND_PENDING, KIND_PENDING_FALL = 0, 1, 2, 3, 4
# KIND_PENDING / KIND_PENDING_FALL (SASS): threads split off at a divergent branch (its taken /
# fall-through side), waiting to run from `ppc` (`pmask`)
ISA_PTX, ISA_SASS = 0, 1             # geometry field "isa": how a kernel's warps diverge and reconverge

# ---- SASS convergence barriers (int64[n_warps, CBAR_SLOTS, CBAR_FIELDS]) ----
# B0..B15 (BSSY / BSYNC / BREAK / BMOV), then one slot for WARPSYNC: the threads the barrier
# waits for, those that arrived, and the pc where they continue once it completes
CBAR_FIELDS = ("members", "arrived", "pc")
CB_MEMBERS, CB_ARRIVED, CB_PC = range(len(CBAR_FIELDS))
CBAR_SLOTS = 17
CBAR_WARPSYNC = 16

# ---- run counters (int64[COUNTER_FIELDS]) ----
# (cursor, progressed: where a functional round stopped to hand a full buffer to the host)
# (slice_end: the functional loop returns RUN_SLICE when warp_insts reaches it, so that the host
# can check Ctrl-C and the wall-clock budget; run/slices.py moves it on)
COUNTER_FIELDS = ("events", "hist", "warp_insts", "thread_insts", "active_lanes", "next_block",
                  "blocks_done", "clock", "cursor", "progressed", "slice_end")
(C_EVENTS, C_HIST, C_WARP_INSTS, C_THREAD_INSTS, C_ACTIVE_LANES, C_NEXT_BLOCK, C_BLOCKS_DONE,
 C_CLOCK, C_CURSOR, C_PROGRESSED, C_SLICE_END) = range(len(COUNTER_FIELDS))
N_COUNTERS = len(COUNTER_FIELDS)

# ---- mask history (int64[n, HISTORY_FIELDS]) and divergence events (int64[n, EVENT_FIELDS]) ----
HISTORY_FIELDS = ("gid", "pc", "mask", "exec_mask")
EVENT_FIELDS = ("gid", "kind", "pc", "mask", "depth")
EV_DIVERGE, EV_RECONVERGE, EV_CALL, EV_RETURN = 1, 2, 3, 4
EVENTS_PER_STEP = 8           # room the run loops keep in the event buffer per warp-instruction

# ---- faults (int64 vector: FAULT_FIELDS, then room for MEMCHECK_LIMIT bad accesses) ----
# memcheck: 0 = fault at the first out-of-bounds or misaligned access, 1 = report them (simt.memcheck);
# at_gid / at_pc: the warp and pc of the memory instruction executing (a report names them);
# bad_accesses: how many such accesses there were (the first ones are kept after the fields, as
# MEMCHECK_FIELDS rows, as far as the vector has room)
FAULT_FIELDS = ("code", "gid", "lane", "pc", "addr", "extra", "memcheck", "at_gid", "at_pc", "bad_accesses")
F_MEMCHECK, F_AT_GID, F_AT_PC, F_BAD_ACCESSES = 6, 7, 8, 9
MEMCHECK_FIELDS = ("gid", "lane", "pc", "kind", "reason", "space", "addr", "offset", "size")
(MC_GID, MC_LANE, MC_PC, MC_KIND, MC_REASON, MC_SPACE, MC_ADDR, MC_OFFSET, MC_SIZE) = range(len(MEMCHECK_FIELDS))
MEMCHECK_LIMIT = 1000          # bad accesses a report keeps (all are counted)
ACCESS_READ, ACCESS_WRITE, ACCESS_ATOMIC = 0, 1, 2
FAULT_NONE, FAULT_OOB, FAULT_MISALIGNED, FAULT_DEADLOCK, FAULT_STACK, FAULT_LIMIT, FAULT_TRAP, \
    FAULT_EMPTY_POP, FAULT_UNSUPPORTED, FAULT_CYCLE_LIMIT, FAULT_CALL_DEPTH, FAULT_BAD_TARGET, \
    FAULT_WALL_CLOCK = range(13)       # FAULT_WALL_CLOCK: set by the host between slices (limits.wall_seconds)
UNSUPPORTED_BAR_COUNT, UNSUPPORTED_MMA_LANES, UNSUPPORTED_SASS = 0, 1, 2   # a FAULT_UNSUPPORTED's extra field

# ---- run-loop return codes ----
RUN_DONE, RUN_FAULT, RUN_HISTORY_FULL, RUN_EVENTS_FULL, RUN_TRACE_FULL, RUN_SLICE = range(6)

# ---- tc: machine scalars of a timing run (int64 vector) ----
TC_FIELDS = ("n_sm", "n_sp", "slots_per_sm", "warps_per_sm", "policy", "issue_width", "max_per_warp",
             "pool", "branch_latency", "barrier_latency", "block_launch", "sector_bytes", "line_bytes",
             "param_latency", "smem_latency", "smem_banks", "smem_bank_bytes", "smem_atomic", "smem_group_bytes",
             "smem_wavefront_latency",
             "l1_latency", "l1_sets", "l1_ways", "l1_hash", "l1_invalidate", "l2_latency", "l2_sets", "l2_ways", "l2_atomic",
             "dram_latency", "dram_spread_shift", "host_far", "host_far_shift", "dram_refresh_mask", "dram_refresh_interval",
             "dram_refresh", "dram_refresh_units", "misses_in_l2", "max_cycles", "max_sm_threads", "max_sm_warps", "max_sm_blocks",
             "sm_registers", "sm_shared", "n_units", "record_trace", "kernel_launch", "stream_kernel_gap",
             "control_codes", "read_latency", "store_data_read", "global_store_data_read", "global_store_bytes", "global_store_line_passes", "copy_line_passes", "shared_store_bytes", "taken_branch", "convergence_cycles", "reconverge", "group_switch", "fetch", "fetch_line_insts", "fetch_next_line", "l0i_sets", "l0i_ways",
             "l1i_sets", "l1i_ways", "l1i_line_cycles", "l2i_line_cycles", "fetch_flushed_first", "block_interval",
             "register_banks", "write_port", "memory_queue", "warp_pass_cycles", "warp_store_pass_cycles", "warp_conflict_pass_cycles", "shared_store_cycles", "branch_resolve", "slot_weight_ppm", "age_step_ppm", "greedy_cycles",
             "l1_store_buffer", "smsp_store_buffer", "sm_units", "const_line_bytes", "const_lines", "imc_miss", "ldc_miss", "const_gpu_misses", "store_ack", "deferred_barrier", "barrier_after_stores", "loads_in_order")
TC = _index(TC_FIELDS)
# tf: bandwidths, and an L2 hit's and a DRAM load's latency offsets in cycles (float64 vector)
LATENCY_SPREAD_SLOTS = 32
TF_FIELDS = ("l1_sectors_per_cycle", "l2_sectors_per_cycle", "dram_bytes_per_cycle", "dram_inflight_cycles",
             "l1_store_sectors_per_cycle", "l1_store_min_cycles", "smsp_store_cycles") \
    + tuple(f"l2_spread{i}" for i in range(LATENCY_SPREAD_SLOTS)) \
    + tuple(f"dram_spread{i}" for i in range(LATENCY_SPREAD_SLOTS))
TF = _index(TF_FIELDS)

# Tables.shared_width's columns (machine/state.py)
W_STORE, W_LOAD, W_LOAD_PASS_CYCLES = range(3)
# Tables.const_ref: the constant cache an instruction's constant operand goes through (the low
# CONST_PATH_BITS) and the constant's address (the rest; -1: no constant operand)
CONST_NONE, CONST_IMC, CONST_LDC = range(3)
CONST_PATH_BITS = 2
CONST_LAUNCH_SPAN = 1 << 16          # a launch's bank 0 (64 KiB) after the one before
CC_FIELDS = ("tag", "ready")         # a constant cache line slot: line + 1 (0: empty), when it is there
CC_TAG, CC_READY = range(len(CC_FIELDS))


def const_ref(address: int, path: int) -> int:
    """Tables.const_ref's entry for a constant at `address` read through cache `path`."""
    return (address << CONST_PATH_BITS) | path



SCHEDULER_NAMES = ("lrr", "gto", "two-level", "oldest", "gty", "grr", "gwf", "ogr", "awf")
SCHED_LRR, SCHED_GTO, SCHED_TWO_LEVEL, SCHED_OLDEST, SCHED_GTY, SCHED_GRR, SCHED_GWF, SCHED_OGR, SCHED_AWF = \
    range(len(SCHEDULER_NAMES))
# gwf's stride for slot s: PASS_ONE * 10**6 // (10**6 + scheduler.slot_weight_step in millionths * s)
PASS_ONE = 1 << 20

# ---- per-scheduler state (int64[n_sm, n_sp, SCHED_FIELDS]) ----
# warp that issued last (or was selected and held a cycle, at held_at), cycle it next needs a
# look, resident warps in its age order, the warp grr's round robin starts from (-1: the one
# after last), its slots in use (1 + the highest occupied slot: round robin looks no further)
# (SASS fetch: the cycle its instruction fetch path is free again; SASS global stores: the cycle
# its port for their data, sass.global_store_bytes_per_cycle, is free again; SASS BSSY / BSYNC:
# the cycle its convergence unit, sass.convergence_unit_cycles, is free again)
# (SASS register file: per bank, the first cycle its read port is free)
MAX_REGISTER_BANKS = 4
MAX_MEMORY_QUEUE = 256       # sass.memory_queue: instructions waiting for a sub-partition's LD/ST pipe
MAX_STORE_BUFFER = 4096      # memory.l1.store_buffer / smsp_store_buffer: entries (each a float64 per SM and queue)
# (SASS register-file write port: the cycles booked for fixed-latency results, a ring indexed by
# cycle mod N_WRITE_RING, so a booked unit's latency must stay below it)
N_WRITE_RING = 32
SCHED_FIELDS = ("last", "wake", "n_order", "held_at", "rr_from", "fetch_free", "vtime", "slots_used",
                "store_data_free", "cbu_free") + tuple(f"bank{i}" for i in range(MAX_REGISTER_BANKS)) \
    + tuple(f"write{i}" for i in range(N_WRITE_RING))
SC_LAST, SC_WAKE, SC_N_ORDER, SC_HELD_AT, SC_RR_FROM, SC_FETCH_FREE, SC_VTIME, SC_SLOTS_USED, SC_STORE_DATA, \
    SC_CBU, SC_BANK, SC_WRITE = (SCHED_FIELDS.index(f) for f in (
        "last", "wake", "n_order", "held_at", "rr_from", "fetch_free", "vtime", "slots_used", "store_data_free",
        "cbu_free", "bank0", "write0"))

# ---- instruction caches (SASS fetch): L0 int64[n_sm, n_sp, sets, ways, FETCH_FIELDS], L1
# int64[n_sm, sets, ways, FETCH_FIELDS]: line + 1 (0: empty), cycle the line arrives, LRU stamp
FETCH_FIELDS = ("tag", "ready", "stamp")
FT_TAG, FT_READY, FT_STAMP = range(len(FETCH_FIELDS))

# ---- per-SM record (int64[n_sm, SM_USE_FIELDS]): resources in use, and a lower bound of its
# schedulers' wake cycles (the cycle loop skips an SM until then)
# (and the cycle from which its next block may start: sass.block_launch_interval)
# (and its warps started and not yet exited: whom Nsight Compute's PC sampler picks from, stalls.sampled)
SM_USE_FIELDS = ("threads", "warps", "blocks", "registers", "shared", "wake", "next_start", "live")
U_THREADS, U_WARPS, U_BLOCKS, U_REGS, U_SMEM, U_WAKE, U_NEXT_START, U_LIVE = range(len(SM_USE_FIELDS))

# ---- timing-loop scalars (int64[NOW_FIELDS]) ----
# current cycle, instructions left in this slice, age counter, scheduler-cycles that issued,
# trace fill, stall-log fill, "blocks may be placed" flag
NOW_FIELDS = ("cycle", "slice_left", "age", "issue_cycles", "trace_fill", "tlog_fill", "place")
N_NOW, N_SLICE, N_AGE, N_ISSUE_CYCLES, N_TRACE, N_TLOG, N_PLACE = range(len(NOW_FIELDS))

# ---- per-kernel fields (int64[K, KF]) ----
KF_FIELDS = ("pc_base", "gid_base", "stream", "blocks", "next_block", "blocks_done", "ready_at",
             "first_cycle", "end_cycle", "last_complete", "regs_per_warp", "shared_per_block",
             "threads_per_block", "warps_per_block", "state")
KF = _index(KF_FIELDS)
(KF_PC_BASE, KF_GID_BASE, KF_STREAM, KF_BLOCKS, KF_NEXT_BLOCK, KF_BLOCKS_DONE, KF_READY_AT, KF_FIRST_CYCLE,
 KF_END_CYCLE, KF_LAST_COMPLETE, KF_REGS_PER_WARP, KF_SHARED_PER_BLOCK, KF_THREADS_PER_BLOCK,
 KF_WARPS_PER_BLOCK, KF_STATE) = range(len(KF_FIELDS))
KSTATE_WAITING, KSTATE_RUNNING, KSTATE_DONE = range(3)

# ---- stall reasons, named after Nsight Compute's where they map ----
STALL_NAMES = ("selected", "not_selected", "wait", "short_scoreboard", "long_scoreboard",
               "math_pipe_throttle", "lg_throttle", "mio_throttle", "branch_resolving", "barrier",
               "no_instruction", "drain", "dispatch_stall", "imc_miss")
(R_SELECTED, R_NOT_SELECTED, R_WAIT, R_SHORT, R_LONG, R_PIPE, R_LG, R_MIO, R_BRANCH, R_BARRIER,
 R_NO_INST, R_DRAIN, R_DISPATCH, R_IMC) = range(len(STALL_NAMES))
N_REASONS = len(STALL_NAMES)

# ---- per-kernel statistics (int64[K, KSTAT_COLUMNS]): counts, the W histogram (issued
# warp-instructions by active lanes, 0..MAX_WARP_SIZE), unit busy cycles and instructions,
# instructions by the pipe Nsight Compute counts them in (stall reasons: per pc, TState.pc_stalls)
MAX_WARP_SIZE = 64
STAT_FIELDS = ("warp_insts", "thread_insts", "active_lanes")
ST = _index(STAT_FIELDS)
STAT_WARP_INSTS, STAT_THREAD_INSTS, STAT_ACTIVE_LANES = range(len(STAT_FIELDS))
KS_WHIST = len(STAT_FIELDS)
KS_BUSY = KS_WHIST + MAX_WARP_SIZE + 1
# the units of the FP32 and integer pipes come first: grr with greedy_cycles over 1 keeps no turn for them
LAST_MATH_UNIT = 1
assert {UNIT_NAMES.index("fp32"), UNIT_NAMES.index("int")} == {0, LAST_MATH_UNIT}, UNIT_NAMES
KS_UNIT_INSTS = KS_BUSY + len(UNIT_NAMES)
KS_PIPE_INSTS = KS_UNIT_INSTS + len(UNIT_NAMES)       # instructions by Nsight Compute pipe (NCU_PIPES)
KS_SECTORS = KS_PIPE_INSTS + len(NCU_PIPES)           # where global sectors went (SECTOR_FIELDS)
# where a warp-instruction's global (and local) sectors went, as caches.global_access counts them
# (scratch, then summed per kernel): sectors loaded; of them L1 hits, and of those the hits on
# lines whose fill is still on its way; sectors read past L1; of them L2 hits (the host's copies'
# lines included); sectors read from DRAM; sectors stored.  Atomics count as loads past L1.
SECTOR_FIELDS = ("load", "l1_hit", "l1_hit_pending", "l2_read", "l2_hit", "dram_read", "store")
SECT_LOAD, SECT_L1_HIT, SECT_L1_PENDING, SECT_L2_READ, SECT_L2_HIT, SECT_DRAM_READ, SECT_STORE = \
    range(len(SECTOR_FIELDS))
KSTAT_COLUMNS = KS_SECTORS + len(SECTOR_FIELDS)

# ---- timing classes (what a warp-instruction waits on and how its result is timed) ----
CL_CODE = {name: i for i, name in enumerate(TIMING_CLASSES)}   # each opcode's class: isa/*.yaml
CL_ALU, CL_SFU, CL_MEM, CL_BRANCH, CL_BARRIER, CL_EXIT, CL_OTHER = (
    CL_CODE[n] for n in ("alu", "sfu", "memory", "branch", "barrier", "exit", "other"))

# ---- trace records (int64[n, TRACE_FIELDS]): one per issued warp-instruction ----
# (busy: the cycles the instruction holds its pipe)
TRACE_FIELDS = ("cycle", "gid", "pc", "mask", "exec_mask", "unit", "pipe", "busy", "sm", "sp", "kernel", "ready")
TR = _index(TRACE_FIELDS)
TR_CYCLE, TR_GID, TR_PC, TR_MASK, TR_EXEC, TR_UNIT, TR_PIPE, TR_BUSY, TR_SM, TR_SP, TR_KERNEL, TR_READY = \
    range(len(TRACE_FIELDS))
# stall intervals (int64[n, STALL_LOG_FIELDS])
STALL_LOG_FIELDS = ("gid", "start", "end", "reason")
N_STALL_LOG = len(STALL_LOG_FIELDS)

# ---- scratch space of one warp-instruction's memory access (int64[SCRATCH_SIZE]) ----
# lane addresses; then the sectors they touch (a lane's access may straddle two sectors), and
# the L1 and L2 way each sector used
SECTORS_PER_LANE = 2
SCRATCH_ADDRS = 0                                    # one address per lane (vector accesses: two)
SCRATCH_SECTORS = SCRATCH_ADDRS + MAX_WARP_SIZE * 2
SCRATCH_WAYS_L1 = SCRATCH_SECTORS + MAX_WARP_SIZE * SECTORS_PER_LANE * 2
SCRATCH_WAYS_L2 = SCRATCH_WAYS_L1 + MAX_WARP_SIZE * SECTORS_PER_LANE
SCRATCH_LANES = SCRATCH_WAYS_L2 + MAX_WARP_SIZE * SECTORS_PER_LANE        # the lane of each address
SCRATCH_WAVEFRONTS = SCRATCH_LANES + MAX_WARP_SIZE     # a shared access's passes through the banks (0: none)
SCRATCH_PORT_WAIT = SCRATCH_WAVEFRONTS + 1             # cycles it waited for the SM's shared port to start
SCRATCH_STORE_WAIT = SCRATCH_PORT_WAIT + 1             # a global store's wait for the SM's store port
SCRATCH_DATA_CYCLES = SCRATCH_STORE_WAIT + 1          # cycles a global store's data take to read
SCRATCH_SECTOR_COUNTS = SCRATCH_DATA_CYCLES + 1       # where a global access's sectors went (SECTOR_FIELDS)
SCRATCH_SIZE = SCRATCH_SECTOR_COUNTS + len(SECTOR_FIELDS)

# ---- buffers the host drains between engine calls ----
HISTORY_CHUNK = 8192          # mask-history rows per engine call, doubling up to HISTORY_CHUNK_MAX
HISTORY_CHUNK_MAX = 1 << 20
EVENT_CHUNK = 8192            # divergence-event rows
TRACE_CHUNK = 1 << 16         # issue-trace rows
STALL_LOG_CHUNK = 1 << 17     # stall-interval rows
SLICE_INSTS = 200_000         # warp-instructions between progress reports / Ctrl-C checks

INF = 1 << 62
