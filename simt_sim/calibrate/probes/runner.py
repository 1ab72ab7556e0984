"""`simt-sim probe`: list the kernel probes, replay one against its recording, fit the config
values it pins, or measure it again on a GPU.

    simt-sim probe --list
    simt-sim probe --doc                            # docs/timing.md's table of keys, values, probes, recordings
    simt-sim probe xu_rate                          # the model beside the recorded figures
    simt-sim probe xu_rate --set units.sfu.lanes=2  # ... with a config key changed
    simt-sim probe xu_rate --fit                    # the pinned keys' candidates, the closest one
    simt-sim probe xu_rate --gpu                    # measure (cupy, a CUDA GPU): the recording
    simt-sim probe control_rate --ncu               # Nsight Compute's recording beside the model
    simt-sim probe control_rate --ncu-metrics       # what ncu collects (then --gpu --ncu-launches, --ncu-csv)
"""
from __future__ import annotations

import json

from simt_sim.errors import InputError


def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", help="the probe (see --list)")
    parser.add_argument("--list", action="store_true", help="one line per probe: what it measures, which keys")
    parser.add_argument("--doc", action="store_true",
                        help="print docs/timing.md's generated table: each timing key, its h100 value, meaning, the "
                             "probes that pin it and their recordings (python -m simt_sim.calibrate.probes.doc --write "
                             "rewrites it there)")
    parser.add_argument("--gpu", action="store_true",
                        help="measure on the GPU (cupy) and write the recording (references/GPU/NAME.json, or --out)")
    parser.add_argument("--out", metavar="FILE", help="with --gpu: write the recording here instead")
    parser.add_argument("--fit", action="store_true",
                        help="for each key the probe pins: the model's distance from the recording per candidate "
                             "value, and the closest")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a key of configs/h100.yaml in the model (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="also write the replayed rows (or the fit) as JSON")
    ncu = parser.add_argument_group("Nsight Compute's recording beside the timing one (probes that have one)")
    ncu.add_argument("--ncu", action="store_true", help="ncu's recorded figures beside the model's counterpart")
    ncu.add_argument("--ncu-metrics", action="store_true", help="print the metrics ncu is to collect (--metrics)")
    ncu.add_argument("--ncu-launches", action="store_true",
                     help="with --gpu: launch each profiled row as often as the probe says, for ncu to profile")
    ncu.add_argument("--ncu-csv", metavar="FILE",
                     help="turn ncu's CSV of --gpu --ncu-launches into the ncu recording (references/GPU/NAME-ncu.json"
                          ", or --out)")


def list_lines() -> list[str]:
    from simt_sim.calibrate.probes import all_probes
    lines, probes = [], all_probes()
    width = max(len(p.name) for p in probes) + 1
    for p in probes:
        keys = ", ".join(p.keys) if p.keys else "no key (a check of the model)"
        lines.append(f"{p.name:<{width}} {p.meaning}  [keys: {keys}]")
    return lines


