"""Occupancy: how many blocks of a kernel fit on one SM, and which limit decides it."""
from __future__ import annotations

from dataclasses import dataclass

from simt_sim.machine.config import GPUConfig
from simt_sim.frontend.dims import MAX_REGS_PER_THREAD
from simt_sim.errors import InputError


@dataclass
class Occupancy:
    registers_per_thread: int
    registers_per_warp: int       # allocated, rounded to the granularity
    shared_per_block: int         # allocated, rounded to the granularity
    blocks_per_sm: int
    limiter: str                  # blocks, warps, threads, registers or shared memory
    limits: dict[str, int]

    def as_dict(self) -> dict:
        return {"registers_per_thread": self.registers_per_thread, "blocks_per_sm": self.blocks_per_sm,
                "limiter": self.limiter, "limits": self.limits}


def round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def occupancy(cfg: GPUConfig, kernel_name: str, threads_per_block: int, registers_per_thread: int,
              shared_bytes: int) -> Occupancy:
    ws = cfg.get("warp_size")
    warps = -(-threads_per_block // ws)
    regs = min(max(registers_per_thread, 1), MAX_REGS_PER_THREAD)
    regs_warp = round_up(regs * ws, cfg.get("sm.register_granularity"))
    smem = round_up(shared_bytes, cfg.get("sm.shared_granularity")) if shared_bytes else 0
    limits = {
        "blocks": cfg.get("sm.max_resident_blocks"),
        "warps": cfg.get("sm.max_warps") // warps,
        "threads": cfg.get("sm.max_threads") // (warps * ws),
        "registers": cfg.get("sm.registers") // (regs_warp * warps),
        "shared memory": cfg.get("sm.shared_memory") // smem if smem else cfg.get("sm.max_resident_blocks"),
    }
    limiter = min(limits, key=lambda k: limits[k])
    n = limits[limiter]
    if n < 1:
        need = {"warps": f"{warps} warps (SM holds {cfg.get('sm.max_warps')})",
                "threads": f"{warps * ws} threads (SM holds {cfg.get('sm.max_threads')})",
                "registers": f"{regs_warp * warps} registers ({regs} per thread; SM has {cfg.get('sm.registers')})",
                "shared memory": f"{smem} bytes of shared memory (SM has {cfg.get('sm.shared_memory')})",
                "blocks": "a block slot"}[limiter]
        raise InputError(f"kernel {kernel_name}: a block of {threads_per_block} threads does not fit on an SM of "
                         f"{cfg.name}: it needs {need}")
    return Occupancy(regs, regs_warp, smem, n, limiter, limits)


def active_smsps(cfg: GPUConfig, blocks: int, threads_per_block: int, blocks_per_sm: int) -> int:
    """Sub-partitions (SMSPs) that get a warp during a launch.  Blocks go round robin to
    min(blocks, SMs) SMs; a warp's SMSP is its index among the SM's resident warps modulo the
    sub-partitions, so an SM with w warps resident at once uses min(w, sub-partitions) of them.
    The same rule serves the simulation and the hardware counters (which do not say where warps
    ran), so that their issue-slot uses compare."""
    sms = max(1, min(blocks, cfg.get("num_sms")))
    warps_per_block = -(-threads_per_block // cfg.get("warp_size"))
    blocks_at_once = max(1, min(blocks_per_sm, -(-blocks // sms)))
    return sms * min(cfg.get("sm.sub_partitions"), warps_per_block * blocks_at_once)


def issue_slot_use(warp_instructions: float, cycles: float, smsps: int, issue_width: int = 1) -> float:
    """The "GPU loading" of seed 003: warp-instructions issued / issue slots offered, where each
    active SMSP offers issue_width slots per cycle.  1.0 means every active scheduler issued in
    every cycle of the kernel (launch overhead included, as in sm__cycles_elapsed)."""
    slots = cycles * smsps * issue_width
    return warp_instructions / slots if slots > 0 else 0.0
