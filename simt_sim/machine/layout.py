"""Integer layout of the timing model's arrays: config scalars, per-kernel fields, statistics,
stall reasons and trace records.  Python (simt_sim/timing) fills them; the numba loop reads them."""
from __future__ import annotations

from simt_sim.isa.table import TIMING_CLASSES

# ---- tc: machine scalars from the GPU config (int64 vector) ----
TC_FIELDS = ("n_sm", "n_sp", "slots_per_sm", "warps_per_sm", "policy", "issue_width", "max_per_warp",
             "pool", "branch_latency", "barrier_latency", "block_launch", "sector_bytes", "line_bytes",
             "param_latency", "smem_latency", "smem_banks", "smem_bank_bytes", "smem_atomic",
             "l1_latency", "l1_sets", "l1_ways", "l2_latency", "l2_sets", "l2_ways", "l2_atomic",
             "dram_latency", "max_cycles", "max_sm_threads", "max_sm_warps", "max_sm_blocks",
             "sm_registers", "sm_shared", "n_units", "record_trace", "kernel_launch")
TC = {name: i for i, name in enumerate(TC_FIELDS)}
# tf: bandwidths (float64 vector)
TF_FIELDS = ("l1_sectors_per_cycle", "l2_sectors_per_cycle", "dram_bytes_per_cycle")
TF = {name: i for i, name in enumerate(TF_FIELDS)}

SCHED_LRR, SCHED_GTO, SCHED_TWO_LEVEL, SCHED_OLDEST = range(4)
SCHED_NAMES = ("lrr", "gto", "two-level", "oldest")

# ---- per-kernel fields (int64[K, KF]) ----
KF_FIELDS = ("pc_base", "gid_base", "stream", "blocks", "next_block", "blocks_done", "ready_at",
             "first_cycle", "end_cycle", "last_complete", "regs_per_warp", "shared_per_block",
             "threads_per_block", "warps_per_block", "state")
KF = {name: i for i, name in enumerate(KF_FIELDS)}
(KF_PC_BASE, KF_GID_BASE, KF_STREAM, KF_BLOCKS, KF_NEXT_BLOCK, KF_BLOCKS_DONE, KF_READY_AT, KF_FIRST_CYCLE,
 KF_END_CYCLE, KF_LAST_COMPLETE, KF_REGS_PER_WARP, KF_SHARED_PER_BLOCK, KF_THREADS_PER_BLOCK,
 KF_WARPS_PER_BLOCK, KF_STATE) = range(len(KF_FIELDS))
KSTATE_WAITING, KSTATE_RUNNING, KSTATE_DONE = range(3)

# ---- per-kernel statistics (int64[K, N_STATS]) ----
STAT_FIELDS = ("warp_insts", "thread_insts", "active_lanes")
ST = {name: i for i, name in enumerate(STAT_FIELDS)}
STAT_WARP_INSTS, STAT_THREAD_INSTS, STAT_ACTIVE_LANES = range(len(STAT_FIELDS))

# ---- stall reasons, named after Nsight Compute's where they map ----
STALL_NAMES = ("selected", "not_selected", "wait", "short_scoreboard", "long_scoreboard",
               "math_pipe_throttle", "lg_throttle", "mio_throttle", "branch_resolving", "barrier",
               "no_instruction", "drain")
(R_SELECTED, R_NOT_SELECTED, R_WAIT, R_SHORT, R_LONG, R_PIPE, R_LG, R_MIO, R_BRANCH, R_BARRIER,
 R_NO_INST, R_DRAIN) = range(len(STALL_NAMES))
N_REASONS = len(STALL_NAMES)

# ---- timing classes (what a warp-instruction waits on and how its result is timed) ----
CL_CODE = {name: i for i, name in enumerate(TIMING_CLASSES)}   # each opcode's class: isa/*.yaml
CL_ALU, CL_SFU, CL_MEM, CL_BRANCH, CL_BARRIER, CL_EXIT, CL_OTHER = (
    CL_CODE[n] for n in ("alu", "sfu", "memory", "branch", "barrier", "exit", "other"))

# ---- trace records (int64[n, TRACE_FIELDS]): one per issued warp-instruction ----
TRACE_FIELDS = ("cycle", "gid", "pc", "mask", "exec_mask", "unit", "sm", "sp", "kernel", "ready")
TR = {name: i for i, name in enumerate(TRACE_FIELDS)}
TR_CYCLE, TR_GID, TR_PC, TR_MASK, TR_EXEC, TR_UNIT, TR_SM, TR_SP, TR_KERNEL, TR_READY = range(len(TRACE_FIELDS))
# stall intervals (int64[n, 4]): gid, first cycle, end cycle (exclusive), reason
N_STALL_LOG = 4

INF = 1 << 62
