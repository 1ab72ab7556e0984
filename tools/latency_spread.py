#!/usr/bin/env python
"""How far the latency of one load strays from its mean, and with what it varies (GPU machine).

Three kernels, each timing dependent loads with clock64 (the clock is read after a shared-memory
store of the loaded value, so it waits for the data):
- chase: one thread on each of the 132 SMs follows a random permutation of 128-byte lines
  (ld.global.cg), through lines a previous launch left in L2 ("l2"), lines the host has just
  copied in ("host"), and lines flushed out of L2 ("dram").  "l2" and "dram" run twice on the
  same SM/line pairs: is the latency a property of the pair or of the moment?
- pair: the same chase, each step also loading k - 1 more lines 2 KiB apart (k = 2, 4) and waiting
  for all: do loads issued together stray together?
- stream: 4 blocks of 128 or 512 threads read x[t * n + f] for t = 0..127, one or two lines per
  warp and step (seed 003's pattern); lane 0 of every warp records each step's wait.

Per condition: mean, standard deviation, the 32 quantiles (at (i + 0.5) / 32) less their mean,
and for the repeated chases the correlation of the two runs' per-load latencies.  The quantiles of
"l2" are what `memory.l2.latency_spread_ns` holds (tools/calibrate_h100.py).

    python tools/latency_spread.py --out programs/validation/v-lat-l2/reference/h100-latency-spread.json
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from probe_output import probe_parser, write_result
from simt_sim.calibrate.probes.stream_load import flush_l2, stream_waits  # noqa: F401  (host_load, span_conditions: flush_l2)

KERNELS = r'''
extern "C" __global__ void chase(const unsigned* __restrict__ nxt, unsigned lines, unsigned start_stride,
                                 int steps, int k, long long* lat, unsigned* smid) {
    __shared__ volatile unsigned sink[4];
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    smid[blockIdx.x] = s;
    unsigned cur = (blockIdx.x * start_stride) & (lines - 1);
    for (int i = 0; i < steps; i++) {
        long long t0 = clock64();
        unsigned v, w1 = 0, w2 = 0, w3 = 0;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(nxt + (size_t)cur * 32));
        if (k > 1) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w1) : "l"(nxt + (size_t)((cur + 16) & (lines - 1)) * 32));
        if (k > 2) {
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w2) : "l"(nxt + (size_t)((cur + 32) & (lines - 1)) * 32));
            asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(w3) : "l"(nxt + (size_t)((cur + 48) & (lines - 1)) * 32));
        }
        sink[0] = v; sink[1] = w1; sink[2] = w2; sink[3] = w3;
        long long t1 = clock64();
        lat[blockIdx.x * steps + i] = t1 - t0;
        cur = v;
    }
}

''' + (Path(__file__).resolve().parent / "kernels" / "stream_load.cu").read_text()   # the stream kernel, also the model's
SMS, STEPS, SKIP = 132, 256, 8          # chasers, steps each, first steps left out (the loop warming up)
BIG, SMALL = 1 << 20, 1 << 14           # lines in the DRAM table (128 MiB) and the L2 / host tables (2 MiB)
QUANTILES = 32


def summary(lat) -> dict:
    x = np.asarray(lat, dtype=float).ravel()
    q = np.percentile(x, (np.arange(QUANTILES) + 0.5) * 100.0 / QUANTILES)
    return {"mean": round(float(x.mean()), 1), "std": round(float(x.std()), 1), "samples": int(x.size),
            "quantiles_less_mean": [round(float(v), 1) for v in q - q.mean()]}


def measure() -> dict:
    import cupy as cp
    mod = cp.RawModule(code=KERNELS, options=("-arch=sm_90",))
    chase, stream = mod.get_function("chase"), mod.get_function("stream")
    rng = np.random.default_rng(2026)

    def table(lines):
        perm = rng.permutation(lines).astype(np.uint32)
        host = np.zeros(lines * 32, np.uint32)
        host[perm * 32] = np.roll(perm, -1)
        return host

    def run_chase(nxt, lines, k=1):
        lat, sm = cp.zeros(SMS * STEPS, cp.int64), cp.zeros(SMS, cp.uint32)
        chase((SMS,), (1,), (nxt, np.uint32(lines), np.uint32(104729), np.int32(STEPS), np.int32(k), lat, sm))
        cp.cuda.runtime.deviceSynchronize()
        return lat.get().reshape(SMS, STEPS)[:, SKIP:]

    out = {"clock": "SM cycles at the plain launch's clock (1980 MHz on the H100)"}
    small, big = table(SMALL), table(BIG)
    for k in (1, 2, 4):
        flush_l2(cp)
        nxt = cp.asarray(small)
        cp.cuda.runtime.deviceSynchronize()
        host = run_chase(nxt, SMALL, k)
        l2 = [run_chase(nxt, SMALL, k) for _ in range(2)]
        nxt_big = cp.asarray(big)
        dram = []
        for _ in range(2):
            flush_l2(cp)
            dram.append(run_chase(nxt_big, BIG, k))
        out[f"chase_k{k}"] = {"host": summary(host), "l2": summary(l2[0]), "dram": summary(dram[0]),
                              "l2_repeat_correlation": round(float(np.corrcoef(l2[0].ravel(), l2[1].ravel())[0, 1]), 3),
                              "dram_repeat_correlation": round(float(np.corrcoef(dram[0].ravel(), dram[1].ravel())[0, 1]), 3)}
        del nxt, nxt_big
    for threads in (128, 512):
        n, m = 16 * threads, 128
        data = rng.standard_normal(n * m).astype(np.float32)
        for k in (1, 2):
            waits = stream_waits(cp, stream, data, 4, threads, n, m, k)
            out[f"stream_w{threads // 128}_k{k}"] = {c: summary(w[:, SKIP // 2:]) for c, w in waits.items()}
    return out


def main() -> None:
    args = probe_parser(__doc__).parse_args()
    write_result({"tool": os.path.basename(__file__), **measure()}, args.out)


if __name__ == "__main__":
    main()
