"""Which ISA ran is always visible (issue 61, point 6): the run header, `--json` and the Python
result say sass or ptx and why; `simt-sim run kernel.cu` compiles the CUDA source itself."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simt_sim import api
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parent.parent
CUDA = ROOT / "tests" / "cuda"

SAXPY = r"""
// y = a * x + y over n elements, one thread each, as in every CUDA introduction
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def simt_sim(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simt_sim", *args], capture_output=True, text=True, cwd=cwd)


def test_the_reason_follows_what_chose_the_isa(tmp_path):
    nvcc = api.load_program(CUDA / "memcheck.ptx", "stencil5")
    assert (nvcc.isa, nvcc.isa_reason) == ("sass", "nvcc-compiled: memcheck.cu beside memcheck.ptx")
    hand = api.load_program(program_dir("figure2-ifelse"))
    assert (hand.isa, hand.isa_reason) == ("ptx", "hand-written PTX: no .cu beside kernel.ptx")
    given = api.load_program(program_dir("v-smem-reduce"), isa="ptx")
    assert (given.isa, given.isa_reason) == ("ptx", "the isa argument says ptx")
    src = program_dir("v-smem-reduce")
    text = (src / "manifest.yaml").read_text().replace("kernel_file: kernel.ptx", f"kernel_file: {src}/kernel.ptx")
    (tmp_path / "manifest.yaml").write_text(text + "isa: ptx\n")
    keyed = api.load_program(tmp_path)
    assert keyed.isa == "ptx" and keyed.isa_reason.startswith("the manifest's isa key (")
    cu = tmp_path / "saxpy.cu"
    cu.write_text(SAXPY)
    from_cu = api.load_program(cu)
    assert from_cu.isa == "sass" and from_cu.isa_reason.startswith("CUDA source saxpy.cu, compiled by nvcc")


def test_the_result_and_its_json_say_which_isa_ran():
    program = api.load_program(CUDA / "memcheck.ptx", "shift_right")
    bufs = {"in": np.arange(32, dtype=np.int32), "out": np.zeros(33, np.int32)}
    for result in (api.run_functional(program, 1, 32, ["in", "out", 32], {k: v.copy() for k, v in bufs.items()}),
                   api.simulate(api.Launch(program, 1, 32, ["in", "out", 32]), {k: v.copy() for k, v in bufs.items()})):
        assert (result.isa, result.isa_reason) == ("sass", "nvcc-compiled: memcheck.cu beside memcheck.ptx")
        doc = result.to_json()
        assert (doc["isa"], doc["isa_reason"]) == ("sass", "nvcc-compiled: memcheck.cu beside memcheck.ptx")
    ptx = api.run_program(program_dir("figure2-ifelse"), functional=True)
    assert (ptx.isa, ptx.isa_reason) == ("ptx", "hand-written PTX: no .cu beside kernel.ptx")
    forced = api.run_program(program_dir("v-smem-reduce"), functional=True, isa="ptx")
    assert (forced.isa, forced.isa_reason) == ("ptx", "the isa argument says ptx")


@pytest.mark.parametrize("args, line", [
    (["programs/validation/v-smem-reduce"], "  isa sass: nvcc-compiled: kernel.cu beside kernel.ptx"),
    (["programs/validation/v-smem-reduce", "--isa", "ptx"], "  isa ptx: --isa ptx"),
    (["programs/examples/figure2-ifelse"], "  isa ptx: hand-written PTX: no .cu beside kernel.ptx"),
])
def test_the_run_header_says_which_isa_and_why(args, line, tmp_path):
    out = simt_sim("run", *args, "--functional", "--json", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stderr
    assert line in out.stdout.splitlines()
    doc = json.loads((tmp_path / "r.json").read_text())
    assert f"  isa {doc['isa']}: {doc['isa_reason']}" == line


def test_run_compiles_a_cuda_source_end_to_end(tmp_path):
    cu = tmp_path / "saxpy.cu"
    cu.write_text(SAXPY)
    common = ["run", str(cu), "--grid", "2", "--block", "128", "--buffer", "x=f32[256]:range(0,0.5)",
              "--buffer", "y=f32[256]:fill(1)", "--args", "200,2.0,x,y"]
    for extra, isa in (([], "sass"), (["--isa", "ptx"], "ptx"), (["--functional"], "sass")):
        r = simt_sim(*common, *extra, "--json", str(tmp_path / "r.json"))
        assert r.returncode == 0, r.stderr
        assert f"  isa {isa}: " in r.stdout
        doc = json.loads((tmp_path / "r.json").read_text())
        assert doc["kernel"] == "saxpy" and doc["isa"] == isa
        y = np.array(doc["outputs"]["y"], np.float32)
        want = np.ones(256, np.float32)
        want[:200] = np.float32(2.0) * np.arange(200, dtype=np.float32) * np.float32(0.5) + 1
        assert np.array_equal(y, want)
    assert "CUDA source saxpy.cu, compiled by nvcc" in doc["isa_reason"]


def test_a_cuda_source_needs_grid_and_block_and_nvcc_errors_are_input_errors(tmp_path):
    cu = tmp_path / "saxpy.cu"
    cu.write_text(SAXPY)
    r = simt_sim("run", str(cu))
    assert r.returncode == 2 and "running a CUDA source needs --grid and --block" in r.stderr
    bad = tmp_path / "bad.cu"
    bad.write_text("extern \"C\" __global__ void k(int* p) { p[0] = undeclared; }\n")
    r = simt_sim("run", str(bad), "--grid", "1", "--block", "1", "--buffer", "p=i32[1]")
    assert r.returncode == 2 and "nvcc rejected" in r.stderr and "Traceback" not in r.stderr
    missing = simt_sim("run", str(tmp_path / "none.cu"), "--grid", "1", "--block", "1")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
