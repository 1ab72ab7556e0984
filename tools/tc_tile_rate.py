#!/usr/bin/env python
"""How fast the fusion workloads' tensor-core predictor runs its 16-row tiles: on the GPU (--gpu)
and in the simulator (default).  One block of 1, 4, 8 or 16 warps runs tc_part.cuh's tile loop
(tools/kernels/tc_tile_rate.cu, its PTX and the committed cubin beside it), 8 tiles a warp with
their x rows in L2 (read past L1 first), with the tile's epilogue whole or without its global or
its shared store.  Printed: each warp's cycles per tile (the mean and the slowest warp's).

    python tools/tc_tile_rate.py --gpu --out programs/workloads/w-fusion-tc-only/reference/h100-tc-tile-rate.json
    python tools/tc_tile_rate.py           # the simulator beside the recorded figures

Where the warps wait, per SASS instruction (Nsight Compute's PC sampling, as
simt_sim.calibrate.pc_stalls does for the programs), for one kernel and block size:

    ncu --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
        --import-source no --warp-sampling-interval 0 python tools/tc_tile_rate.py --launch k_tiles 16 > t.csv
    python tools/tc_tile_rate.py --ncu-page t.csv --launch k_tiles 16     # adds it to the recording
    python tools/tc_tile_rate.py --stalls k_tiles 16 [--min 60]      # warp-cycles per warp, H100 | model
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from probe_output import (add_to_recording, gpu_medians, gpu_name, model_probe_parser, recorded,  # noqa: E402
                          recorded_samples, simulate_block, source_page_run, write_result)  # noqa: E402  (tools/, beside this file)
PTX = ROOT / "tools" / "kernels" / "tc_tile_rate.ptx"
RECORDED = ROOT / "programs" / "workloads" / "w-fusion-tc-only" / "reference" / "h100-tc-tile-rate.json"
STALLS = ROOT / "programs" / "workloads" / "w-fusion-tc-only" / "reference" / "h100-tc-tile-stalls.json"
LAUNCHES = 10                   # launches profiled per kernel and block size
TILES, MAX_WARPS = 8, 16
KERNELS = {"k_tiles": "tile as tc_part.cuh", "k_tiles_nostg": "no global store of the logits",
           "k_tiles_nosts": "no shared store, no argmax"}
WARPS = {"1 warp": 1, "4 warps": 4, "8 warps": 8, "16 warps": 16}


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"x": rng.integers(12288, 15360, MAX_WARPS * TILES * 256, dtype=np.uint16),
            "w1": rng.uniform(-1, 1, 512).astype(np.float32), "w2": rng.uniform(-1, 1, 512).astype(np.float32),
            "logits": np.zeros(MAX_WARPS * TILES * 256, np.float32), "pred": np.zeros(MAX_WARPS * TILES * 16, np.uint32),
            "times": np.zeros(2 * MAX_WARPS, np.uint32)}


def per_tile(times: np.ndarray, warps: int) -> list[float]:
    t = times.astype(np.int64).reshape(-1, 2)[:warps]
    c = ((t[:, 1] - t[:, 0]) % (1 << 32)) / TILES
    return [round(float(c.mean()), 1), round(float(c.max()), 1)]


def launch(cp, f, name: str, warps: int) -> list[float]:
    bufs = {k: cp.asarray(v) for k, v in inputs().items()}
    f((1,), (32 * warps,), tuple(bufs[k] for k in ("x", "w1", "w2", "logits", "pred", "times")))
    cp.cuda.runtime.deviceSynchronize()
    return per_tile(bufs["times"].get(), warps)


def simulated(name: str, warps: int, overrides: tuple[str, ...] = ()) -> list[float]:
    bufs = inputs()
    res = simulate_block(PTX, name, 32 * warps, ["x", "w1", "w2", "logits", "pred", "times"], bufs, overrides)
    return per_tile(res.outputs["times"], warps)


def profiled_launches(name: str, warps: int) -> None:
    """LAUNCHES launches of one kernel and block size, for ncu to sample."""
    import cupy as cp
    f = cp.RawModule(path=str(PTX)).get_function(name)
    for _ in range(LAUNCHES):
        launch(cp, f, name, warps)


def record_page(csv_path: str, name: str, warps: int) -> None:
    """ncu's source page of profiled_launches -> the recorded stalls' run "NAME / WARPS"."""
    from simt_sim.calibrate.pc_stalls import NCU_REASONS
    add_to_recording(STALLS, os.path.basename(__file__), f"{name} / {warps}", source_page_run(csv_path, name),
                     reasons=list(NCU_REASONS.values()))


def print_stalls(name: str, warps: int, at_least: float, overrides: tuple[str, ...]) -> None:
    """Per instruction, warp-cycles per warp on the H100 (its sample shares scaled to its recorded
    tile time over the model's) and in the model, where they differ by at_least, with their largest
    reasons."""
    import simt_sim
    from simt_sim.calibrate.pc_stalls import largest
    from simt_sim.machine.layout import STALL_NAMES
    texts = simt_sim.load_program(str(PTX), name, isa="sass").texts
    hw, reasons = recorded_samples(STALLS, f"{name} / {warps}", texts)
    res = simulate_block(PTX, name, 32 * warps, ["x", "w1", "w2", "logits", "pred", "times"], inputs(), overrides)
    model = res.raw.pc_stalls[0] / warps
    label = next(k for k, v in WARPS.items() if v == warps)
    ratio = recorded(RECORDED, "cycles_per_tile")[f"{name} / {label}"][0] / per_tile(res.outputs["times"], warps)[0]
    hw *= model.sum() * ratio / hw.sum()
    print(f"{name}, {warps} warps: warp-cycles per warp, H100 | model (H100 tile {ratio:.2f} x the model's)")
    for pc, text in enumerate(texts):
        h, m = hw[pc].sum(), model[pc].sum()
        if abs(h - m) >= at_least:
            print(f"{pc:4} {text[:38]:38} {h:7.0f} | {m:7.0f}  {h - m:+7.0f}   "
                  f"{largest(hw[pc], reasons)} | {largest(model[pc], STALL_NAMES)}")
    print(f"     {'all':38} {hw.sum():7.0f} | {model.sum():7.0f}")


def main() -> int:
    ap = model_probe_parser(__doc__)
    ap.add_argument("--launch", nargs=2, metavar=("KERNEL", "WARPS"), help="launch it for ncu (with --ncu-page: "
                    "which launches the page holds)")
    ap.add_argument("--ncu-page", help="ncu's source page (CSV) of --launch, added to the recorded stalls")
    ap.add_argument("--stalls", nargs=2, metavar=("KERNEL", "WARPS"), help="the recorded stalls beside the model's")
    ap.add_argument("--min", type=float, default=40, help="with --stalls: the smallest difference shown")
    args = ap.parse_args()
    if args.launch and args.ncu_page:
        record_page(args.ncu_page, args.launch[0], int(args.launch[1]))
        return 0
    if args.launch:
        profiled_launches(args.launch[0], int(args.launch[1]))
        return 0
    if args.stalls:
        print_stalls(args.stalls[0], int(args.stalls[1]), args.min, tuple(args.set))
        return 0
    if args.gpu:
        write_result({"tool": os.path.basename(__file__), "device": gpu_name(), "tiles": TILES, "kernels": KERNELS,
                      "cycles_per_tile": gpu_medians(PTX, KERNELS, WARPS, launch, 1)}, args.out)
        return 0
    rec = recorded(RECORDED, "cycles_per_tile")
    print(f"{'kernel':<32}{'warps':<10} cycles per tile (mean, slowest warp): H100 | model")
    for name, what in KERNELS.items():
        for label, warps in WARPS.items():
            hw = " ".join(f"{v:6.1f}" for v in rec.get(f"{name} / {label}", []))
            model = " ".join(f"{v:6.1f}" for v in simulated(name, warps, tuple(args.set)))
            print(f"{what:<32}{label:<10} {hw:>13} | {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
