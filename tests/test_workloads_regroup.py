"""Seed 000, predictor-regrouped inputs (docs/workloads.md): Algorithm 1, the numpy models
of the three user kernels against the simulator (original, index-redirected and physically
permuted inputs give the same outputs), CFE of regrouped vs original, the MLP predictor and its
WMMA tensor-core kernel against numpy, and the committed inputs against their generator's rules."""
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import simt_sim
from simt_sim.calibrate.record import program_dirs
from simt_sim.errors import InputError
from simt_sim.frontend.manifest import load_manifest
from simt_sim.oracle.tensor_math import mma_tile
from simt_sim.programs import program_dir, program_file
from simt_sim.workloads import regroup as rg

ROOT = Path(__file__).resolve().parents[1]
PRED = program_dir("w-regroup-predictor")
KERNELS = ("tree", "ec", "lbm")
VARIANTS = ("base", "index", "permuted")
LBM_NX = 256


def npy(path) -> np.ndarray:
    return np.load(program_file(path))


@lru_cache(maxsize=None)
def simulated(program: str):
    """One timed run of a program (cached: several tests read the same run)."""
    return simt_sim.run_program(program_dir(program))


def exact_mma(a_bits, b_bits, c, rows=2048):
    return np.concatenate([mma_tile(a_bits[r:r + rows], b_bits, c[r:r + rows].view(np.uint32), "f16", "f32")
                           for r in range(0, len(a_bits), rows)]).view(np.float32)


def predictor(name: str) -> rg.MlpF16:
    w1, w2 = npy(f"w-regroup-predictor/{name}_w1.npy"), npy(f"w-regroup-predictor/{name}_w2.npy")
    classes = {"tree": rg.TREE_CLASSES, "ec": rg.EC_CLASSES, "lbm": rg.LBM_CLASSES}[name]
    return rg.MlpF16(w1.reshape(-1, rg.HIDDEN), npy(f"w-regroup-predictor/{name}_b1.npy"),
                     w2.reshape(rg.HIDDEN, -1), npy(f"w-regroup-predictor/{name}_b2.npy"), classes)


# ------------------------------------------------------------------ Algorithm 1

def test_regroup_sorts_each_group_of_64_and_keeps_positions():
    pred = np.random.default_rng(5).integers(0, 10, 1000)          # 15 full groups and one of 40
    index = rg.regroup(pred)
    assert index.dtype == np.uint32 and sorted(index.tolist()) == list(range(1000))     # a permutation
    for start in range(0, 1000, 64):
        group = index[start:start + 64].astype(np.int64)
        assert group.min() >= start and group.max() < min(start + 64, 1000)             # groups never mix
        classes = pred[group]
        assert (np.diff(classes) >= 0).all()                                            # sorted by path
        for c in np.unique(classes):                                                    # ties keep order
            assert (np.diff(group[classes == c]) > 0).all()
    data = np.arange(1000) * 7 + 3
    regrouped = data[index]
    assert (regrouped[rg.inverse(index)] == data).all()                                 # inverse restores
    assert (rg.inverse(index)[index] == np.arange(1000)).all()


def test_regroup_reduces_the_paths_per_warp_and_checks_its_input():
    pred = np.tile(np.arange(4), 64)                                # every warp sees all 4 classes
    assert rg.distinct_classes_per_warp(pred) == 4
    assert rg.distinct_classes_per_warp(pred[rg.regroup(pred)]) == 2   # g = 64: two classes per warp
    assert rg.distinct_classes_per_warp(pred[rg.regroup(pred, group=256)]) == 1
    with pytest.raises(ValueError, match="one-dimensional"):
        rg.regroup(np.zeros((4, 4)))
    with pytest.raises(ValueError, match="at least 1"):
        rg.regroup(pred, group=0)


# ------------------------------------------------------------------ numpy models of the kernels

def test_tree_model_on_hand_made_items():
    x = np.zeros((3, 16), np.uint8)
    x[1, 0], x[1, 5], x[1, 7] = 200, 200, 10            # right, x5 >= 150, x7 < 128, x8 < 200: leaf 7
    x[2, :] = 255                                        # right, x5 >= 150, x7 >= 128: leaf 9
    out, cls = rg.tree_reference(x)
    assert cls.tolist() == [0, 7, 9]
    h = np.array([0x9E3779B9], np.uint32)                # leaf 0 from a = x9 = 0: 24 rounds
    for _ in range(24):
        h = (h ^ (h >> np.uint32(15))) * np.uint32(0x2C1B3C6D)
    assert out[0] == h[0]


