"""The engine's compile decorators.

Engine functions work on arrays that the launch owns for the whole run, so they are compiled
without numba's reference counting (`_nrt=False`).  With it, every call that passes the state
tuples pays two atomic operations per array they hold (some forty arrays per warp-instruction),
which cost far more than the simulated instruction.  Numba refuses to compile an allocation in
such a function or anything it calls, so the few functions that allocate say `_nrt=True`
explicitly (a callee otherwise inherits its caller's setting).

A compiled function called with a constant (`set_fault(fault, FAULT_STACK, ...)`, an operand
slot `raw(..., 2)`) would be compiled once per constant: numba types the constant as a literal
and specialises the callee on it.  That made 170 compilations of 57 functions (a third of the
cold compile's functions, each linked, optimised and turned into machine code again in every
caller).  `compiled` functions take plain types first and fall back to the literal only where
a function cannot be typed without it.
"""
from __future__ import annotations

import copy
import inspect

from numba import config, njit
from numba.core import errors, types
from numba.core.registry import CPUDispatcher
from numba.extending import overload


class PlainArgumentDispatcher(CPUDispatcher):
    """A numba dispatcher that compiles one specialisation for plain argument types, however
    many constants its callers pass."""

    def get_call_template(self, args, kws):
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return super().get_call_template(plain, plain_kws)
            except (errors.TypingError, errors.ForceLiteralArg):
                pass                  # this function needs the constant (e.g. to index a tuple)
        return super().get_call_template(args, kws)


def plain_argument_jit(**options):
    """`njit(cache=True, **options)` with a PlainArgumentDispatcher."""
    def wrap(func):
        if config.DISABLE_JIT:
            return func
        disp = PlainArgumentDispatcher(py_func=func, locals={}, targetoptions={"nopython": True, **options})
        disp.enable_caching()
        return disp
    return wrap


def copy_each_scope_once():
    """Make numba's inliner copy a callee's variable scope once per copy of its IR, not once per block.

    `InlineWorker.inline_ir` deep-copies the callee block by block, and each block's variables
    drag a copy of the function's whole scope (every variable) along: quadratic in the callee's
    size, and most of the time of inlining `scan_scheduler` into `run_timed`.  During one
    `inline_ir`, the copy module it uses is replaced by one that hands every block of a scope the
    same copy of it, as one deepcopy of all blocks would.  Without that method (another numba),
    nothing changes."""
    from numba.core import inline_closurecall as icc, ir
    worker = getattr(icc, "InlineWorker", None)
    if worker is None or not hasattr(worker, "inline_ir") or getattr(icc, "copy", None) is not copy:
        return
    original = worker.inline_ir

    class ScopeSharingCopy:
        def __init__(self):
            self.scopes = {}

        def deepcopy(self, x, memo=None):
            if memo is None and isinstance(x, ir.Block):
                key = id(x.scope)
                if key not in self.scopes:
                    self.scopes[key] = copy.deepcopy(x.scope)
                memo = {key: self.scopes[key]}
            return copy.deepcopy(x, memo)

        def __getattr__(self, name):
            return getattr(copy, name)

    def inline_ir(self, *args, **kwargs):
        before = icc.copy
        icc.copy = ScopeSharingCopy()
        try:
            return original(self, *args, **kwargs)
        finally:
            icc.copy = before

    worker.inline_ir = inline_ir


copy_each_scope_once()
compiled = plain_argument_jit(_nrt=False)
# numba-level inlining, for helpers that return one of their arguments' arrays (a compiled function
# without NRT may not) or sit on the hottest paths (the register readers: compiled apart they cost
# the FFMA benchmark 9-13%).  Each inlined copy is typed again, so the rest are plain `compiled`
# functions, which LLVM inlines where it pays (benchmarks/compile_profile.py).
compiled_inline = njit(cache=True, _nrt=False, inline="always")
allocating = plain_argument_jit(_nrt=True)


def unless_none(absent):
    """Decorator for an engine function f(marker, ...) whose first argument says whether the code
    holds some kind of rows (Code.ptx, Code.sass: True or None).  Compiled, a call of f becomes
    f's body when the marker is True and `absent`'s (a compiled function of the same signature)
    when it is None: numba picks by the marker's type and inlines the pick, so nothing that f
    calls is compiled for code without those rows.  Without numba f runs as written, so it
    begins with `if marker is None: return absent(...)`."""
    def wrap(func):
        if not config.DISABLE_JIT:
            def typed(marker, *args):
                return getattr(absent, "py_func", absent) if isinstance(marker, types.NoneType) else func
            typed.__signature__ = inspect.signature(func)     # numba matches it against func's
            overload(func, inline="always")(typed)
        return func
    return wrap
