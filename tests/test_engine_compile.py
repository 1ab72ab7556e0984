"""What the engine compiles: a launch compiles only the semantics of the instruction sets its code
holds (Code.ptx / Code.sass markers, engine/jit.unless_none), and the calls, tensor-core rows and
asynchronous copies only where its code holds them (Code.ext)."""
from pathlib import Path

import numba
import numpy as np
import pytest

import simt_sim
from simt_sim.engine.jit import compiled, unless_none
from simt_sim.machine.lower import link
from simt_sim.programs import program_dir

ROOT = Path(__file__).resolve().parents[1]


@compiled
def first_element(x):
    return x[0] + 1          # does not type for an integer x


@compiled
def without_rows(marker, x):
    return -1


@unless_none(without_rows)
def rows(marker, x):
    if marker is None:
        return without_rows(marker, x)
    return first_element(x)


@numba.njit
def run_rows(marker, x):
    return rows(marker, x)


def test_a_none_marker_compiles_only_the_absent_function():
    """With marker None the body is never typed (it could not be for an integer x)."""
    assert run_rows(None, 7) == -1
    assert run_rows(True, np.array([4])) == 5
    with pytest.raises(numba.core.errors.TypingError):
        run_rows(True, 7)                  # the body, typed, refuses the integer


def test_called_from_python_it_makes_the_same_choice():
    """Without numba (NUMBA_DISABLE_JIT=1) the function runs as written: its first line picks."""
    assert rows(None, 7) == -1
    assert rows(True, np.array([4])) == 5


def test_code_marks_the_instruction_sets_it_holds():
    ptx = simt_sim.load_program(ROOT / "programs" / "examples" / "article-ex3-mask")
    sass = simt_sim.load_program(ROOT / "programs" / "validation" / "v-smem-reduce", isa="sass")
    assert (ptx.isa, sass.isa) == ("ptx", "sass")
    for programs, marks in (([ptx], (True, None)), ([sass], (None, True)), ([ptx, sass], (True, True))):
        code = link(programs)[0]
        assert (code.ptx, code.sass) == marks, [p.name for p in programs]


@pytest.mark.parametrize("name, isa, ext", [
    ("article-ex3-mask", "ptx", None),       # branches and arithmetic only
    ("s-control", "ptx", True),              # a call
    ("s-tensor", "ptx", True),               # wmma
    ("s-async", "ptx", True),                # cp.async
    ("v-smem-reduce", "sass", True),         # SASS code counts as holding them all
])
def test_code_marks_whether_it_holds_calls_tensor_rows_or_async_copies(name, isa, ext):
    code = link([simt_sim.load_program(program_dir(name), isa=isa)])[0]
    assert code.ext is ext


@numba.njit(inline="always")
def branchy(x):
    """A callee of seven blocks (a loop around an if)."""
    total = 0
    for k in range(12):
        if x & (1 << k):
            total += k
        else:
            total -= 1
    return total


def test_the_inliner_copies_a_callee_scope_once_per_copy_of_it(monkeypatch):
    """numba's inliner deep-copies a callee block by block; engine/jit.copy_each_scope_once makes the
    blocks share one copy of the callee's variable scope (two copies per inlining), where numba
    alone copies it for every block (here 28 copies, not 4; quadratic in the callee's size).  The
    result is the same."""
    import copy
    from numba.core import ir

    copies = []

    def counted(scope, memo):
        copies.append(scope)
        return copy._reconstruct(scope, memo, *scope.__reduce_ex__(4))

    monkeypatch.setattr(ir.Scope, "__deepcopy__", counted, raising=False)

    @numba.njit
    def caller(x):
        return branchy(x) + 100

    assert caller(0b101000000101) == sum((0, 2, 9, 11)) - 8 + 100
    assert 1 <= len(copies) <= 4            # the scope and its (empty) parent, twice
