"""Two checkouts' functional engines timed against each other: the kernels of
functional_speed.py (saxpy, a divergent while loop; PTX, 65,536 threads) and an endless loop
stopped at an instruction limit, run in each checkout in turn (old, new, old, new, ...), best or
median seconds per row and the ratio new / old.  Written to show what the functional loop's
return to Python every slice (Ctrl-C and the wall-clock budget, docs/errors.md) costs.

    python benchmarks/functional_side_by_side.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 5] [--best]

Each checkout is imported from its own directory (PYTHONPATH), with its own numba cache; the
first round of each warms the cache and is not counted.
"""
import argparse
import os
import statistics
import subprocess
import sys

ONE_ROUND = r'''
import sys, time
import numpy as np
import simt_sim
from simt_sim.errors import RuntimeFault
rows = []
def timed(name, fn):
    t0 = time.perf_counter()
    n = fn()
    rows.append((name, n, time.perf_counter() - t0))
n = 65536
saxpy = simt_sim.load_program("tests/cuda/saxpy.ptx", isa="ptx")
loop = simt_sim.load_program("tests/cuda/while_loop.ptx", isa="ptx")
def run_saxpy():
    r = simt_sim.run_functional(saxpy, n // 256, 256, [2.0, "x", "y", n],
                                {"x": np.ones(n, np.float32), "y": np.ones(n, np.float32)})
    return r.metrics[0]["warp_instructions"]
def run_loop():
    r = simt_sim.run_functional(loop, n // 256, 256, ["t", "o", n],
                                {"t": (np.arange(n) % 32).astype(np.int32), "o": np.zeros(n, np.int32)})
    return r.metrics[0]["warp_instructions"]
def run_endless():
    prog = simt_sim.load_program("ENDLESS_PTX", "endless", isa="ptx")
    try:
        simt_sim.run_functional(prog, 2, 64, ["out", 7], {"out": np.zeros(256, np.int32)},
                                simt_sim.load_config("h100", ["limits.max_warp_instructions=5000000"]))
    except RuntimeFault:
        return 5000000
timed("saxpy", run_saxpy)
timed("while-loop", run_loop)
timed("endless-5M", run_endless)
for name, insts, seconds in rows:
    print(name, insts, f"{seconds:.4f}")
'''


def one_round(checkout: str, endless_ptx: str) -> dict:
    env = dict(os.environ, PYTHONPATH=checkout)
    out = subprocess.run([sys.executable, "-c", ONE_ROUND.replace("ENDLESS_PTX", endless_ptx)], cwd=checkout,
                         env=env, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        name, insts, seconds = line.split()
        rows[name] = (int(insts), float(seconds))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--best", action="store_true", help="each row's fastest round instead of the median")
    ns = ap.parse_args()
    # the endless kernel of the new checkout's tests (the old one may not have it)
    endless = os.path.abspath(os.path.join(ns.new, "tests", "cuda", "faults.ptx"))
    runs = {"old": [], "new": []}
    for r in range(ns.rounds + 1):
        for which in ("old", "new"):
            rows = one_round(getattr(ns, which), endless)
            if r:
                runs[which].append(rows)
    pick = min if ns.best else statistics.median
    print(f"{'workload':<12} {'warp-insts':>11} {'old s':>8} {'new s':>8} {'new/old':>8}  "
          f"({'best' if ns.best else 'median'} of {ns.rounds} rounds)")
    for name in runs["old"][0]:
        insts = runs["new"][0][name][0]
        old = pick([rows[name][1] for rows in runs["old"]])
        new = pick([rows[name][1] for rows in runs["new"]])
        print(f"{name:<12} {insts:>11} {old:>8.3f} {new:>8.3f} {new / old:>8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
