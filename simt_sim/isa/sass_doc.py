"""docs/sass.md: a hand-written header (commands, what the listing shows) followed by the table
generated from isa/sass.yaml (tests/test_sass_frontend.py checks it is current:
`simt-sim isa-doc --isa sass > docs/sass.md`)."""
from __future__ import annotations

from simt_sim.isa.sass_table import sass_table

HEADER = """# SASS (sm_90) listing and opcode table

The H100 runs the SASS that ptxas makes of the PTX, not the PTX.  This page documents reading that
SASS and the opcode table; running it (`simt-sim run --isa sass`) is described in
docs/sass-execution.md.

## Commands

```sh
pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump     # NVIDIA's wheels (declared dependencies)
simt-sim disasm --isa sass programs/validation/v-loop-break            # a program directory (its kernel.ptx)
simt-sim disasm --isa sass tests/cuda/warp_vote.ptx         # a PTX file
simt-sim disasm --isa sass programs/validation/v-loop-break/kernel.cu  # CUDA: nvcc -ptx -O3 -lineinfo first
simt-sim isa-doc --isa sass > docs/sass.md                  # regenerate this page
python tools/sass_inventory.py                              # re-record tests/data/sass_inventory.json
python tools/sass_strict_walk.py [FILES.ptx|.cu]            # lower strictly, list what is refused
```

`--isa sass` compiles with `ptxas -arch=sm_90 -O3 -lineinfo` (PTX from `nvcc -G` gets `-O0`, which
ptxas requires for debug PTX), caches the cubin in `$SIMT_SIM_CACHE/sass/` (default
`~/.cache/simt-sim`) and reads it with `nvdisasm -json` (opcodes, operands, predicates) and
`nvdisasm -c -hex -gp` (pcs, 128-bit encodings, PTX lines).  Each line shows:

```
   pc  instruction                                   pipe     control              PTX line
0x0220  BSSY B0, 0x2550                               cbu      B------:R-:W-:-:S01  42: @%p1 bra $L__BB0_32;  // reconverges at 0x2550
```

The control column decodes bits 105..125 of the instruction (Volta and later): wait mask
(`B` + one character per barrier 0..5), read barrier (`R`), write barrier (`W`), yield hint (`Y`
when the yield bit is 0), stall count (`S`), then `reuse=` flags when any are set.  The layout and
its sources are in the docstring of `simt_sim/frontend/sass.py`; tests/test_sass_frontend.py checks
it on a real listing (a load's consumer waits on the barrier the load set).  `BSSY Bn, pc` lines
name their reconvergence pc, and the instruction at that pc is marked `<- reconvergence of BSSY at`.

## Opcode table

Generated from `isa/sass.yaml`, `isa/sass_modifiers.yaml` and `isa/sass_hopper.yaml`; do not edit by hand.  Families are those ptxas 13.0 emits for
sm_90 in `programs/*/*/kernel.ptx` and `tests/cuda/*.ptx` (recorded in
`tests/data/sass_inventory.json`).  Pipe: the one Nsight Compute counts the family in
(`sm__inst_executed_pipe_*`; `fma` = fmaheavy or fmalite), with the modifiers or operands that move an
instruction to another pipe; checked against the per-pipe counts of every program with an H100 reference
(`simt-sim validate --isa sass`).  `adu` also holds what is counted in no deterministic pipe.
Latency: `fixed` (timed by the stall count) or `variable` (tracked by a scoreboard barrier).
"""


STRICT = """
## What the lowering accepts (strict lowering)

`isa/sass_modifiers.yaml` is prescriptive: each family accepts the modifier words and operand forms
listed below and nothing else.  `simt-sim run --isa sass` stops with an error naming the opcode, the
word (or the operand and its form) and the pc when an instruction carries anything else, and also when
the family's lowering did not use a word it accepts (the simulator would have ignored it).  Words
marked *implicit* need no flag: the family's semantics already do what they say (the reason is given);
the words without effect in the simulator (cache hints, `.E` addressing) are listed with the reason
after the table.  `python -m pytest tests/test_sass_strict.py` lowers every SASS listing of the
repository under these rules.
"""