def test_ec_model_paths():
    genome = np.array([0, 1, 2, 3, 0, 0, 1, 1, 2, 2, 3, 3, 0, 1, 3, 2] * 4)
    spectrum = rg.ec_spectrum(genome)

    def pack(bases):
        return np.uint32(sum(int(b) << (3 * p) for p, b in enumerate(bases)))

    clean = genome[2:12]
    one_sub = clean.copy()
    one_sub[6] = (one_sub[6] + 1) % 4
    two_n = clean.copy()
    two_n[[1, 4]] = rg.EC_N
    one_n = clean.copy()
    one_n[3] = rg.EC_N
    reads = np.array([pack(clean), pack(one_sub), pack(two_n), pack(one_n)], np.uint32)
    out, cls = rg.ec_reference(reads, spectrum)
    assert cls[0] == 6 and cls[2] == 0
    assert 1 <= cls[3] <= 4 and 7 <= cls[1] <= 21        # fixed: the N, and one substitution
    packed_clean = sum(int(b) << (2 * p) for p, b in enumerate(clean))
    assert out[0] == packed_clean
    feats = rg.ec_features(reads, spectrum)
    assert feats.shape == (4, 10) and (feats[0] == 1).all() and feats[3, 3] == -1


def test_lbm_geometry_and_rest_state():
    types = rg.lbm_geometry(32, 16, seed=1)
    t = types.reshape(16, 32)
    assert (t[0] == rg.LBM_SOLID).all() and (t[15] == rg.LBM_SOLID).all()
    assert (t[1:15, 0] == rg.LBM_INLET).all() and (t[1:15, 31] == rg.LBM_OUTLET).all()
    assert 0.2 <= (t[1:15, 2:30] == rg.LBM_SOLID).mean() < 0.5
    fin = np.tile(np.array(rg.LBM_W, np.float32)[:, None], (1, len(types)))   # rest equilibrium
    fout = rg.lbm_reference(types, fin, 32)
    fluid = np.flatnonzero(types == rg.LBM_FLUID)
    far = [c for c in fluid if all(types[c + d] == rg.LBM_FLUID for d in (-33, -32, -31, -1, 1, 31, 32, 33))]
    assert far and np.allclose(fout[:, far], fin[:, far], atol=1e-7)          # equilibrium stays put


# ------------------------------------------------------------------ the simulator against numpy

def expected_outputs(kernel: str) -> dict[str, np.ndarray]:
    """The kernel's outputs in the original order, from numpy."""
    base = f"w-regroup-{kernel}-base"
    if kernel == "tree":
        out, cls = rg.tree_reference(npy(f"{base}/feat.npy").view(np.uint8).reshape(-1, 16))
        return {"out": out, "cls": cls}
    if kernel == "ec":
        out, cls = rg.ec_reference(npy(f"{base}/reads.npy"), npy(f"{base}/spectrum.npy"))
        return {"out": out, "cls": cls}
    fin = npy(f"{base}/fin.npy").reshape(9, -1)
    return {"fout": rg.lbm_reference(npy(f"{base}/type.npy"), fin, LBM_NX).reshape(-1)}


def outputs_in_original_order(kernel: str, variant: str) -> dict[str, np.ndarray]:
    """A variant's simulated outputs, un-permuted to the original item order."""
    outs = simulated(f"w-regroup-{kernel}-{variant}").outputs
    names = ["fout"] if kernel == "lbm" else ["out", "cls"]
    if variant != "permuted":
        return {n: outs[n] for n in names}
    order = npy(f"w-regroup-{kernel}-index/idx.npy").astype(np.int64)     # slot s holds item order[s]
    restored = {}
    for n in names:
        planes = outs[n].reshape(9, -1) if kernel == "lbm" else outs[n][None]
        back = np.empty_like(planes)
        back[:, order] = planes
        restored[n] = back.reshape(-1)
    return restored


@pytest.mark.parametrize("kernel", KERNELS)
def test_all_three_variants_compute_numpys_outputs(kernel):
    want = expected_outputs(kernel)
    for variant in VARIANTS:
        got = outputs_in_original_order(kernel, variant)
        for name, values in want.items():
            assert got[name].dtype == values.dtype
            assert np.array_equal(got[name].view(np.uint32), values.view(np.uint32)), (kernel, variant, name)


# The simulator's CFE (observe/metrics.py: thread instructions / (32 x warp instructions), the
# paper's Table 1 metric), as measured: regrouping raises it for every kernel; index redirection
# and physical permutation give every warp the same threads' paths, so the same CFE.
CFE_BOUNDS = {"tree": ((0.12, 0.16), 1.40), "ec": ((0.11, 0.15), 1.20), "lbm": ((0.68, 0.76), 1.03)}


@pytest.mark.parametrize("kernel", KERNELS)
def test_regrouping_raises_cfe(kernel):
    cfe = {v: simulated(f"w-regroup-{kernel}-{v}").metrics[0]["cfe"] for v in VARIANTS}
    (low, high), gain = CFE_BOUNDS[kernel]
    assert low <= cfe["base"] <= high, cfe
    assert cfe["index"] == pytest.approx(cfe["permuted"], abs=1e-12)
    assert cfe["index"] >= gain * cfe["base"], cfe


# ------------------------------------------------------------------ the predictor

def test_mlp_learns_a_separable_problem_deterministically():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, (2000, 16)).astype(np.float32)
    y = (x[:, 0] > 0.5).astype(np.int64) + 2 * (x[:, 3] > 0.3)
    a, b = (rg.train_mlp(x, y, classes=4, seed=3, epochs=40) for _ in range(2))
    assert np.array_equal(a.w1, b.w1) and a.shape == "16x32x4"
    net = rg.quantise(a)
    assert net.w1.shape == (16, 32) and net.w2.shape == (32, 16) and net.w1.dtype == np.uint16
    assert rg.accuracy(rg.mlp_infer(rg.features_f16(x), net), y) > 0.95


