#!/usr/bin/env python
"""How much a workload's block spans depend on what L2 holds when it starts (GPU machine, or the
model beside the recording).  `simt-sim hw record` takes a program's clock spans from its first
launch after the previous program's runs, so its freshly copied inputs may land on addresses that
L2 still holds, or not.  Here each program runs under two fixed conditions, three times each:
- flushed: L2 emptied (a 256 MiB write), then fresh copies of every buffer and one launch;
- warm: one launch, then fresh copies (cupy's pool gives them the same addresses) and a second.
A program of several launches has them wait behind a blocker kernel each time, so that concurrent
streams start together (the host takes longer to enqueue a second launch than a short first kernel
runs).
Per condition the median over the three of the blocks' median and longest clock span, and the
clock buffer of the warm run whose longest span is that median.  The workload references take
their clock spans from that warm run (`--apply`): the same condition for every program, and the
one the model's host-copied lines stand for (in L2, `memory.l2.host_copy_latency`).

    python tools/span_conditions.py --gpu --out programs/validation/v-lat-l2/reference/h100-span-conditions.json [w-...]
    python tools/span_conditions.py          # the conditions' spans beside the references' and the model's
    python tools/span_conditions.py --apply  # the warm clocks into programs/workloads/w-*/reference/h100.json
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import probe_parser, write_result  # noqa: E402  (tools/, beside this file)
from simt_sim.programs import program_dir
RECORDED = ROOT / "programs" / "validation" / "v-lat-l2" / "reference" / "h100-span-conditions.json"
CONDITIONS = ("flushed", "warm")


def spans_of(clk) -> dict:
    from simt_sim.calibrate.compare import clock_spans
    s = np.array(clock_spans(np.asarray(clk)))
    return {"median": float(np.median(s)), "max": float(s.max())}


def gpu_spans(names) -> dict:
    """A multi-launch program's launches wait behind a blocker kernel (Prepared.launch), so that
    concurrent streams start together as in the timed runs."""
    from simt_sim.calibrate.record import Prepared, require_gpu, spin_kernel
    cp = require_gpu()
    from latency_spread import flush_l2
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        spin = spin_kernel(cp, Path(tmp))
        for name in names:
            p = Prepared(cp, program_dir(name), "plain", Path(tmp))
            clock = p.manifest.clock_outputs[0]
            runs, warm_clocks = {c: [] for c in CONDITIONS}, []
            p.launch()                                  # every kernel loaded
            for _ in range(3):
                flush_l2(cp)
                runs["flushed"].append(spans_of(cp.asnumpy(p.launch(spin)[clock])))
                p.launch(spin)
                warm_clocks.append(cp.asnumpy(p.launch(spin)[clock]))
                runs["warm"].append(spans_of(warm_clocks[-1]))
            out[name] = {c: {k: float(np.median([r[k] for r in rs])) for k in ("median", "max")}
                         for c, rs in runs.items()}
            middle = sorted(range(3), key=lambda i: runs["warm"][i]["max"])[1]
            out[name]["warm_clocks"] = {"buffer": clock, "dtype": str(warm_clocks[middle].dtype),
                                        "hex": warm_clocks[middle].tobytes().hex()}
            print(name, {c: out[name][c] for c in CONDITIONS}, flush=True)
    return out


def apply_warm_clocks(rec: dict) -> None:
    """Each program's reference clock buffer := its recorded warm run's (and says so).  Not for
    concurrent streams: which of two released kernels the GPU starts first varies from run to run
    (the warm runs of w-fusion-streams started cd_kernel first), so their reference keeps the
    clocks of a queued `simt-sim hw record` run whose kernels started in launch order, as the
    model starts them."""
    from simt_sim.frontend.manifest import load_manifest
    for name, r in rec.items():
        if load_manifest(str(program_dir(name))).concurrent_streams:
            print(f"{name}: concurrent streams, reference clocks kept (see apply_warm_clocks)")
            continue
        path = program_dir(name) / "reference" / "h100.json"
        ref = json.loads(path.read_text())
        c = r["warm_clocks"]
        ref["outputs"][c["buffer"]] = {"dtype": c["dtype"], "hex": c["hex"]}
        ref["provenance"]["clock_outputs"] = ("a warm launch: fresh copies of the buffers onto the addresses "
                                              "of a launch just before (tools/span_conditions.py)")
        path.write_text(json.dumps(ref, indent=1, sort_keys=True) + "\n")


def reference_spans(name: str) -> dict:
    from simt_sim.calibrate.compare import recorded_array
    from simt_sim.frontend.manifest import load_manifest
    ref = json.loads((program_dir(name) / "reference" / "h100.json").read_text())
    return spans_of(recorded_array(ref["outputs"][load_manifest(str(program_dir(name))).clock_outputs[0]]))


def model_spans(name: str, overrides=()) -> dict:
    import simt_sim
    from simt_sim.frontend.manifest import load_manifest
    res = simt_sim.run_program(str(program_dir(name)), isa="sass", overrides=list(overrides))
    return spans_of(res.outputs[load_manifest(str(program_dir(name))).clock_outputs[0]])


def main() -> int:
    ap = probe_parser(__doc__)
    ap.add_argument("programs", nargs="*", help="program names (default: every w-* program)")
    ap.add_argument("--gpu", action="store_true", help="measure on the GPU (else print the recording and the model)")
    ap.add_argument("--apply", action="store_true", help="write the recorded warm clocks into the references")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key in the model")
    args = ap.parse_args()
    names = args.programs or sorted(d.name for d in (ROOT / "programs" / "workloads").glob("w-*"))
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "spans": gpu_spans(names)}, args.out)
        return 0
    rec = json.loads(RECORDED.read_text())["spans"]
    if args.apply:
        apply_warm_clocks(rec)
        return 0
    print(f"{'program':<22} block span, median / longest: {'reference':>15} {'flushed':>15} {'warm':>15} {'model':>15}")
    for name in names:
        cols = [reference_spans(name), rec[name]["flushed"], rec[name]["warm"], model_spans(name, args.set)]
        print(f"{name:<22} {'':>29}" + "".join(f"{c['median']:>8.0f}/{c['max']:<6.0f}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
