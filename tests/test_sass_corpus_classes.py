"""Kernels of the generated corpus (docs/corpus.md) from the three largest SASS refusal classes,
replayed in SASS mode against their H100 recordings (tests/data/corpus/records.json.gz):
  - -G code: device functions in .text sections of their own, reached with CALL.ABS.NOINC, the
    return address written as `32@lo((SYM + 0xOFF))` / `32@hi(...)` (sass.link_functions,
    RowBuilder.code_address), the QSPC.E.S test and ATOM.E.CAST.SPIN of -G generic atomics;
  - VABSDIFF4.U8[.ACC] (__vabsdiffu4, __vsadu4);
  - R2P PR, Rn, mask (register bits into predicates).
The modules are rebuilt from the generator's seeds, so nvcc is needed."""
from __future__ import annotations

import shutil

import pytest

from simt_sim.calibrate import corpus as C

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None or not C.RECORDS.exists(),
                                reason="nvcc not installed or no recorded corpus (modules are rebuilt from their seeds)")

CLASSES = {
    "k10000": "-G: CALL.ABS into linked functions, 32@lo/32@hi return addresses; VABSDIFF4.U8.ACC",
    "k10400": "-G: QSPC.E.S and ATOM.E.CAST.SPIN.64 of a generic-pointer atomic",
    "k00001": "VABSDIFF4.U8.ACC (__vsadu4)",
    "k10012": "VABSDIFF4.U8 (__vabsdiffu4)",
    "k00419": "R2P PR, R2, 0x3",
}


@pytest.fixture(scope="module")
def outcomes():
    return {o["id"]: o for o in C.replay(ids=sorted(CLASSES), modes=("sass",), workers=1, timeout=600.0)}


@needs_nvcc
@pytest.mark.parametrize("kid", sorted(CLASSES))
def test_refusal_class_kernel_is_exact_against_the_h100(kid, outcomes):
    o = outcomes[kid]
    assert o["class"] == "exact", f"{kid} ({CLASSES[kid]}): {o['class']}: {o.get('error')}"
