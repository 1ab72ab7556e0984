"""The corpus of real CUDA kernels (tests/cuda/*.cu, each with its committed nvcc PTX): every kernel
of every module loads, so an opcode or operand form that nvcc emits and the simulator refuses
fails here by name.  What each kernel computes is checked by the test file that runs it
(test_cuda_kernels, test_cuda_forms, test_cuda_idioms, test_half, test_tensor_cores, test_calls)."""
from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from simt_sim.frontend.assembler import load_program
from simt_sim.frontend.parser import parse_ptx

CUDA = Path(__file__).parent / "cuda"
SOURCES = sorted(CUDA.glob("*.cu"))


def test_the_corpus_is_large_enough():
    assert len(SOURCES) >= 40
    missing = [s.name for s in SOURCES if not s.with_suffix(".ptx").exists()]
    assert not missing, f"no committed PTX for {missing}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_every_kernel_of_the_module_loads(source):
    path = source.with_suffix(".ptx")
    module = parse_ptx(path.read_text(), str(path))
    assert module.kernels, f"{path.name} has no kernel"
    for name in module.kernels:
        program = load_program(str(path), name)      # raises InputError naming the refused construct
        assert len(program) > 0


def ptx_body(text: str) -> str:
    """The PTX without its leading comment block (the compiler's build id)."""
    lines = text.splitlines()
    return "\n".join(lines[next(i for i, ln in enumerate(lines) if not ln.startswith("//")):])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_what_nvcc_emits_today_is_committed_and_loads(tmp_path):
    """Every corpus source compiled now (nvcc -O3 -arch=sm_90 -ptx) gives the committed PTX, and all
    its kernels load, so a form a newer nvcc starts to emit is caught by name."""
    def compile_one(src: Path) -> Path:
        out = tmp_path / f"{src.stem}.ptx"
        subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-ptx", "-o", str(out), src.name], cwd=CUDA, check=True,
                       capture_output=True)
        return out
    with ThreadPoolExecutor(2) as pool:
        fresh = list(pool.map(compile_one, SOURCES))
    stale = [p.stem for p in fresh if ptx_body(p.read_text()) != ptx_body((CUDA / p.name).read_text())]
    assert not stale, f"committed PTX differs from today's nvcc output: {stale}"
    refused = []
    for path in fresh:
        for name in parse_ptx(path.read_text(), str(path)).kernels:
            try:
                load_program(str(path), name)
            except Exception as e:            # noqa: BLE001 - report every refusal at once
                refused.append(f"{path.stem}.{name}: {str(e).splitlines()[0]}")
    assert not refused, "\n".join(refused)
