"""Generated-corpus kernels (docs/corpus.md) replayed in tests against their H100 recordings
(tests/data/corpus/records.json.gz): the "class is exact" test the corpus test files share.

    from corpus_replay import exact_class_test
    test_gp64_class_kernel_is_exact_against_the_h100 = exact_class_test(sass=CLASSES, ptx=CLASSES)

Each keyword is a mode ("sass", "ptx") and maps corpus kernel ids to what the kernel stands for (said
in the failure message).  The returned test is parametrised over every (kernel, mode) pair, ids
`k00105` where one mode is given and `k00105-sass` where several are, and asserts the replay's class
is `exact`.  The kernels are replayed once, by the first of its tests that runs (one
`corpus.replay` per mode, one worker); the modules are rebuilt from the generator's seeds, so the
test is skipped without nvcc (conftest.needs_nvcc).  Bind it to a module-level name beginning with
`test_`, one name per call."""
from __future__ import annotations

import pytest

from conftest import needs_nvcc
from simt_sim.calibrate import corpus as C


def replay_by_mode(by_mode: dict[str, dict[str, str]], timeout: float = 600.0) -> dict[tuple[str, str], dict]:
    """{(kernel id, mode): replay outcome} for every kernel id of each mode's table."""
    out = {}
    for mode, classes in by_mode.items():
        for o in C.replay(ids=sorted(classes), modes=(mode,), workers=1, timeout=timeout):
            out[(o["id"], o["mode"])] = o
    return out


def exact_class_test(**by_mode: dict[str, str]):
    """A test asserting that every kernel of `by_mode` ({mode: {kernel id: what it stands for}})
    replays exactly in its mode (module docstring)."""
    pairs = [(kid, mode) for mode, classes in by_mode.items() for kid in sorted(classes)]
    ids = [kid if len(by_mode) == 1 else f"{kid}-{mode}" for kid, mode in pairs]
    replayed: list = []                 # [outcomes] or [the exception the replay raised], once run

    def outcome(kid: str, mode: str) -> dict:
        if not replayed:
            try:
                replayed.append(replay_by_mode(by_mode))
            except (Exception, SystemExit) as e:   # every test of the set reports it; not rerun
                replayed.append(e)
        if isinstance(replayed[0], BaseException):
            raise replayed[0]
        return replayed[0][(kid, mode)]

    @needs_nvcc
    @pytest.mark.parametrize("kid,mode", pairs, ids=ids)
    def test_class_kernel_is_exact_against_the_h100(kid, mode):
        o = outcome(kid, mode)
        where = kid if len(by_mode) == 1 else f"{kid} {mode}"
        assert o["class"] == "exact", f"{where} ({by_mode[mode][kid]}): {o['class']}: {o.get('error')}"
    return test_class_kernel_is_exact_against_the_h100
