"""Control-flow graph and immediate post-dominators: where divergent branches reconverge.

Reconvergence is decided here, once, when a program is loaded: each conditional branch
reconverges at the first instruction of its immediate post-dominator block.  The analysis is the
iterative dominator algorithm of Cooper, Harvey and Kennedy run on the reversed CFG with a virtual
exit node, so unstructured CFGs (multiple exits, breaks, gotos into loops) are handled too.
Branches whose post-dominator is the virtual exit get reconvergence pc -1: their sides only meet
when the threads of one side have all exited.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CFG:
    block_start: list[int]          # first pc of each basic block
    block_end: list[int]            # last pc (inclusive)
    succs: list[list[int]]          # successor blocks; the virtual exit is len(blocks)
    block_of: list[int]             # pc -> block

    @property
    def exit(self) -> int:
        return len(self.block_start)


def build_cfg(n: int, successors) -> CFG:
    """successors(pc) -> (list of target pcs, falls_through: bool, exits: bool)."""
    leaders = {0} if n else set()
    for pc in range(n):
        targets, falls, exits = successors(pc)
        if targets or exits or not falls:
            if pc + 1 < n:
                leaders.add(pc + 1)
        leaders.update(t for t in targets if 0 <= t < n)
    starts = sorted(leaders)
    block_of = [0] * n
    ends = []
    for b, s in enumerate(starts):
        e = (starts[b + 1] if b + 1 < len(starts) else n) - 1
        ends.append(e)
        for pc in range(s, e + 1):
            block_of[pc] = b
    exit_node = len(starts)
    succs: list[list[int]] = []
    for b, e in enumerate(ends):
        targets, falls, exits = successors(e)
        out = [block_of[t] for t in targets]
        if falls:
            out.append(block_of[e + 1] if e + 1 < n else exit_node)
        if exits:
            out.append(exit_node)
        succs.append(sorted(set(out)))
    return CFG(starts, ends, succs, block_of)


def immediate_postdominators(cfg: CFG) -> list[int]:
    """ipdom block of every block (cfg.exit for the virtual exit); blocks that cannot reach the
    exit (infinite loops) get cfg.exit too."""
    n = len(cfg.block_start)
    exit_node = n
    preds_rev: list[list[int]] = [[] for _ in range(n + 1)]   # predecessors in the reversed graph
    for b, ss in enumerate(cfg.succs):
        for s in ss:
            preds_rev[b].append(s)   # in the reversed graph, b's predecessors are its successors
    # reverse-graph successors of x are the CFG predecessors of x
    rsuccs: list[list[int]] = [[] for _ in range(n + 1)]
    for b, ss in enumerate(cfg.succs):
        for s in ss:
            rsuccs[s].append(b)
    # postorder of the reversed graph from the exit
    order: list[int] = []
    seen = [False] * (n + 1)
    stack = [(exit_node, iter(rsuccs[exit_node]))]
    seen[exit_node] = True
    while stack:
        node, it = stack[-1]
        for nxt in it:
            if not seen[nxt]:
                seen[nxt] = True
                stack.append((nxt, iter(rsuccs[nxt])))
                break
        else:
            order.append(node)
            stack.pop()
    rpo_index = {node: i for i, node in enumerate(reversed(order))}
    idom: list[int | None] = [None] * (n + 1)
    idom[exit_node] = exit_node

    def intersect(a: int, b: int) -> int:
        while a != b:
            while rpo_index[a] > rpo_index[b]:
                a = idom[a]
            while rpo_index[b] > rpo_index[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for node in reversed(order):
            if node == exit_node:
                continue
            new = None
            for p in preds_rev[node]:
                if idom[p] is not None:
                    new = p if new is None else intersect(p, new)
            if new is not None and idom[node] != new:
                idom[node] = new
                changed = True
    return [exit_node if d is None else d for d in idom[:n]]


def reconvergence_pcs(cfg: CFG, branch_pcs: list[int]) -> dict[int, int]:
    """pc of each branch -> pc where its divergent paths reconverge (-1 = kernel exit)."""
    ipdom = immediate_postdominators(cfg)
    out = {}
    for pc in branch_pcs:
        d = ipdom[cfg.block_of[pc]]
        out[pc] = -1 if d == cfg.exit else cfg.block_start[d]
    return out
