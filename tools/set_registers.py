#!/usr/bin/env python
"""Write each CUDA program's register count, as ptxas allocates it for sm_90, into its manifest
(`registers:`), so that the simulator's occupancy matches the hardware's (PTX `.reg` declarations
count virtual registers, often far more than ptxas uses).

    python tools/set_registers.py [programs...]      # default: every programs/*/*/kernel.cu
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from simt_sim.programs import program_dir, program_dirs  # noqa: E402


def ptxas_registers(ptx: Path, kernel: str | None) -> int:
    r = subprocess.run(["ptxas", "-arch=sm_90", "-O3", "-v", "-o", "/dev/null", str(ptx)],
                       capture_output=True, text=True, check=True)
    counts = {}
    current = None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            counts[current] = int(m.group(1))
    if kernel is None:
        return max(counts.values())
    return counts[kernel]


def main(names):
    import yaml
    dirs = [program_dir(n) for n in names] if names else program_dirs(ROOT, needs="kernel.cu")
    for d in dirs:
        manifest = d / "manifest.yaml"
        text = manifest.read_text()
        kernel = yaml.safe_load(text).get("kernel")
        n = ptxas_registers(d / "kernel.ptx", kernel)
        if re.search(r"^registers:.*$", text, re.M):
            text = re.sub(r"^registers:.*$", f"registers: {n}", text, flags=re.M)
        else:
            text = re.sub(r"^(block:.*)$", rf"\1\nregisters: {n}", text, count=1, flags=re.M)
        manifest.write_text(text)
        print(f"{d.name:<24} {n}")


if __name__ == "__main__":
    main(sys.argv[1:])
