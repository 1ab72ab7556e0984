"""Microbenchmark suite on GPU configs: latencies and throughputs measured in the simulator next
to the values the config implies.

    python benchmarks/microbench.py                 # every config in configs/
    python benchmarks/microbench.py h100 a100       # some; a name or a path to a .yaml

Programs: programs/probes/micro-*/ (see docs/microbenchmarks.md).  A `*` marks a latency that differs
from the configured one.
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simt_sim.machine.config import list_configs  # noqa: E402
from simt_sim.calibrate.microbench import format_report, run_suite  # noqa: E402


def main(argv: list[str]) -> int:
    names = argv or [p.stem for p in list_configs()]
    print("Latency: cycles of one dependent link (measured / configured = max(latency, pipe interval)).")
    print("Throughput: warp-instructions per cycle per SM (measured / expected = sub_partitions x")
    print("min(issue_width, pipes / ceil(warp_size / lanes))).")
    for name in names:
        t0 = time.perf_counter()
        rep = run_suite(name)
        print()
        print(format_report(rep))
        print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
