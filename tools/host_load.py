#!/usr/bin/env python
"""Is a host-copied line slow because its buffer is large or because many lines are in flight (GPU
machine)?  probe stream_load's streams grew their buffer with their warps, so the two went
together.  Here 132 blocks of 1 to 32 warps read x[t * n + g] (n = all threads, one line per warp
and step, lane 0 timing each step: the wait from the load to a shared-memory store of its value)
through buffers of 1 to 32 MiB, the steps being as many as the buffer holds: lines the host has
just copied in ("host"), the same after a further 32 MiB copy of another buffer ("host_then_other"),
lines flushed out of L2 ("dram"), lines a first launch read in ("l2") and lines a first launch read
in, then copied over by the host ("host_over_l2": a benchmark loop's fresh inputs, the conditions
of the workload references' block clocks).  Mean wait per step over the steps after the first two.

    python tools/host_load.py --out programs/validation/v-lat-l2/reference/h100-host-load.json
    python tools/host_load.py --out programs/validation/v-lat-l2/reference/h100-host-load-over-l2.json   # with host_over_l2
"""
from __future__ import annotations

import os

import numpy as np

from probe_output import gpu_name, probe_parser, write_result
from latency_spread import flush_l2

KERNEL = r'''
extern "C" __global__ void stream1(const float* __restrict__ x, int n, int m, long long* lat, float* out) {
    __shared__ volatile float sink[1024];
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < m; t++) {
        long long t0 = clock64();
        float a;
        asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(a) : "l"(x + (size_t)t * n + g));
        sink[threadIdx.x] = a;
        long long t1 = clock64();
        acc += a;
        if ((threadIdx.x & 31) == 0) lat[(size_t)(g / 32) * m + t] = t1 - t0;
    }
    out[g] = acc;
}
'''
BLOCKS, SKIP, MIN_STEPS = 132, 2, 6
WARPS = (1, 4, 16, 32)
MIB = (1, 2, 4, 8, 16, 32)
CONDITIONS = ("host", "host_then_other", "dram", "l2", "host_over_l2")


def waits(cp, f, data, threads: int, n: int, m: int, cond: str) -> float:
    flush_l2(cp)
    x = cp.asarray(data)
    cp.cuda.runtime.deviceSynchronize()
    if cond == "host_then_other":
        other = cp.asarray(np.ones(8 << 20, np.float32))
        cp.cuda.runtime.deviceSynchronize()
        del other
    if cond == "dram":
        flush_l2(cp)
    lat, out = cp.zeros(BLOCKS * threads // 32 * m, cp.int64), cp.zeros(BLOCKS * threads, cp.float32)
    for run in range(1 if cond in ("host", "host_then_other", "dram") else 2):
        if run == 1 and cond == "host_over_l2":
            x.set(data)                 # the host's fresh copy onto the lines L2 holds
            cp.cuda.runtime.deviceSynchronize()
        f((BLOCKS,), (threads,), (x, np.int32(n), np.int32(m), lat, out))
    cp.cuda.runtime.deviceSynchronize()
    return round(float(lat.get().reshape(-1, m)[:, SKIP:].mean()), 1)


def measure() -> list[dict]:
    import cupy as cp
    f = cp.RawModule(code=KERNEL, options=("-arch=sm_90",)).get_function("stream1")
    rows = []
    for warps in WARPS:
        threads = 32 * warps
        n = BLOCKS * threads
        for mib in MIB:
            m = (mib << 20) // (4 * n)
            if m < MIN_STEPS:
                continue
            data = np.ones(n * m, np.float32)
            row = {"warps_per_sm": warps, "buffer_mib": round(n * m * 4 / (1 << 20), 2), "steps": m,
                   "lines_in_flight": BLOCKS * warps}
            row.update({c: waits(cp, f, data, threads, n, m, c) for c in CONDITIONS})
            rows.append(row)
            print(row, flush=True)
    return rows


def main() -> None:
    args = probe_parser(__doc__).parse_args()
    write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "clock": "SM cycles at the plain launch's clock",
                  "sms": BLOCKS, "mean_wait_per_step": measure()}, args.out)


if __name__ == "__main__":
    main()