def test_committed_predictions_index_and_permuted_inputs_follow_the_rules():
    """pred = the f16 network's exact tensor-core inference on the base inputs' features; idx =
    Algorithm 1 of pred; the permuted inputs are the base inputs in idx order."""
    features = {"tree": lambda: rg.tree_features(npy("w-regroup-tree-base/feat.npy").view(np.uint8).reshape(-1, 16)),
                "ec": lambda: rg.ec_features(npy("w-regroup-ec-base/reads.npy"), npy("w-regroup-ec-base/spectrum.npy")),
                "lbm": lambda: rg.lbm_features(npy("w-regroup-lbm-base/type.npy"), LBM_NX)}
    for kernel in KERNELS:
        pred = npy(f"w-regroup-predictor/{kernel}_pred.npy")
        x = rg.features_f16(features[kernel]())
        assert np.array_equal(rg.mlp_infer(x, predictor(kernel), exact_mma)[:len(pred)], pred), kernel
        index = npy(f"w-regroup-{kernel}-index/idx.npy")
        assert np.array_equal(index, rg.regroup(pred)), kernel
    assert np.array_equal(npy("w-regroup-ec-permuted/reads.npy"), npy("w-regroup-ec-base/reads.npy")[index_of("ec")])
    feat = npy("w-regroup-tree-base/feat.npy").reshape(-1, 4)
    assert np.array_equal(npy("w-regroup-tree-permuted/feat.npy").reshape(-1, 4), feat[index_of("tree")])
    assert np.array_equal(npy("w-regroup-lbm-permuted/slot.npy"), rg.inverse(index_of("lbm")))


def index_of(kernel):
    return npy(f"w-regroup-{kernel}-index/idx.npy").astype(np.int64)


# accuracy of the f16 predictor on the workloads' inputs (trained on other sample inputs)
ACCURACY = {"tree": 0.88, "ec": 0.72, "lbm": 1.0}


@pytest.mark.parametrize("kernel", KERNELS)
def test_predictor_accuracy(kernel):
    labels = expected_outputs(kernel)["cls"] if kernel != "lbm" else npy("w-regroup-lbm-base/type.npy")
    assert rg.accuracy(npy(f"w-regroup-predictor/{kernel}_pred.npy"), labels) >= ACCURACY[kernel]


@pytest.mark.parametrize("program,name", [("w-regroup-predictor", "tree"), ("w-regroup-predictor-ec", "ec")])
def test_wmma_predictor_kernel_equals_numpy(program, name):
    """The tensor-core kernel's classes equal numpy's f16 inference with the H100's exact
    tensor-core arithmetic on every row; with a plain f32 sum instead (mma_f32), rows may differ
    only where the top two logits lie within f32 rounding of each other."""
    got = simulated(program).outputs["classes"]
    x = npy(f"w-regroup-predictor/{name}_x.npy").reshape(-1, 16)
    net = predictor(name)
    assert np.array_equal(got, rg.mlp_infer(x, net, exact_mma))
    logits = rg.mlp_logits(x, net)
    plain = np.argmax(logits, 1)
    top2 = np.sort(logits, 1)[:, -2:]
    near_tie = (top2[:, 1] - top2[:, 0]) <= 1e-5 * np.maximum(1, np.abs(top2[:, 1]))
    assert ((plain == got) | near_tie).all()
    assert (plain == got).sum() >= len(got) - 8


# ------------------------------------------------------------------ programs sharing one kernel.cu

def test_hw_record_follows_kernel_file_to_the_shared_source():
    dirs = {d.name for d in program_dirs([], ROOT)}
    for kernel in KERNELS:
        assert {f"w-regroup-{kernel}-{v}" for v in VARIANTS} <= dirs
    assert {"w-regroup-predictor", "w-regroup-predictor-ec", "w-loopsort-sorted"} <= dirs
    assert "micro-lat-fp32" not in dirs                  # generated PTX, no CUDA source
    m = load_manifest(str(program_dir("w-regroup-tree-index")))
    base = (program_dir("w-regroup-tree-base")).resolve()
    assert m.cuda_source.resolve() == base / "kernel.cu"
    assert m.trace_kernel_file.resolve() == base / "kernel.trace.ptx" and m.trace_kernel_file.exists()
    assert program_dirs(["w-regroup-tree-permuted"], ROOT) == [program_dir("w-regroup-tree-permuted")]
    with pytest.raises(InputError, match="no kernel.cu"):
        program_dirs(["micro-lat-fp32"], ROOT)


def test_shared_kernel_manifests_repeat_the_base_registers():
    for kernel in KERNELS:
        regs = {load_manifest(str(program_dir(f"w-regroup-{kernel}-{v}"))).registers for v in VARIANTS}
        assert len(regs) == 1 and None not in regs, kernel