HOPPER = """
## NVIDIA's sm_90 instruction table: executed or refused

Every opcode of NVIDIA's published Hopper instruction table (CUDA Binary Utilities, "Hopper
Instruction Set"), recorded in `isa/sass_hopper.yaml` with NVIDIA's one-line description.  An
`executed` opcode runs in the engine (lowered as above); a `refused` one stops the run with
`opcode X (description) is not simulated: reason`.  The asynchronous Hopper families (warpgroup MMA,
TMA and bulk copies, mbarrier / SYNCS, clusters) are refused for now; a later issue takes them.
"""


def _cell(text: str) -> str:
    """Text for a markdown table cell (a | of |x| would end the cell)."""
    return text.replace("|", "\\|")


def _words(words, spec=None) -> str:
    out = []
    for w in sorted(words, key=str):
        mark = "*" if spec is not None and w in spec.implicit else ""
        out.append(f"`.{w}`{mark}")
    return " ".join(out)


def render_sass_doc() -> str:
    from simt_sim.isa.sass_table import hopper_table, modifier_table
    table = sass_table()
    mods = modifier_table()
    out = [HEADER, "| family | class | pipe | latency | accepted modifiers (* implicit) | operand forms | meaning |",
           "|---|---|---|---|---|---|---|"]
    for op in table.ops:
        spec = mods.opcodes.get(op.name)
        accepted = _words(spec.modifiers, spec) if spec else "(not lowered)"
        forms = " ".join(_cell(f"`{f}`") for f in sorted(spec.operands)) if spec else ""
        meaning = op.meaning + (f" *({op.note})*" if op.note else "")
        pipe = op.pipe + "".join(f"; {word}: {other}" for word, other in op.pipe_when)
        out.append(f"| `{op.name}` | {op.semantics} | {pipe} | {op.latency} | {accepted} | {forms} | {meaning} |")
    out += [STRICT, "### Modifier words", "", "| word | meaning | families | meaning for a family, or why it needs no flag |",
            "|---|---|---|---|"]
    users: dict = {}
    for spec in mods.opcodes.values():
        for w in spec.modifiers:
            users.setdefault(w, []).append(spec.family)
    for w in sorted(users, key=str):
        notes = []
        for fam in sorted(users[w]):
            spec = mods.opcodes[fam]
            if w in spec.meanings:
                notes.append(f"{fam}: {spec.meanings[w]}")
            if w in spec.implicit:
                notes.append(f"{fam} (implicit): {spec.implicit[w]}")
        meaning = mods.meanings.get(w) or f"no effect: {mods.no_effect.get(w, '')}"
        out.append(f"| `.{w}` | {meaning} | {' '.join(sorted(users[w]))} | {'; '.join(notes)} |")
    out += ["", "### Operand forms", "", "| form | meaning | families |", "|---|---|---|"]
    for form, meaning in mods.forms.items():
        fams = " ".join(sorted(s.family for s in mods.opcodes.values() if form in s.operands))
        out.append(f"| {_cell(f'`{form}`')} | {_cell(meaning)} | {fams} |")
    for form, reason in mods.no_effect_forms.items():
        out.append(f"| `{form}` | no effect: {_cell(reason)} | every family |")
    out += ["", "### Words without effect in the simulator", "", "| word | why |", "|---|---|"]
    out += [f"| `.{w}` | {reason} |" for w, reason in mods.no_effect.items()]
    ops = hopper_table()
    executed = sum(op.status == "executed" for op in ops.values())
    out += [HOPPER, f"{len(ops)} opcodes: {executed} executed, {len(ops) - executed} refused.", ""]
    group = None
    for op in ops.values():
        if op.group != group:
            group = op.group
            out += ["", f"### {group}", "", "| opcode | NVIDIA's description | status | why refused |", "|---|---|---|---|"]
        out.append(f"| `{op.name}` | {op.description} | {op.status} | {op.reason} |")
    out.append("")
    return "\n".join(out)
