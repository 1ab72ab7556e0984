#!/usr/bin/env python3
"""Write seed 000's regrouping inputs (.npy files beside the manifests), deterministically.

    python tools/make_regroup_inputs.py            # write every file, print predictor accuracy
    python tools/make_regroup_inputs.py --check    # exit 1 if a committed file differs

For each user kernel (tree, ec, lbm; simt_sim/workloads/regroup.py): the workload's inputs
(seeded), a predictor MLP trained on separate sample inputs (another seed), its f16 predictions on
the workload's inputs computed with the tensor core's exact arithmetic (simt_sim/oracle/
tensor_math.py, what the WMMA kernel computes), Algorithm 1's index array from those predictions,
and the physically permuted inputs.  Files:

    programs/workloads/w-regroup-K-base/      inputs in the original order (idx = range)
    programs/workloads/w-regroup-K-index/     idx.npy: Algorithm 1's order (inputs read from -base)
    programs/workloads/w-regroup-K-permuted/  the inputs permuted by that order (idx = range; lbm: the
                                    cell and slot maps, see seed000_lbm.cuh)
    programs/workloads/w-regroup-predictor/   K_x.npy (f16 feature rows), K_w1/b1/w2/b2.npy (the network)
"""
from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simt_sim.oracle.tensor_math import mma_tile  # noqa: E402
from simt_sim.workloads import regroup as rg  # noqa: E402
from simt_sim.programs import program_dir

N_THREADS = 65536             # per user kernel: 256 blocks of 256, as the paper's EC (Table 2)
LBM_NX, LBM_NY = 256, 128      # 32768 cells: 128 blocks of 256 (the nine f32 planes, twice, stay small)
PREDICTOR_ROWS = 16384         # rows of features the w-regroup-predictor programs classify
SEEDS = {"tree": 1000, "ec": 2000, "lbm": 3000}     # workload inputs; training inputs use seed + 1
TRAIN_ROWS = 16384


def exact_mma(a_bits, b_bits, c, rows: int = 2048):
    """One 16-deep tensor-core step as the H100 computes it (bit-exact model), `rows` at a time
    (the model holds every product of its rows)."""
    return np.concatenate([mma_tile(a_bits[r:r + rows], b_bits, c[r:r + rows].view(np.uint32), "f16", "f32")
                           for r in range(0, len(a_bits), rows)]).view(np.float32)


def tree_case():
    x = rg.tree_inputs(N_THREADS, SEEDS["tree"])
    train = rg.tree_inputs(TRAIN_ROWS, SEEDS["tree"] + 1)
    return dict(features=rg.tree_features(x), labels=rg.tree_classes(x),
                train=(rg.tree_features(train), rg.tree_classes(train)), classes=rg.TREE_CLASSES,
                data={"feat": (rg.tree_pack(x), 4)})


def ec_case():
    genome = rg.ec_genome(SEEDS["ec"])
    spectrum = rg.ec_spectrum(genome)
    reads = rg.ec_reads(genome, N_THREADS, SEEDS["ec"])
    train = rg.ec_reads(genome, TRAIN_ROWS, SEEDS["ec"] + 1)    # the same genome, other reads
    return dict(features=rg.ec_features(reads, spectrum), labels=rg.ec_reference(reads, spectrum)[1],
                train=(rg.ec_features(train, spectrum), rg.ec_reference(train, spectrum)[1]),
                classes=rg.EC_CLASSES, data={"reads": (reads, 1)}, shared={"spectrum": spectrum})


def lbm_case():
    types = rg.lbm_geometry(LBM_NX, LBM_NY, SEEDS["lbm"])
    fin = rg.lbm_populations(types, SEEDS["lbm"])
    train_types = rg.lbm_geometry(LBM_NX, LBM_NY, SEEDS["lbm"] + 1)
    return dict(features=rg.lbm_features(types, LBM_NX), labels=types.copy(),
                train=(rg.lbm_features(train_types, LBM_NX), train_types), classes=rg.LBM_CLASSES,
                data={"type": (types, 1), "fin": (fin, 9)})


