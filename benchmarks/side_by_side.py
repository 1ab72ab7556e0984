"""Two checkouts of simt-sim timed against each other in one run: the timing benchmark of each,
interleaved (old, new, old, new, ...), medians per row (or, --best, the fastest round: on a
loaded machine noise only slows a run), and the ratio new / old.  Also the cold
compile (an empty numba cache), `import simt_sim`, and a small run's start-up.

    python benchmarks/side_by_side.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 3] [--best] [--cold] [--isa sass]

Each checkout runs its own benchmarks/timing_speed.py with PYTHONPATH pointing at it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROW_FIELDS = ("workload", "threads", "cycles", "warp_insts", "ipc", "seconds", "insts_per_s", "cycles_per_s")


def run_benchmark(checkout: str, env_extra: dict | None = None, isa: str = "ptx") -> tuple[float, dict]:
    env = dict(os.environ, PYTHONPATH=checkout, **(env_extra or {}))
    out = subprocess.run([sys.executable, "benchmarks/timing_speed.py", "--isa", isa], cwd=checkout, env=env,
                         capture_output=True, text=True, check=True).stdout
    warm = float(out.split("cache load: ")[1].split(" s")[0])
    rows = {}
    for line in out.splitlines()[2:]:
        f = line.split()
        rows[(f[0], int(f[1]))] = {"cycles": int(f[2]), "warp_insts": int(f[3]),
                                   "insts_per_s": float(f[6].replace(",", "")),
                                   "peak_mib": float(f[8]) if len(f) > 8 else None}
    return warm, rows


def wall(cmd: list[str], checkout: str, repeats: int = 5) -> float:
    env = dict(os.environ, PYTHONPATH=checkout)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cold_compiles(versions: dict[str, str]) -> dict[str, float]:
    """Both versions compile from an empty numba cache at the same time, one per core, so that
    the machine's load (which can change compile times threefold here) weighs on both alike."""
    with ThreadPoolExecutor(len(versions)) as pool, tempfile.TemporaryDirectory() as caches:
        jobs = {v: pool.submit(run_benchmark, path, {"NUMBA_CACHE_DIR": os.path.join(caches, v)})
                for v, path in versions.items()}
        return {v: job.result()[0] for v, job in jobs.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--best", action="store_true", help="each row's fastest round instead of the median")
    ap.add_argument("--cold", action="store_true", help="also time a compile with an empty numba cache")
    ap.add_argument("--isa", choices=("ptx", "sass"), default="ptx", help="the kernels' PTX or their SASS")
    ns = ap.parse_args()
    versions = {"old": ns.old, "new": ns.new}
    results = {v: [] for v in versions}
    for v, path in versions.items():          # warm the on-disk caches
        run_benchmark(path, isa=ns.isa)
    for _ in range(ns.rounds):
        for v, path in versions.items():
            results[v].append(run_benchmark(path, isa=ns.isa)[1])
    print(f"{'workload':<14} {'threads':>8} {'cycles old/new':>15} {'old warp-inst/s':>16} {'new warp-inst/s':>16} "
          f"{'new/old':>8} {'old MiB':>8} {'new MiB':>8}")
    for key in results["old"][0]:
        pick = max if ns.best else statistics.median
        med = {v: pick(r[key]["insts_per_s"] for r in results[v]) for v in versions}
        cyc = f"{results['old'][0][key]['cycles']}/{results['new'][0][key]['cycles']}"
        mib = {v: results[v][0][key]["peak_mib"] for v in versions}
        print(f"{key[0]:<14} {key[1]:>8} {cyc:>15} {med['old']:>16,.0f} {med['new']:>16,.0f} "
              f"{med['new'] / med['old']:>8.2f} {mib['old'] if mib['old'] is not None else '-':>8} "
              f"{mib['new'] if mib['new'] is not None else '-':>8}")
    for v, path in versions.items():
        imp = wall([sys.executable, "-c", "import simt_sim"], path)
        empty = wall([sys.executable, "-m", "simt_sim", "run", "programs/probes/launch-empty", "--quiet"], path)
        print(f"{v}: import simt_sim {imp:.2f} s; `simt-sim run programs/probes/launch-empty` {empty:.2f} s")
    if ns.cold:
        for v, warm in cold_compiles(versions).items():
            print(f"{v}: cold compile (empty numba cache) + first runs: {warm:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
