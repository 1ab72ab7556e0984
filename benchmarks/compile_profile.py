"""Where the cold compile goes: the timing benchmark's warm-up (its three kernels at 256 threads,
as benchmarks/timing_speed.py runs them) from an empty numba cache, with each compiled function's
own seconds (its compile minus those of the functions compiled inside it) and numba's compiler
passes summed over every function.

    python benchmarks/compile_profile.py [--isa sass] [--top 25]

It sets NUMBA_CACHE_DIR to a fresh temporary directory, so nothing cached is read or written.
"""
import argparse
import collections
import gc
import os
import runpy
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def compile_timer():
    """A numba:compile listener; events nest as numba nests them (a callee compiles while its
    caller is typed)."""
    from numba.core import event

    class CompileTimer(event.Listener):
        def __init__(self):
            self.stack = []
            self.own = collections.Counter()
            self.calls = collections.Counter()

        def on_start(self, ev):
            disp = (ev.data or {}).get("dispatcher")
            name = disp.py_func.__module__.split(".")[-1] + "." + disp.py_func.__qualname__ if disp else "?"
            self.stack.append([name, time.perf_counter(), 0.0])

        def on_end(self, ev):
            name, t0, inner = self.stack.pop()
            spent = time.perf_counter() - t0
            self.own[name] += spent - inner
            self.calls[name] += 1
            if self.stack:
                self.stack[-1][2] += spent

    timer = CompileTimer()
    event.register("numba:compile", timer)
    return timer


def pass_seconds() -> collections.Counter:
    """Seconds per compiler pass over every compiled overload (typing includes the compiles it
    triggers, so these overlap; the order is what they say)."""
    from numba.core.registry import CPUDispatcher
    out = collections.Counter()
    for obj in gc.get_objects():
        if isinstance(obj, CPUDispatcher):
            for cres in obj.overloads.values():
                for passes in (cres.metadata or {}).get("pipeline_times", {}).values():
                    for name, t in passes.items():
                        out[name.split("_", 1)[1]] += t.init + t.run + t.finalize
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--isa", choices=("ptx", "sass"), default="ptx")
    ap.add_argument("--top", type=int, default=25)
    ns = ap.parse_args()
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="simt-sim-cold-")
    sys.argv = [sys.argv[0]] + (["--isa", ns.isa] if ns.isa == "sass" else [])
    timer = compile_timer()
    t0 = time.perf_counter()
    bench = runpy.run_path(str(HERE / "timing_speed.py"), run_name="compile_profile")
    import simt_sim
    cfg = simt_sim.load_config("h100")
    for _, make, _ in bench["WORKLOADS"]:
        path, args, bufs = make(256)
        bench["run"](path, args, bufs, 256, cfg, trace_memory=False)
    total = time.perf_counter() - t0
    print(f"cold compile and first runs ({ns.isa.upper()}): {total:.1f} s; "
          f"{sum(timer.calls.values())} compilations of {len(timer.calls)} functions")
    print(f"{'own s':>7} {'share':>6}  function")
    for name, own in timer.own.most_common(ns.top):
        print(f"{own:7.1f} {own / total:6.1%}  {name}")
    print("compiler passes, summed over functions (nested compiles counted in their callers' typing):")
    for name, spent in pass_seconds().most_common(6):
        print(f"{spent:7.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
