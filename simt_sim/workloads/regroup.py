"""Seed 000 (Pang et al., "Control Flow Divergence Optimization by Exploiting Tensor Cores",
DAC '24): predictor-regrouped inputs, host side, numpy only.

- numpy models of the three user kernels (programs/include/seed000_{tree,ec,lbm}.cuh): their
  outputs bit for bit and each thread's path class (the label the predictor learns);
- the per-thread features the predictor reads (16 for the 16x32x10 shape, 10 for 10x32x28);
- the branch-prediction MLP (one hidden layer of 32, a multiple of 16 for the tensor cores),
  trained with Adam on softmax cross-entropy, and its f16 inference as the WMMA kernel
  (programs/include/mlp_wmma.cuh) computes it;
- Algorithm 1, `regroup`: groups of g = 64 sorted by predicted path, with the index array.

tools/make_regroup_inputs.py writes the programs' .npy inputs from these functions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

GROUP = 64          # Algorithm 1's group size g: "at least 64 (an integer multiple of warp size)"
HIDDEN = 32         # hidden neurons: "a multiple of 16", aligned with the tensor-core tiles


# ---------------------------------------------------------------- Algorithm 1

def regroup(pred_classes: np.ndarray, group: int = GROUP) -> np.ndarray:
    """Algorithm 1 of the paper (Sec. 3.3, "Data Regrouping"): cut the threads' data into
    consecutive groups of `group` items and sort each group by its predicted path, keeping the
    original positions in an index array.  Returns `index` with index[j] = the original position of
    the item that thread j processes, so that `data[index]` is the regrouped data and
    `np.argsort(index)` restores the original order.  The paper sorts each group with a heap sort
    on (path, index); a stable sort gives the same order deterministically: by class, ties in the
    original order.  Groups never mix, so an item moves by less than `group` positions."""
    pred = np.asarray(pred_classes)
    if pred.ndim != 1:
        raise ValueError(f"regroup: predicted classes must be one-dimensional, found shape {pred.shape}")
    if group < 1:
        raise ValueError(f"regroup: the group size must be at least 1, found {group}")
    index = np.empty(len(pred), np.uint32)
    for start in range(0, len(pred), group):
        end = min(start + group, len(pred))
        index[start:end] = start + np.argsort(pred[start:end], kind="stable")
    return index


def inverse(index: np.ndarray) -> np.ndarray:
    """The inverse permutation: inverse(index)[index[j]] = j."""
    inv = np.empty(len(index), np.uint32)
    inv[np.asarray(index, np.int64)] = np.arange(len(index), dtype=np.uint32)
    return inv


def distinct_classes_per_warp(classes: np.ndarray, warp: int = 32) -> float:
    """Mean number of different path classes among the threads of a warp (1 = no divergence)."""
    c = np.asarray(classes).reshape(-1, warp)
    return float(np.mean([len(np.unique(row)) for row in c]))


# ---------------------------------------------------------------- decision tree (GDT-like)

TREE_FEATURES = 16
TREE_CLASSES = 10
# leaf k: (rounds, feature a is read from) as in seed000_tree.cuh
TREE_LEAVES = [(24, 9), (28, 10), (32, 11), (36, 12), (40, 13), (44, 14), (48, 15), (52, 9), (56, 10), (60, 11)]


def tree_inputs(n: int, seed: int) -> np.ndarray:
    """n items of 16 byte-sized features, uniform in 0..255: uint8 [n, 16]."""
    return np.random.default_rng(seed).integers(0, 256, (n, TREE_FEATURES), dtype=np.uint8)


def tree_pack(x: np.ndarray) -> np.ndarray:
    """[n, 16] bytes -> uint32 [4 n] (feature f in byte f % 4 of word f // 4), the kernel's uint4."""
    return np.ascontiguousarray(x, dtype=np.uint8).view("<u4").reshape(-1).astype(np.uint32)


def tree_classes(x: np.ndarray) -> np.ndarray:
    """The leaf each item reaches (seed000_tree.cuh's if/else tree)."""
    x = x.astype(np.int64)
    f = [x[:, j] for j in range(9)]
    left = f[0] < 128
    return np.select(
        [left & (f[1] < 100) & (f[2] < 160), left & (f[1] < 100),
         left & (f[3] < 90), left & (f[4] < 128), left,
         (f[5] < 150) & (f[6] < 70), f[5] < 150,
         (f[7] < 128) & (f[8] < 200), f[7] < 128],
        [0, 1, 2, 3, 4, 5, 6, 7, 8], 9).astype(np.uint32)


def _tree_step(k: int, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """One round of leaf k's mixing loop, uint32 arithmetic as in the kernel."""
    u = np.uint32
    if k == 0:
        return (h ^ (h >> u(15))) * u(0x2C1B3C6D) + a
    if k == 1:
        h = (h + a) * u(0x297A2D39)
        return h ^ (h >> u(12))
    if k == 2:
        h = h ^ (h << u(13))
        h = h ^ (h >> u(17))
        h = h ^ (h << u(5))
        return h + a
    if k == 3:
        return (h * u(0x01000193)) ^ a
    if k == 4:
        return ((h << u(7)) | (h >> u(25))) + a * u(3)
    if k == 5:
        return h * h + a
    if k == 6:
        h = (h ^ a) * u(0x85EBCA6B)
        return h ^ (h >> u(13))
    if k == 7:
        return h - (h >> u(3)) + a * a
    if k == 8:
        h = h + (h << u(10))
        h = h ^ (h >> u(6))
        return h + a
    return (h ^ u(0x5BD1E995)) * u(0x5BD1E995) + (h >> u(24))


def tree_reference(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(out, cls) of the tree kernel, in item order."""
    cls = tree_classes(x)
    out = np.zeros(len(x), np.uint32)
    for k, (rounds, feature) in enumerate(TREE_LEAVES):
        sel = cls == k
        a = x[sel, feature].astype(np.uint32)
        h = a ^ np.uint32((0x9E3779B9 * (k + 1)) & 0xFFFFFFFF)
        for _ in range(rounds):
            h = _tree_step(k, h, a)
        out[sel] = h
    return out, cls


def tree_features(x: np.ndarray) -> np.ndarray:
    """The predictor's 16 inputs: the features scaled to [0, 1]."""
    return x.astype(np.float32) / np.float32(255)


# ---------------------------------------------------------------- read correction (CUDA-EC-like)

EC_LEN, EC_K = 10, 5
EC_WINDOWS = EC_LEN - EC_K + 1
EC_CLASSES = 28
EC_N = 4            # base code of an unknown base


def ec_spectrum(genome: np.ndarray) -> np.ndarray:
    """The solid 5-mers (those in the genome) as a 1024-bit bitmap, uint32 [32].  A k-mer's code
    has base j of the window in bits 2j..2j+1, as the kernel reads it from a 2-bit read."""
    bits = np.zeros(4 ** EC_K, bool)
    for s in range(len(genome) - EC_K + 1):
        bits[sum(int(genome[s + j]) << (2 * j) for j in range(EC_K))] = True
    return np.packbits(bits, bitorder="little").view("<u4").astype(np.uint32)


def ec_genome(seed: int, length: int = 400) -> np.ndarray:
    """A random genome (bases 0..3) whose 5-mers make the spectrum."""
    return np.random.default_rng(seed).integers(0, 4, length)


def ec_reads(genome: np.ndarray, n: int, seed: int, p_sub: float = 0.04, p_n: float = 0.012) -> np.ndarray:
    """n reads of 10 bases taken from the genome, each base substituted with probability p_sub and
    unknown (N) with probability p_n; a read packs base p in bits 3p..3p+2: uint32 [n]."""
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, len(genome) - EC_LEN + 1, n)
    bases = genome[starts[:, None] + np.arange(EC_LEN)]
    sub = rng.random((n, EC_LEN)) < p_sub
    bases = np.where(sub, (bases + rng.integers(1, 4, (n, EC_LEN))) % 4, bases)
    bases = np.where(rng.random((n, EC_LEN)) < p_n, EC_N, bases)
    return (bases.astype(np.uint32) << (3 * np.arange(EC_LEN, dtype=np.uint32))).sum(1).astype(np.uint32)


def _ec_solid_table(spectrum: np.ndarray) -> np.ndarray:
    return np.unpackbits(spectrum.astype("<u4").view(np.uint8), bitorder="little").astype(bool)


def _first_weak(solid: np.ndarray, read2: int) -> int:
    for w in range(EC_WINDOWS):
        if not solid[(read2 >> (2 * w)) & 0x3FF]:
            return w
    return -1


def _ec_one(solid: np.ndarray, read: int) -> tuple[int, int]:
    """(corrected 2-bit read, path class) of one read, in the kernel's order of tries."""
    read2, n_count, n_pos = 0, 0, 0
    for p in range(EC_LEN):
        base = (read >> (3 * p)) & 7
        if base == EC_N:
            n_count, n_pos = n_count + 1, p
        else:
            read2 |= (base & 3) << (2 * p)
    if n_count >= 2:
        return read2, 0
    if n_count == 1:
        for b in range(4):
            cand = (read2 & ~(3 << (2 * n_pos))) | (b << (2 * n_pos))
            if _first_weak(solid, cand) < 0:
                return cand, 1 + b
        return read2, 5
    w = _first_weak(solid, read2)
    if w < 0:
        return read2, 6
    for j in range(EC_K):
        p = w + j
        base = (read2 >> (2 * p)) & 3
        for d in (1, 2, 3):
            cand = (read2 & ~(3 << (2 * p))) | (((base + d) & 3) << (2 * p))
            if _first_weak(solid, cand) < 0:
                return cand, 7 + 3 * j + d - 1
    return read2, 22 + w


def ec_reference(reads: np.ndarray, spectrum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(out, cls) of the read-correction kernel, in read order."""
    solid = _ec_solid_table(spectrum)
    pairs = [_ec_one(solid, int(r)) for r in reads]
    return np.array([p[0] for p in pairs], np.uint32), np.array([p[1] for p in pairs], np.uint32)


def ec_features(reads: np.ndarray, spectrum: np.ndarray) -> np.ndarray:
    """The predictor's 10 inputs, one per base: the share of the k-mer windows covering the base
    that are solid (the per-base vote spectrum correctors use), -1 for an unknown base N.
    Windows containing an N count as weak."""
    solid = _ec_solid_table(spectrum)
    codes = ((reads[:, None] >> (3 * np.arange(EC_LEN, dtype=np.uint32))) & 7).astype(np.int64)
    is_n = codes == EC_N
    kmers = np.zeros((len(reads), EC_WINDOWS), np.int64)
    for j in range(EC_K):
        kmers |= (codes[:, j:j + EC_WINDOWS] & 3) << (2 * j)
    window_ok = solid[kmers] & ~np.stack([is_n[:, w:w + EC_K].any(1) for w in range(EC_WINDOWS)], 1)
    votes = np.zeros((len(reads), EC_LEN), np.float32)
    cover = np.zeros(EC_LEN, np.float32)
    for w in range(EC_WINDOWS):
        votes[:, w:w + EC_K] += window_ok[:, w:w + 1]
        cover[w:w + EC_K] += 1
    return np.where(is_n, np.float32(-1), votes / cover).astype(np.float32)


# ---------------------------------------------------------------- lattice Boltzmann (LBM-like)

LBM_FLUID, LBM_SOLID, LBM_INLET, LBM_OUTLET = 0, 1, 2, 3
LBM_CLASSES = 4
LBM_CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
LBM_CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
LBM_OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])
_f = np.float32
LBM_W = [_f(4) / _f(9)] + [_f(1) / _f(9)] * 4 + [_f(1) / _f(36)] * 4
LBM_OMEGA, LBM_U_IN = _f(1.25), _f(0.05)


def lbm_geometry(nx: int, ny: int, seed: int, solid_share: float = 0.22) -> np.ndarray:
    """Cell types uint32 [ny * nx] (cell = y * nx + x): solid walls at y = 0 and ny-1, inlet at
    x = 0, outlet at x = nx-1, and random discs of radius 1-3 (a porous medium) inside until
    `solid_share` of the interior is solid."""
    rng = np.random.default_rng(seed)
    t = np.zeros((ny, nx), np.uint32)
    yy, xx = np.mgrid[0:ny, 0:nx]
    interior = (xx >= 2) & (xx <= nx - 3) & (yy >= 1) & (yy <= ny - 2)
    while (t[interior] == LBM_SOLID).mean() < solid_share:
        cx, cy, r = rng.integers(2, nx - 2), rng.integers(1, ny - 1), rng.integers(1, 4)
        t[interior & ((xx - cx) ** 2 + (yy - cy) ** 2 <= r * r)] = LBM_SOLID
    t[:, 0], t[:, nx - 1] = LBM_INLET, LBM_OUTLET
    t[0, :], t[ny - 1, :] = LBM_SOLID, LBM_SOLID
    return t.reshape(-1)


def lbm_populations(types: np.ndarray, seed: int) -> np.ndarray:
    """Distributions fin float32 [9, n]: the rest equilibrium (rho = 1) perturbed by up to 1%."""
    rng = np.random.default_rng(seed)
    w = np.array(LBM_W, np.float32)[:, None]
    return (w * (1 + rng.uniform(-0.01, 0.01, (9, len(types))))).astype(np.float32)


def lbm_reference(types: np.ndarray, fin: np.ndarray, nx: int) -> np.ndarray:
    """fout float32 [9, n] of one step, bit for bit as seed000_lbm.cuh computes it (original layout)."""
    n = len(types)
    c = np.arange(n)
    x, y = c % nx, c // nx
    out = np.empty_like(fin)
    solid = types == LBM_SOLID
    for q in range(9):
        out[q, solid] = fin[LBM_OPP[q], solid]
    cells = np.flatnonzero(~solid)
    cx, cy, kind = x[cells], y[cells], types[cells]
    f = []
    for q in range(9):
        sx, sy = cx - LBM_CX[q], cy - LBM_CY[q]
        inside = (sx >= 0) & (sx < nx)
        ns = np.where(inside, sy * nx + np.clip(sx, 0, nx - 1), 0)
        pulled = np.where(types[ns] == LBM_SOLID, fin[LBM_OPP[q], cells], fin[q, ns])
        f.append(np.where(inside, pulled, _f(0)).astype(np.float32))
    inlet = kind == LBM_INLET
    known = (f[0] + f[2]) + f[4]
    from_x = (f[3] + f[6]) + f[7]
    rho_in = (known + (from_x + from_x)) * (_f(1) / (_f(1) - LBM_U_IN))
    ru = rho_in * LBM_U_IN
    half_dy = _f(0.5) * (f[2] - f[4])
    f[1] = np.where(inlet, f[3] + (_f(2) / _f(3)) * ru, f[1])
    f[5] = np.where(inlet, (f[7] - half_dy) + (_f(1) / _f(6)) * ru, f[5])
    f[8] = np.where(inlet, (f[6] + half_dy) + (_f(1) / _f(6)) * ru, f[8])
    outlet = kind == LBM_OUTLET
    left = np.where(outlet, cells - 1, cells)
    for q in (3, 6, 7):
        f[q] = np.where(outlet, fin[q, left], f[q])
    rho = f[0]
    for q in range(1, 9):
        rho = rho + f[q]
    ux = ((((f[1] + f[5]) - f[3]) + f[8]) - f[6]) - f[7]
    uy = ((((f[2] + f[5]) - f[4]) + f[6]) - f[7]) - f[8]
    usq = ux * ux + uy * uy
    for q in range(9):
        cu = _f(LBM_CX[q]) * ux + _f(LBM_CY[q]) * uy
        poly = ((rho + _f(3) * cu) + _f(4.5) * (cu * cu)) - _f(1.5) * usq
        feq = LBM_W[q] * poly
        out[q, cells] = f[q] + LBM_OMEGA * (feq - f[q])
    return out


def lbm_features(types: np.ndarray, nx: int) -> np.ndarray:
    """The predictor's 16 inputs per cell: its type one-hot (4), whether each of its 8 neighbours is
    solid (outside the domain counts as not solid), x / nx, y / ny, and two zeros."""
    n = len(types)
    ny = n // nx
    c = np.arange(n)
    x, y = c % nx, c // nx
    feats = np.zeros((n, 16), np.float32)
    feats[c, types.astype(np.int64)] = 1
    for k, q in enumerate(range(1, 9)):
        sx, sy = x + LBM_CX[q], y + LBM_CY[q]
        inside = (sx >= 0) & (sx < nx) & (sy >= 0) & (sy < ny)
        nb = np.clip(sy, 0, ny - 1) * nx + np.clip(sx, 0, nx - 1)
        feats[:, 4 + k] = inside & (types[nb] == LBM_SOLID)
    feats[:, 12], feats[:, 13] = x / nx, y / ny
    return feats


# ---------------------------------------------------------------- the branch-prediction MLP

@dataclass
class Mlp:
    """A trained 2-layer MLP, f32: w1 [inputs, HIDDEN], b1, w2 [HIDDEN, classes], b2."""
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @property
    def shape(self) -> str:
        return f"{self.w1.shape[0]}x{self.w1.shape[1]}x{self.w2.shape[1]}"


def train_mlp(x: np.ndarray, labels: np.ndarray, classes: int, seed: int, epochs: int = 60,
              batch: int = 128, lr: float = 3e-3) -> Mlp:
    """Adam on softmax cross-entropy, He-initialised, seeded (deterministic on one machine)."""
    rng = np.random.default_rng(seed)
    n_in = x.shape[1]
    params = [rng.normal(0, np.sqrt(2 / n_in), (n_in, HIDDEN)), np.zeros(HIDDEN),
              rng.normal(0, np.sqrt(2 / HIDDEN), (HIDDEN, classes)), np.zeros(classes)]
    moments = [np.zeros_like(p) for p in params] + [np.zeros_like(p) for p in params]
    x64, y = x.astype(np.float64), labels.astype(np.int64)
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(x64))
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            grads = _gradients(params, x64[rows], y[rows])
            step += 1
            for i, (p, g) in enumerate(zip(params, grads)):
                m, v = moments[i], moments[len(params) + i]
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= lr * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    return Mlp(*(p.astype(np.float32) for p in params))


def _gradients(params, x, y):
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    hidden = np.maximum(pre, 0)
    logits = hidden @ w2 + b2
    logits -= logits.max(1, keepdims=True)
    prob = np.exp(logits)
    prob /= prob.sum(1, keepdims=True)
    prob[np.arange(len(y)), y] -= 1
    d_logits = prob / len(y)
    d_hidden = (d_logits @ w2.T) * (pre > 0)
    return [x.T @ d_hidden, d_hidden.sum(0), hidden.T @ d_logits, d_logits.sum(0)]


def pad16(n: int) -> int:
    return -(-n // 16) * 16


@dataclass
class MlpF16:
    """The MLP as the WMMA kernel holds it: f16 weights (bit patterns) padded to multiples of 16,
    f32 biases; x rows are padded likewise."""
    w1: np.ndarray          # uint16 [pad16(inputs), HIDDEN]
    b1: np.ndarray          # float32 [HIDDEN]
    w2: np.ndarray          # uint16 [HIDDEN, pad16(classes)]
    b2: np.ndarray          # float32 [pad16(classes)]
    classes: int


def quantise(mlp: Mlp) -> MlpF16:
    n_in, n_out = mlp.w1.shape[0], mlp.w2.shape[1]
    w1 = np.zeros((pad16(n_in), HIDDEN), np.float16)
    w1[:n_in] = mlp.w1
    w2 = np.zeros((HIDDEN, pad16(n_out)), np.float16)
    w2[:, :n_out] = mlp.w2
    b2 = np.zeros(pad16(n_out), np.float32)
    b2[:n_out] = mlp.b2
    return MlpF16(w1.view(np.uint16), mlp.b1.astype(np.float32), w2.view(np.uint16), b2, n_out)


def features_f16(x: np.ndarray) -> np.ndarray:
    """Feature rows as the kernel reads them: f16 bit patterns [pad16(n), pad16(inputs)], zeros padding."""
    out = np.zeros((pad16(len(x)), pad16(x.shape[1])), np.float16)
    out[:len(x), :x.shape[1]] = x
    return out.view(np.uint16)


def mma_f32(a_bits: np.ndarray, b_bits: np.ndarray, c: np.ndarray) -> np.ndarray:
    """c + a * b for one k-step of 16 (f16 bit patterns, f32 c): the exact sum rounded once to f32.
    The tensor core truncates its sum within a 25-bit window instead (docs/tensor-cores.md), so
    this can differ from it in the last bit; pass simt_sim.oracle.tensor_math's exact model to
    mlp_infer for bit-exact results."""
    a = a_bits.view(np.float16).astype(np.float64)
    b = b_bits.view(np.float16).astype(np.float64)
    return (c.astype(np.float64) + a @ b).astype(np.float32)


def _gemm(a_bits, b_bits, mma) -> np.ndarray:
    """A [m, K] * B [K, N] as the kernel does it: 16-wide k-steps, each accumulated onto the last."""
    acc = np.zeros((a_bits.shape[0], b_bits.shape[1]), np.float32)
    for k0 in range(0, a_bits.shape[1], 16):
        acc = mma(a_bits[:, k0:k0 + 16], b_bits[k0:k0 + 16], acc)
    return acc


def mlp_logits(x_bits: np.ndarray, net: MlpF16,
               mma: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] = mma_f32) -> np.ndarray:
    """f32 logits [rows, classes] in mlp_wmma.cuh's order of rounding: layer-1 sums in f32, + b1 in
    f32, ReLU, rounded to f16; layer-2 sums in f32, + b2 in f32."""
    pre = _gemm(x_bits, net.w1, mma) + net.b1
    hidden = np.maximum(pre, np.float32(0)).astype(np.float16).view(np.uint16)
    return (_gemm(hidden, net.w2, mma) + net.b2)[:, :net.classes]


def mlp_infer(x_bits: np.ndarray, net: MlpF16, mma=mma_f32) -> np.ndarray:
    """Predicted class per row (the first maximum, as the kernel's strict > keeps it)."""
    return np.argmax(mlp_logits(x_bits, net, mma), axis=1).astype(np.uint32)


def accuracy(pred: np.ndarray, labels: np.ndarray) -> float:
    return float(np.mean(np.asarray(pred) == np.asarray(labels)))
