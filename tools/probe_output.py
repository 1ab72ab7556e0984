"""What the GPU probe tools not yet in the probe registry share (profiled_chase, host_copy_strides,
launch_sequence, imc_miss, latency_spread, shared_ops,
warp_ends, tc_tile_rate, sched_beside, ...; `simt-sim probe --list` lists those moved): an argument
parser with --out, the recorded JSON written there and printed (with the GPU's name), Nsight
Compute's source page read back into a recording of runs (its CSV readers are the registry's,
simt_sim/calibrate/probes/base.py), and one block of a probe kernel run in the model."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

# shared with the probes of the registry (simt_sim/calibrate/probes/), the tools still here re-use them
from simt_sim.calibrate.probes.base import (STALL_METRIC, gpu_medians, gpu_name, ncu_csv_kernels,  # noqa: F401
                                            ncu_csv_launches, recorded, running_warp_steps, span_per_warp_step,
                                            warp_rate, write_result)


def probe_parser(doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", help="write the JSON here, the recorded reference (else only print it)")
    return ap


def model_probe_parser(doc: str) -> argparse.ArgumentParser:
    """probe_parser with --gpu (measure; else run the model beside the recording) and --set
    (override config keys in the model)."""
    ap = probe_parser(doc)
    ap.add_argument("--gpu", action="store_true", help="measure on the GPU (else simulate)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a key of configs/h100.yaml in the model (repeatable)")
    return ap


def slot_means(per_warp) -> "np.ndarray":
    """The mean of each scheduler slot's figures, from one figure per warp of a block (warp w sits
    in slot w // 4 of sub-partition w % 4, on the H100's four)."""
    import numpy as np
    return np.asarray(per_warp, float).reshape(-1, 4).mean(axis=1)




def simulate_block(ptx, kernel: str, threads: int, args: list, buffers: dict, overrides=(), trace: bool = False,
                   launches: int = 1):
    """One block of a probe kernel's SASS (the cubin committed beside its PTX) on one SM of the h100
    config, with `overrides` (KEY=VALUE), `launches` times in a row (sharing the buffers and the
    caches); simt_sim's Result."""
    import simt_sim
    prog = simt_sim.load_program(str(ptx), kernel, isa="sass")
    cfg = simt_sim.load_config("h100", ["num_sms=1", *overrides])
    return simt_sim.simulate([simt_sim.Launch(prog, 1, threads, args)] * launches, buffers, cfg, trace=trace)


def beside(recorded_values, model_values, fmt: str = "6.2f", width: int = 13) -> str:
    """A row's recorded figures and the model's on one line: "H H | M M"."""
    hw = " ".join(f"{v:{fmt}}" for v in recorded_values)
    return f"{hw:>{width}} | " + " ".join(f"{v:{fmt}}" for v in model_values)


def add_to_recording(path: Path, tool: str, key: str, entry: dict, indent: int = 0, **fields) -> None:
    """Add (or replace) run `key` of a recording of several runs ({"tool", "device", ..., "runs"}),
    with the GPU's name and `fields` at its top."""
    doc = json.loads(path.read_text()) if path.exists() else {"tool": tool, "runs": {}}
    doc.update(fields, device=gpu_name())
    doc["runs"][key] = entry
    path.write_text(json.dumps(doc, indent=indent) + "\n")


def source_page_run(csv_path, kernel: str) -> dict:
    """Nsight Compute's source page (--page source --print-source sass --csv) of some launches of
    `kernel` -> {"sass", "pages", "samples"}: its SASS and the samples per pc and stall reason
    (pc_stalls.NCU_REASONS), summed over the pages."""
    import numpy as np
    from simt_sim.calibrate.pc_stalls import NCU_REASONS
    from simt_sim.calibrate.source_counts import parse_source_page
    pages = [p for p in parse_source_page(Path(csv_path).read_text(), tuple(NCU_REASONS)) if p["kernel"] == kernel]
    if not pages:
        raise SystemExit(f"{csv_path}: no launch of {kernel}")
    return {"sass": pages[0]["sass"], "pages": len(pages), "samples": np.sum([p["counts"] for p in pages], axis=0).tolist()}


def recorded_samples(path, key: str, texts) -> tuple["np.ndarray", list[str]]:
    """Run `key`'s samples [pc, reason] and the reasons from a recording of source_page_run's, once
    its SASS is checked against `texts`, the SASS the model runs."""
    import numpy as np
    from simt_sim.calibrate.pc_stalls import opcode_of
    doc = json.loads(Path(path).read_text())
    run = doc["runs"][key]
    if [opcode_of(t) for t in texts] != [opcode_of(t) for t in run["sass"]]:
        raise SystemExit(f"{key}: the SASS here differs from the recorded one (recompiled?)")
    return np.array(run["samples"], float), doc["reasons"]

