#!/usr/bin/env python
"""What CUDA events measure around launches in one or several streams (GPU machine, or the model
beside the recording).  The workload references time a program's launch sequence as `simt-sim hw
record` does (simt_sim.calibrate.record.timed_sequence: the streams held behind a blocker kernel,
start event, every stream's launches, each stream's end joined to the stop event); the model adds
one `host.event_overhead` (measured around one launch in one stream) to its cycles whatever the
streams.  Here the same timing runs over kernels whose lengths are known: tools/kernels/
stream_events.cu's `stamped`, every block spinning a given number of cycles and writing the global
timer at its start and end, launched as each case below says (stream, blocks, cycles); the blocker
kernel is `stamped` too, so it stamps its end, where the start event fires.  Per case the median
event time over 3 x 20 runs (each after 5), and per launch the median of its first block's start and
its last block's end, in µs from the blocker's end (the model's: from the cycle its launches are
issued).

    python tools/stream_events.py --gpu --out programs/workloads/w-fusion-streams/reference/h200-stream-events.json
    python tools/stream_events.py          # the model beside the recording (µs at h100.yaml's clock)
    python tools/stream_events.py --fit    # the host.stream_* values the recording gives, the model with them
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import model_probe_parser, write_result  # noqa: E402
from simt_sim.programs import program_dir
PTX = ROOT / "tools" / "kernels" / "stream_events.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-fusion-streams" / "reference" / "h200-stream-events.json"
RUNS, WARMUP, ROUNDS = 20, 5, 3
# the fusion study's variants, timed as their references are (a machine beside the H100 shows
# whether its streams' costs carry over): serial is the study's base
FUSION = ("w-fusion-serial", "w-fusion-tc-only", "w-fusion-cd-only", "w-fusion-streams", "w-fusion-inner-thread",
          "w-fusion-inner-block", "w-fusion-inter-block", "w-fusion-ptb")
SPIN = 20_000
# case: launches in enqueue order, each (stream, blocks of 128 threads, cycles each block spins)
CASES = {
    "1 stream, 1 kernel": [(0, 1, 0)],
    "1 stream, 2 kernels": [(0, 1, 0), (0, 1, 0)],
    "2 streams, 1 kernel each": [(0, 1, 0), (1, 1, 0)],
    "3 streams, 1 kernel each": [(0, 1, 0), (1, 1, 0), (2, 1, 0)],
    "4 streams, 1 kernel each": [(0, 1, 0), (1, 1, 0), (2, 1, 0), (3, 1, 0)],
    "1 stream, spin": [(0, 1, SPIN)],
    "1 stream, spin, spin": [(0, 1, SPIN), (0, 1, SPIN)],
    "2 streams, spin each": [(0, 1, SPIN), (1, 1, SPIN)],
    "2 streams, spin / empty": [(0, 1, SPIN), (1, 1, 0)],
    "2 streams, empty / spin": [(0, 1, 0), (1, 1, SPIN)],
    "1 stream, 528 blocks": [(0, 528, 5_000)],
    "2 streams, 528 blocks each": [(0, 528, 5_000), (1, 528, 5_000)],
}


def gpu_case(cp, f, launches) -> dict:
    """Event times (µs) of RUNS timed sequences, and each launch's first block start and last block
    end in µs from the blocker's end (the start event follows it): the median over the runs.  The
    blocker is `stamped` itself, one block spinning record.SPIN_CYCLES, so it stamps its end."""
    from simt_sim.calibrate.record import SPIN_CYCLES, timed_sequence
    streams = {s: cp.cuda.Stream(non_blocking=True) for s in sorted({s for s, _, _ in launches})}
    outs = [cp.zeros(2 * blocks, cp.uint64) for _, blocks, _ in launches]
    held = cp.zeros(2, cp.uint64)

    def blocker(grid, block, _args):
        f(grid, block, (np.int64(SPIN_CYCLES), held))

    def enqueue():
        for (s, blocks, cycles), out in zip(launches, outs):
            with streams[s]:
                f((blocks,), (128,), (np.int64(cycles), out))

    times, stamps = [], []
    for run in range(WARMUP + RUNS):
        ms = timed_sequence(cp, blocker, streams.values(), enqueue)
        if run >= WARMUP:
            times.append(ms * 1000.0)
            t = [o.get().reshape(-1, 2).astype(np.int64) for o in outs]
            zero = int(held.get()[1])
            stamps.append([[(int(x[:, 0].min()) - zero) / 1000.0, (int(x[:, 1].max()) - zero) / 1000.0] for x in t])
    return {"event_us": times, "launches_us": np.median(np.array(stamps), axis=0).round(3).tolist()}


def measure() -> dict:
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function("stamped")
    rounds = [{name: gpu_case(cp, f, launches) for name, launches in CASES.items()} for _ in range(ROUNDS)]
    out = {}
    for name in CASES:
        times = [t for r in rounds for t in r[name]["event_us"]]
        out[name] = {"event_us": round(float(np.median(times)), 3), "spread_us": [min(times), max(times)],
                     "round_medians_us": [round(float(np.median(r[name]["event_us"])), 3) for r in rounds],
                     "launches_us": np.median(np.array([r[name]["launches_us"] for r in rounds]), axis=0).round(3).tolist()}
    return out


def measure_fusion() -> dict:
    """Each fusion variant's launch sequence timed as `simt-sim hw record` times it (Prepared.elapsed,
    cycles at the measured SM clock), ROUNDS times over the variants in turn."""
    import tempfile

    from simt_sim.calibrate.record import Prepared, measure_sm_clock_khz, require_gpu, spin_kernel
    cp = require_gpu()
    with tempfile.TemporaryDirectory() as tmp:
        spin = spin_kernel(cp, Path(tmp))
        khz = measure_sm_clock_khz(cp, spin, cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
        prepared = {n: Prepared(cp, program_dir(n), "plain", Path(tmp)) for n in FUSION}
        for p in prepared.values():
            p.launch()                          # every kernel loaded before any timing
        rounds = [{n: p.elapsed(spin, khz) for n, p in prepared.items()} for _ in range(ROUNDS)]
    return {n: {"cycles": [r[n]["cycles"] for r in rounds],
                "spread_cycles": [round(min(r[n]["ms_spread"][0] for r in rounds) * khz),
                                  round(max(r[n]["ms_spread"][1] for r in rounds) * khz)]} for n in FUSION}


def simulated(launches, overrides=()) -> dict:
    """The model's event time (cycles + host.event_overhead) and each launch's first and last
    cycle, µs at the config's clock."""
    import simt_sim
    from simt_sim.calibrate.compare import simulated_elapsed
    prog = simt_sim.load_program(str(PTX), "stamped", isa="sass")
    cfg = simt_sim.load_config("h100", list(overrides))
    bufs = {f"out{i}": np.zeros(2 * blocks, np.uint64) for i, (_, blocks, _) in enumerate(launches)}
    res = simt_sim.simulate([simt_sim.Launch(prog, blocks, 128, [cycles, f"out{i}"], stream=s)
                             for i, (s, blocks, cycles) in enumerate(launches)], bufs, cfg)
    mhz = cfg.get("clock_mhz")            # the model's global timer counts SM cycles
    t = [res.outputs[f"out{i}"].reshape(-1, 2).astype(np.int64) for i in range(len(launches))]
    return {"event_us": simulated_elapsed(res.raw) / mhz,     # cycle 0: the launches are issued
            "launches_us": [[round(int(x[:, 0].min()) / mhz, 3), round(int(x[:, 1].max()) / mhz, 3)]
                            for x in t]}