def permute_items(values: np.ndarray, per_item: int, order: np.ndarray) -> np.ndarray:
    """Item-major data (per_item words per item, or [9, n] planes for fin) in `order`."""
    if values.ndim == 2:                                   # lbm planes [9, n]
        return np.ascontiguousarray(values[:, order]).reshape(-1)
    return np.ascontiguousarray(values.reshape(-1, per_item)[order]).reshape(-1)


def build(name: str, case: dict) -> tuple[dict[Path, np.ndarray], dict]:
    files: dict[Path, np.ndarray] = {}
    pred_dir = ROOT / "programs" / "workloads" / "w-regroup-predictor"
    mlp = rg.train_mlp(*case["train"], classes=case["classes"], seed=SEEDS[name] + 7)
    net = rg.quantise(mlp)
    x_bits = rg.features_f16(case["features"])
    pred = rg.mlp_infer(x_bits, net, exact_mma)[:len(case["labels"])]
    index = rg.regroup(pred)
    if name in ("tree", "ec"):                             # the paper's two predictor shapes
        files[pred_dir / f"{name}_x.npy"] = x_bits[:PREDICTOR_ROWS].reshape(-1)
    files[pred_dir / f"{name}_w1.npy"] = net.w1.reshape(-1)
    files[pred_dir / f"{name}_b1.npy"] = net.b1
    files[pred_dir / f"{name}_w2.npy"] = net.w2.reshape(-1)
    files[pred_dir / f"{name}_b2.npy"] = net.b2
    files[pred_dir / f"{name}_pred.npy"] = pred.astype(np.uint8)     # every thread's predicted class
    base, idx_dir, perm_dir = (program_dir(f"w-regroup-{name}-{v}") for v in ("base", "index", "permuted"))
    for key, (values, per_item) in case["data"].items():
        files[base / f"{key}.npy"] = values.reshape(-1)
        files[perm_dir / f"{key}.npy"] = permute_items(values, per_item, index)
    for key, values in case.get("shared", {}).items():
        files[base / f"{key}.npy"] = values
    files[idx_dir / "idx.npy"] = index
    if name == "lbm":                                      # thread t works on cell index[t], stored at slot t
        files[perm_dir / "idx.npy"] = index
        files[perm_dir / "slot.npy"] = rg.inverse(index)
    labels = case["labels"]
    summary = {"shape": mlp.shape, "classes_used": int(len(np.unique(labels))),
               "train_accuracy_f32": rg.accuracy(np.argmax(np.maximum(case["train"][0] @ mlp.w1 + mlp.b1, 0)
                                                           @ mlp.w2 + mlp.b2, 1), case["train"][1]),
               "accuracy": rg.accuracy(pred, labels),
               "classes_per_warp_base": rg.distinct_classes_per_warp(labels),
               "classes_per_warp_regrouped": rg.distinct_classes_per_warp(labels[index]),
               "classes_per_warp_ideal": rg.distinct_classes_per_warp(labels[rg.regroup(labels)])}
    return files, summary


def npy_bytes(values: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, values, allow_pickle=False)
    return buf.getvalue()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    ns = p.parse_args(argv)
    all_files, summaries = {}, {}
    for name, case in (("tree", tree_case), ("ec", ec_case), ("lbm", lbm_case)):
        files, summaries[name] = build(name, case())
        all_files.update(files)
    all_files[ROOT / "programs" / "workloads" / "w-regroup-predictor" / "summary.json"] = summaries
    stale = []
    for path, values in sorted(all_files.items()):
        data = (json.dumps(values, indent=1, sort_keys=True) + "\n").encode() if path.suffix == ".json" \
            else npy_bytes(values)
        if ns.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    print(f"{'kernel':6} {'MLP':9} {'accuracy':>8} {'classes/warp base':>18} {'regrouped':>9} {'ideal':>6}")
    for name, s in summaries.items():
        print(f"{name:6} {s['shape']:9} {s['accuracy']:8.3f} {s['classes_per_warp_base']:18.2f} "
              f"{s['classes_per_warp_regrouped']:9.2f} {s['classes_per_warp_ideal']:6.2f}")
    if stale:
        print("stale or missing:", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
