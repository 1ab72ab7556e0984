"""Generated docs are current; the engine runs unchanged with NUMBA_DISABLE_JIT=1."""
import json
import os
import subprocess
import sys
from pathlib import Path

from simt_sim.isa.doc import render_isa_doc
from simt_sim.isa import isa

ROOT = Path(__file__).resolve().parents[1]


def test_isa_doc_is_current():
    assert (ROOT / "docs/isa.md").read_text() == render_isa_doc(), \
        "docs/isa.md is stale: run `simt-sim isa-doc > docs/isa.md`"


def test_every_opcode_documented_with_unit_and_meaning():
    doc = render_isa_doc()
    for op in isa().ops:
        assert f"| `{op.name}` |" in doc and op.meaning


def test_same_results_without_jit(tmp_path):
    outs = []
    for jit_off in ("0", "1"):
        out = tmp_path / f"r{jit_off}.json"
        env = dict(os.environ, NUMBA_DISABLE_JIT=jit_off)
        r = subprocess.run([sys.executable, "-m", "simt_sim", "run", "programs/examples/figure2-ifelse", "--quiet",
                            "--json", str(out)], cwd=ROOT, env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(out.read_text()))
    assert outs[0]["outputs"] == outs[1]["outputs"]
    assert outs[0]["history"] == outs[1]["history"]
    assert outs[0]["metrics"] == outs[1]["metrics"]
