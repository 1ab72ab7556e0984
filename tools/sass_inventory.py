"""Record tests/data/sass_inventory.json: every SASS opcode family ptxas 13.0 emits for sm_90 in
programs/*/*/kernel.ptx and tests/cuda/*.ptx, its modifiers and how often it sets a scoreboard.

    python tools/sass_inventory.py           # rewrite the file
    python tools/sass_inventory.py --check   # exit 1 when it is stale

isa/sass.yaml must list every family and modifier recorded here (tests/test_sass_frontend.py); the
file lets that test run where ptxas/nvdisasm are absent.  Takes about two minutes (two nvdisasm
runs per file; cubins are cached in $SIMT_SIM_CACHE/sass/).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simt_sim.errors import InputError  # noqa: E402
from simt_sim.frontend.sass import corpus_files, opcode_inventory  # noqa: E402

INVENTORY = ROOT / "tests/data/sass_inventory.json"


def render() -> str:
    files = corpus_files(ROOT)
    inventory = opcode_inventory(files, ROOT)
    return json.dumps({"files": len(files), "families": inventory}, indent=1) + "\n"


def main() -> int:
    try:
        text = render()
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    if "--check" in sys.argv[1:]:
        if INVENTORY.read_text() != text:
            print(f"{INVENTORY.relative_to(ROOT)} is stale: run python tools/sass_inventory.py", file=sys.stderr)
            return 1
        return 0
    INVENTORY.write_text(text)
    print(f"wrote {INVENTORY.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
