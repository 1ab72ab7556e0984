"""The corpus of real CUDA kernels (tests/cuda/*.cu, each with its committed nvcc PTX): every kernel
of every module loads, so an opcode or operand form that nvcc emits and the simulator refuses
fails here by name.  What each kernel computes is checked by the test file that runs it
(test_cuda_kernels, test_cuda_forms, test_cuda_idioms, test_half, test_tensor_cores, test_calls)."""
from __future__ import annotations

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
