#!/usr/bin/env python
"""Calibrate configs/h100.yaml from the recorded H100 references (a script, not hand edits).

Each latency comes from one microbenchmark's recorded clock span: the simulator runs the same
program with the current config, and the value moves by (hardware span - simulated span) / steps
(the span is linear in the latency; the spans also contain other latencies, so the
update runs memory first and repeats until it settles).  The launch
overhead comes from the empty kernel's sm__cycles_elapsed.max.  The edits keep the YAML's comments.

    python tools/calibrate_h100.py            # update configs/h100.yaml, print the table
    python tools/calibrate_h100.py --check    # exit 1 if the config is not what calibration gives
"""
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.machine.config import load_config  # noqa: E402
from simt_sim.frontend.assembler import load_program  # noqa: E402
from simt_sim.frontend.manifest import load_manifest  # noqa: E402
from simt_sim.run.timed import manifest_launch, simulate  # noqa: E402
from simt_sim.calibrate.compare import clock_spans, recorded_array  # noqa: E402

CONFIG = ROOT / "configs" / "h100.yaml"
# program, dependent steps timed, config key calibrated
# Memory first: the ALU chains' spans include the wait for their input load.
LATENCIES = [
    ("v-lat-dram", 32, "memory.dram.latency"),
    ("v-lat-l2", 32, "memory.l2.latency"),
    ("v-lat-l1", 32, "memory.l1.latency"),
    ("v-lat-shared", 128, "memory.shared.latency"),
    ("v-lat-fp32", 128, "units.fp32.latency"),
    ("v-lat-int", 128, "units.int.latency"),
    ("v-lat-fp64", 128, "units.fp64.latency"),
    ("v-lat-sfu", 128, "units.sfu.latency"),          # the chain is MUFU.RSQ + FFMA per step
]
PASSES = 4
LAUNCH = ("launch-empty", "sm.kernel_launch_latency")


def reference(name):
    return json.loads((ROOT / "programs" / name / "reference" / "h100.json").read_text())


def simulate_program(name, cfg):
    d = ROOT / "programs" / name
    m = load_manifest(str(d))
    prog = load_program(str(d / "kernel.ptx"), m.kernel)
    cfg = cfg.with_overrides(m.overrides) if m.overrides else cfg
    return simulate([manifest_launch(m, prog)], {s.name: s.make() for s in m.buffers}, cfg)


def hw_span(name):
    ref = reference(name)
    return max(clock_spans(recorded_array(ref["outputs"]["clk"]).view(np.int64)))


def set_value(text, dotted, value):
    """Replace one value in the h100.yaml text (inline {..} maps for units and memory levels)."""
    section, *rest = dotted.split(".")
    if section == "sm":
        key = rest[0]
        if re.search(rf"^  {key}:", text, re.M):
            return re.sub(rf"^(  {key}:\s*)\d+", rf"\g<1>{value}", text, count=1, flags=re.M)
        return re.sub(r"^(  block_launch_latency:.*)$", rf"\1\n  {key}: {value}", text, count=1, flags=re.M)
    name, field = rest[-2], rest[-1]
    pattern = rf"^(\s+{name}:\s*\{{[^}}]*\b{field}:\s*)\d+"
    new, n = re.subn(pattern, rf"\g<1>{value}", text, count=1, flags=re.M)
    if n != 1:
        raise SystemExit(f"cannot find {dotted} in {CONFIG}")
    return new


def calibrate():
    rows = []
    text = CONFIG.read_text()
    for _ in range(PASSES):
        rows = []
        cfg = load_config(str(CONFIG))
        for name, steps, key in LATENCIES:
            sim = max(clock_spans(simulate_program(name, cfg).buffers["clk"]))
            hw = hw_span(name)
            old = cfg.get(key)
            new = max(1, int(round(old + (hw - sim) / steps)))
            rows.append((key, old, new, name, hw, sim))
            text = set_value(text, key, new)
        name, key = LAUNCH
        ncu = reference(name)["ncu"]
        hw = float(np.median([r["sm__cycles_elapsed.max"] for r in ncu]))
        sim = simulate_program(name, cfg).cycles
        old = cfg.get(key)
        new = max(0, int(round(old + hw - sim)))
        rows.append((key, old, new, name, hw, sim))
        text = set_value(text, key, new)
        CONFIG.write_text(text)
    return rows


def main():
    check = "--check" in sys.argv
    before = CONFIG.read_text()
    rows = calibrate()
    after = CONFIG.read_text()
    print(f"{'config key':<28} {'value':>6}  {'source program':<16} {'hw span':>9} {'sim span':>9}")
    for key, old, new, name, hw, sim in rows:
        print(f"{key:<28} {new:>6}  {name:<16} {hw:>9.0f} {sim:>9.0f}")
    if check:
        CONFIG.write_text(before)
        if after != before:
            print("configs/h100.yaml is not calibrated: run python tools/calibrate_h100.py", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