def run(ns) -> int:
    from simt_sim.calibrate.probes import get
    if ns.list:
        print("\n".join(list_lines()))
        return 0
    if ns.doc:
        from simt_sim.calibrate.probes.doc import section
        print(section(), end="")
        return 0
    if not ns.name:
        raise InputError("simt-sim probe: name a probe, or --list")
    probe = get(ns.name)
    if ns.ncu or ns.ncu_metrics or ns.ncu_launches or ns.ncu_csv:
        return ncu(probe, ns)
    if ns.gpu:
        return measure(probe, ns.out)
    if ns.fit and not probe.fit_candidates:
        raise InputError(f"probe {probe.name} pins no key to fit (its keys: {', '.join(probe.keys) or 'none'})")
    doc = probe.document()
    print(f"{probe.name}: {probe.meaning}")
    print(f"recording: {probe.recording.relative_to(probe.recording.parents[2])} ({doc.get('device', 'device not named')})"
          f"; kernels: {probe.kernels.name}; keys: {', '.join(probe.keys) or '-'}")
    if ns.fit:
        from simt_sim.machine.config import load_config
        cfg = load_config("h100", list(ns.set))
        fits = probe.fit(ns.set)
        for key, f in fits.items():
            errors = "  ".join(f"{v}: {e}" for v, e in f["errors"].items())
            print(f"{key}: closest {f['best']} (h100.yaml: {cfg.get(key)}); |model - recorded| over "
                  f"{', '.join(probe.fit_rows_of[key])}: {errors}")
        write_json(ns.json, fits)
        return 0
    rows = probe.replay(ns.set)
    names = getattr(probe.module, "FIGURE_NAMES", ("figures",))
    width = max(len(probe.what(r.split(" / ")[0])) for r, _, _ in rows) + 2
    swidth = max(len(s) for s in probe.sets) + 2
    print(f"{'':<{width}}{'':<{swidth}}{', '.join(names)}: recorded | model")
    shown = getattr(probe.module, "shown", None)       # a row of many figures: the table shows some (--json all)
    for row, rec, model in rows:
        function, label = row.split(" / ", 1)
        if shown:
            rec, model = (shown(rec) if rec else rec), shown(model)
        hw = " ".join(f"{v:8.2f}" for v in rec) or "   (none)"
        print(f"{probe.what(function):<{width}}{label:<{swidth}}{hw} | " + " ".join(f"{v:8.2f}" for v in model))
    write_json(ns.json, [{"row": r, "recorded": rec, "model": m} for r, rec, m in rows])
    return 0


def ncu(probe, ns) -> int:
    """The Nsight Compute options: --ncu-metrics, --gpu --ncu-launches, --ncu-csv, --ncu."""
    if not probe.ncu:
        raise InputError(f"probe {probe.name} has no Nsight Compute recording")
    if ns.ncu_metrics:
        print(",".join(probe.ncu["metrics"]))
        return 0
    if ns.ncu_launches:
        if not ns.gpu:
            raise InputError("--ncu-launches launches on the GPU: add --gpu (and run it under ncu)")
        on_gpu(probe, "--ncu-launches", probe.ncu_launches)
        return 0
    if ns.ncu_csv:
        from pathlib import Path
        from simt_sim.calibrate.probes.base import write_result
        if not Path(ns.ncu_csv).is_file():
            raise InputError(f"--ncu-csv {ns.ncu_csv}: no such file")
        doc = probe.ncu_from_csv(ns.ncu_csv)
        try:
            from simt_sim.calibrate.probes.base import gpu_name
            doc = {"device": gpu_name(), **doc}
        except Exception:              # no cupy or no GPU where the CSV is turned: the device goes unnamed
            pass
        write_result(doc, ns.out or probe.ncu_recording)
        return 0
    rows = probe.ncu_replay(ns.set)
    print(f"{probe.name}: Nsight Compute's figures ({probe.ncu_recording.relative_to(probe.ncu_recording.parents[2])})"
          " | the model's")
    for row, rec, model in rows:
        names = list(model) or list(rec)
        print(f"{row}")
        print("   " + "  ".join(f"{n}: {rec.get(n, float('nan')):.2f}" + (f" | {model[n]:.2f}" if n in model else "")
                                for n in names))
    write_json(ns.json, [{"row": r, "recorded": rec, "model": m} for r, rec, m in rows])
    return 0


def on_gpu(probe, what: str, action):
    """action() on the GPU: cupy missing, or its errors (no device, no driver), as input errors."""
    try:
        import cupy  # noqa: F401
    except ImportError:
        raise InputError(f"simt-sim probe {probe.name} {what} needs cupy and a CUDA GPU") from None
    try:
        return action()
    except Exception as e:             # cupy's own errors: no device, no driver
        if not type(e).__module__.startswith("cupy"):
            raise
        raise InputError(f"simt-sim probe {probe.name} {what}: {e}") from None


def measure(probe, out) -> int:
    import re
    from simt_sim.calibrate.probes.base import REFERENCES, write_result
    doc = on_gpu(probe, "--gpu", probe.measure)
    gpu = re.search(r"\b([A-Z]\d{2,3})\b", doc["device"])
    write_result(doc, out or REFERENCES / (gpu.group(1).lower() if gpu else "other") / f"{probe.name}.json")
    return 0


def write_json(path, doc) -> None:
    if path:
        from simt_sim.files import write_atomic
        write_atomic(path, json.dumps(doc, indent=1) + "\n")
