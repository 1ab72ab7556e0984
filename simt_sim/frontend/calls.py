"""The call graph of a kernel: which `.func`s it reaches, which calls may recurse, how deep calls nest.

A kernel is linked with every device function it can reach (frontend/assembler.py).  A call saves
the callee's registers and locals on the thread's call stack only when the callee may already be
active in the calling thread, that is when the callee can reach the caller again (recursion,
direct or through other functions); other calls need no saving.
"""
from __future__ import annotations

from simt_sim.errors import InputError
from simt_sim.frontend.syntax import Instruction, Kernel, Module


def callee_name(ins: Instruction) -> str:
    return ins.operands[1].name


def calls_of(body: Kernel) -> list[Instruction]:
    return [i for i in body.body if isinstance(i, Instruction) and i.opcode == "call"]


def check_callee(module: Module, ins: Instruction) -> Kernel:
    """The .func a call names, defined in the module and parsed without error."""
    name = callee_name(ins)
    func = module.funcs.get(name)
    if func is None:
        what = "a kernel (.entry), which cannot be called" if name in module.kernels else "not defined"
        raise InputError(f"call of {name!r}: {what}", ins.operands[1].loc)
    if not func.body:
        raise InputError(f"call of {name!r}: the function is only declared (.extern or a prototype); "
                         "its body must be in the same module", ins.operands[1].loc)
    if func.error is not None:
        raise InputError(f"function {name}: {func.error.message}", func.error.loc)
    return func


def reachable_functions(module: Module, kernel: Kernel) -> list[Kernel]:
    """The functions `kernel` can call, directly or not, in first-call order."""
    order: list[Kernel] = []
    seen: set[str] = set()
    stack = [kernel]
    while stack:
        body = stack.pop()
        found = []
        for ins in calls_of(body):
            func = check_callee(module, ins)
            if func.name not in seen:
                seen.add(func.name)
                order.append(func)
                found.append(func)
        stack.extend(reversed(found))
    return order


def call_graph(bodies: list[Kernel]) -> dict[str, set[str]]:
    return {b.name: {callee_name(i) for i in calls_of(b)} for b in bodies}


def reaches(graph: dict[str, set[str]], src: str, dst: str) -> bool:
    """A path of one or more calls from src to dst (src == dst only through a cycle)."""
    seen: set[str] = set()
    stack = list(graph.get(src, ()))
    while stack:
        name = stack.pop()
        if name == dst:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(graph.get(name, ()))
    return False


def nesting_levels(graph: dict[str, set[str]], root: str) -> int:
    """The deepest nesting of calls from root (0: no calls), or -1 when calls can recurse."""
    memo: dict[str, int] = {}

    def depth(name: str, path: frozenset) -> int:
        if name in path:
            return -1
        if name not in memo:
            inner = [depth(c, path | {name}) for c in graph.get(name, ())]
            if -1 in inner:
                memo[name] = -1
            else:
                memo[name] = 1 + max(inner) if inner else 0
        return memo[name]
    return depth(root, frozenset())
