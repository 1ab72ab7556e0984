"""A functional (untimed) run of one kernel: lower, lay out memory, run the engine's round-robin
loop, collect outputs, mask history, divergence events and per-thread instruction counts."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simt_sim.engine.functional.loop import run_functional
from simt_sim.errors import Interrupted, RuntimeFault
from simt_sim.frontend.assembler import Program
from simt_sim.machine import layout as L
from simt_sim.machine.config import LaunchConfig
from simt_sim.frontend.dims import Dim3, check_dims  # noqa: F401  (Dim3 re-exported for callers)
from simt_sim.machine.lower import lower
from simt_sim.run.compile_notice import EngineCall, flavour
from simt_sim.run.memcheck import MemcheckReport
from simt_sim.run.slices import Slices, name_thread, wall_fault
from simt_sim.run.timed import KernelLaunch
from simt_sim.run.session import (Session, describe_fault, lane_efficiency, layout_global,  # noqa: F401
                                  mask_bits, pack_params)

# per-thread counts are kept for grids up to this many threads (tests, figures); larger grids
# run without them, in memory bounded by what can be resident
MAX_RECORDED_THREADS = 1 << 24
SLICE_INSTS = L.SLICE_INSTS      # warp-instructions between Ctrl-C / wall-clock checks (tests shorten it)


@dataclass
class RunResult:
    program: Program
    grid: Dim3
    block: Dim3
    config: LaunchConfig
    buffers: dict[str, np.ndarray]
    history: np.ndarray            # int64[n, 4]: warp gid, pc, active mask, executing (guard-true) mask
    events: np.ndarray             # int64[n, 5]: warp gid, kind, pc, mask, stack depth
    thread_icount: np.ndarray | None   # instructions executed (guard true) per thread, by global thread
    max_stack_depth: np.ndarray | None # per global warp
    counters: dict[str, int] = field(default_factory=dict)
    module_globals: dict[str, np.ndarray] = field(default_factory=dict)   # name -> bytes after the run
    memcheck: MemcheckReport | None = None    # config.memcheck "report": the bad accesses (run/memcheck.py)
    interrupted: bool = False      # Ctrl-C stopped it (carried by errors.Interrupted): counters so far

    @property
    def warps_per_block(self) -> int:
        return -(-self.block.count // self.config.warp_size)

    def warp_history(self, gid: int) -> np.ndarray:
        return self.history[self.history[:, 0] == gid]

    @property
    def stats(self) -> dict[str, float]:
        c = self.counters
        ws = self.config.warp_size
        warp_insts = c["warp_insts"]
        return {
            "warp_instructions": warp_insts,
            "thread_instructions": c["thread_insts"],
            "active_lane_instructions": c["active_lanes"],
            "cfe": lane_efficiency(c["thread_insts"], warp_insts, ws),
            "simd_efficiency": lane_efficiency(c["active_lanes"], warp_insts, ws),
        }


def launch(program: Program, grid, block, args: list, buffers: dict[str, np.ndarray] | None = None,
           config: LaunchConfig | None = None, dynamic_shared: int = 0) -> RunResult:
    """Run `program` over grid x block threads.  args: one per kernel parameter, either the name
    of a buffer (its address is passed) or a number.  Buffers are copied in and out."""
    config = config or LaunchConfig()
    config.validate()
    grid, block = check_dims(grid, "grid"), check_dims(block, "block")
    one = KernelLaunch(program, grid, block, list(args), dynamic_shared=dynamic_shared)
    image = lower([one], config.gpu_config(), timed=False)
    record_threads = image.n_gids * image.warp_size <= MAX_RECORDED_THREADS
    s = Session(image, [one], buffers or {}, config.record_history, record_threads, config.memcheck)
    max_insts = int(image.kgeom[0][L.G["max_warp_insts"]])
    c = s.counters
    c[L.C_SLICE_END] = min(SLICE_INSTS, max_insts)
    slices = Slices(config.wall_budget())
    interrupted = False
    status = L.RUN_DONE
    engine = EngineCall(run_functional, flavour(image.code, "functional"))     # says so when numba compiles
    with np.errstate(all="ignore"):
        try:
            while True:
                status = engine(s.image.code, s.regs, s.warps, s.mem, image.kgeom[0], s.slot_block,
                                c, s.thread_icount, s.max_sp, s.hist, s.ev, s.fault)
                if s.drain(status, keep_events=True):
                    continue
                if status != L.RUN_SLICE:
                    break
                if slices.spent():
                    wall_fault(s.fault, s.warps, slices.limit, prefer=int(c[L.C_CURSOR]))
                    status = L.RUN_FAULT
                    break
                c[L.C_SLICE_END] = min(int(c[L.C_WARP_INSTS]) + SLICE_INSTS, max_insts)
        except KeyboardInterrupt:
            interrupted = True
    s.resident_stack_depths()
    if status == L.RUN_FAULT and not interrupted:
        name_thread(s.fault, s.warps)
        raise RuntimeFault(describe_fault(program, s.fault, s.warps, s.slot_block, grid, block,
                                          image.warp_size, image.wpb))
    counters = {name: int(s.counters[i]) for i, name in enumerate(L.COUNTER_FIELDS) if name != "slice_end"}
    result = RunResult(program, grid, block, config, s.outputs(), s.history(), s.events(),
                       s.thread_icount if record_threads else None, s.max_sp if record_threads else None,
                       counters, s.module_globals(), s.memcheck_report(), interrupted)
    result.history_dropped = s.dropped["hist"]    # rows past limits.history_rows (run/budget.py)
    if interrupted:
        raise Interrupted(result)
    return result
