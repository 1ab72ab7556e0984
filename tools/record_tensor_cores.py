"""Record the H100's tensor-core results for the probe cases (simt_sim/calibrate/tensor_cases.py):
compile tests/cuda/tc_probe.cu for sm_90, run each probe kernel (one warp per case) and save the D
bit patterns with the operands' hash and provenance.

    python tools/record_tensor_cores.py OUT.npz            # on a machine with a CUDA GPU, nvcc and cupy
    python tools/record_tensor_cores.py --extra OUT.npz    # the extra families (extra_probe_cases)

The committed references are tests/data/h100/tensor_cores.npz and tensor_cores_extra.npz.  As a check on the fragment layouts
in tc_probe.cu, the results of the well-conditioned families must agree with a float64 product to
a few ulps before anything is saved.
"""
from __future__ import annotations

import datetime
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.calibrate.tensor_cases import (PROBE_KERNELS, cases_digest, extra_probe_cases, from_bits,  # noqa: E402
                                             probe_cases)


def compile_probes(workdir: Path) -> Path:
    cubin = workdir / "tc_probe.cubin"
    subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-cubin", "-o", str(cubin), str(ROOT / "tests/cuda/tc_probe.cu")],
                   check=True)
    return cubin


def run_probe(cp, module, kernel, cases) -> np.ndarray:
    n = len(cases["a"])
    acc_dtype = np.uint32 if kernel.accumulator == "f32" else np.uint16
    d = cp.zeros((n, kernel.m, kernel.n), acc_dtype)
    args = [cp.asarray(cases["a"]), cp.asarray(cases["b"]), cp.asarray(cases["c"]), d]
    module.get_function(kernel.name)((n,), (32,), tuple(args))
    cp.cuda.runtime.deviceSynchronize()
    return cp.asnumpy(d)


def layout_check(kernel, cases, d_bits) -> float:
    """Largest relative error against float64 over the uniform family (catches a fragment mix-up)."""
    sel = cases["family"] == "uniform"
    if not sel.any():
        return 0.0             # the extra families are all edge cases: no float64 yardstick
    a = from_bits(cases["a"][sel], kernel.inputs)
    b = from_bits(cases["b"][sel], kernel.inputs)
    c = from_bits(cases["c"][sel], kernel.accumulator)
    want = a @ b + c
    got = from_bits(d_bits[sel], kernel.accumulator)
    scale = np.abs(a) @ np.abs(b) + np.abs(c)
    return float(np.max(np.abs(got - want) / scale))


def main() -> int:
    import cupy as cp
    extra = "--extra" in sys.argv
    out = Path([a for a in sys.argv[1:] if a != "--extra"][0])
    make_cases = extra_probe_cases if extra else probe_cases
    arrays, meta = {}, {"kernels": {}}
    with tempfile.TemporaryDirectory() as tmp:
        module = cp.RawModule(path=str(compile_probes(Path(tmp))))
        for kernel in PROBE_KERNELS:
            cases = make_cases(kernel)
            d = run_probe(cp, module, kernel, cases)
            err = layout_check(kernel, cases, d)
            limit = 2.0 ** -8 if kernel.accumulator == "f16" else 2.0 ** -18
            print(f"{kernel.name}: {len(d)} cases, worst relative error (uniform) {err:.3g}")
            if not err < limit:
                raise SystemExit(f"{kernel.name}: results disagree with float64 ({err:.3g}): fragment layout?")
            arrays[kernel.name] = d
            meta["kernels"][kernel.name] = {"cases": len(d), "digest": cases_digest(cases)}
    props = cp.cuda.runtime.getDeviceProperties(0)
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    meta.update(gpu=props["name"].decode(), compute_capability=f"{props['major']}.{props['minor']}",
                driver=cp.cuda.runtime.driverGetVersion(), runtime=cp.cuda.runtime.runtimeGetVersion(), nvcc=nvcc,
                date=datetime.date.today().isoformat(), command="python tools/record_tensor_cores.py " + " ".join(sys.argv[1:]))
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), **arrays)
    print(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