ONE_STREAM = ("1 stream, 1 kernel", "1 stream, spin", "1 stream, 528 blocks")
TWO_STREAMS = ("2 streams, 1 kernel each", "2 streams, spin each", "2 streams, 528 blocks each")


def fitted(cases: dict, mhz: float) -> dict:
    """host.stream_start_delay and host.stream_join (cycles at `mhz`) from a recording: how much
    later the first kernel starts with two streams than with one (the median over the cases), and
    what the event time adds after the last kernel's end when two streams end together (each pair
    of ONE_STREAM / TWO_STREAMS cases, the median)."""
    def start(name):
        return min(a for a, _ in cases[name]["launches_us"])

    def tail(name):
        return cases[name]["event_us"] - max(b for _, b in cases[name]["launches_us"])

    two = [n for n in cases if n.startswith("2 streams")]
    delay = float(np.median([start(n) for n in two]) - np.median([start(n) for n in ONE_STREAM]))
    join = float(np.median([tail(b) - tail(a) for a, b in zip(ONE_STREAM, TWO_STREAMS)]))
    return {"host.stream_start_delay": round(delay * mhz), "host.stream_join": round(join * mhz)}


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--fit", action="store_true", help="the two host.stream_* values from the recording, and the "
                                                       "model with them beside it")
    args = ap.parse_args()
    if args.gpu:
        from probe_output import gpu_name
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "runs": RUNS, "warmup": WARMUP,
                      "rounds": ROUNDS, "cases": measure(), "fusion": measure_fusion()}, args.out)
        return 0
    doc = json.loads(RECORDED.read_text())
    rec, sets = doc["cases"], list(args.set)
    if args.fit:
        import simt_sim
        values = fitted(rec, simt_sim.load_config("h100").get("clock_mhz"))
        print(f"{doc['device']}: " + ", ".join(f"{k}: {v}" for k, v in values.items()))
        sets += [f"{k}={v}" for k, v in values.items()]
    print(f"case                           event µs {doc['device'].split()[-1]} | model     launches' [start, end] µs, the same")
    for name, launches in CASES.items():
        hw, model = rec.get(name, {}), simulated(launches, tuple(sets))
        print(f"{name:<30} {hw.get('event_us', float('nan')):8.2f} | {model['event_us']:6.2f}    "
              f"{hw.get('launches_us', [])} | {model['launches_us']}")
    fusion = doc.get("fusion", {})
    if fusion:
        base = np.median(fusion["w-fusion-serial"]["cycles"])
        print("fusion variants' event-timed cycles each round, and the speed-up over serial by the median:")
        for name, f in fusion.items():
            print(f"  {name:<24} {f['cycles']}  x {base / np.median(f['cycles']):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
