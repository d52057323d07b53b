"""Run every ``benchmarks/bench_*.py`` that exists and save the combined figures.

``python -m benchmarks`` (or ``make bench``) calls each module's ``main()`` in
name order, prints what it prints, and writes ``benchmarks/results/latest.json``;
``python -m benchmarks bench_iter`` runs only the named modules.
"""
from __future__ import annotations

import datetime
import importlib
import io
import json
import os
import pkgutil
import platform
import subprocess
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path

__all__ = ["discover", "run_all", "main"]

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "latest.json"


def discover() -> list[str]:
    """Names of the ``bench_*`` modules in this package, sorted.

    Returns
    -------
    list of str
        For example ``["bench_iter", "bench_rollout", "bench_viz"]``.
    """
    return sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_"))


def run_all(names: list[str] | None = None) -> dict:
    """Call ``main()`` of each named benchmark module (all of them by default).

    A module that fails is recorded with its traceback and the others still run.

    Parameters
    ----------
    names : list of str, optional
        Module names as returned by ``discover``; None runs every one.

    Returns
    -------
    dict
        ``meta`` (time, commit, versions, CPUs) and ``benchmarks``: per module
        ``figures`` (what ``main()`` returned if it is a dict, else None),
        ``returned`` otherwise, ``seconds``, ``output`` (its printed text) and
        ``error`` (traceback text) when it raised.

    Raises
    ------
    ValueError
        If a name is not a benchmark module here.
    """
    available = discover()
    names = available if names is None else list(names)
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"names must be benchmark modules, got unknown {unknown}; "
                         f"available: {available}")
    results = {"meta": _meta(), "benchmarks": {}}
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        entry: dict = {"figures": None}
        output = _Tee(sys.stdout)
        start = time.perf_counter()
        saved_stdout, saved_argv = sys.stdout, sys.argv
        sys.stdout, sys.argv = output, [f"benchmarks.{name}"]   # modules that parse argv see none
        try:
            returned = importlib.import_module(f"benchmarks.{name}").main()
        except Exception:                       # keep going; the failure is in the results
            entry["error"] = traceback.format_exc()
            print(entry["error"], file=sys.stderr)
        else:
            if isinstance(returned, dict):
                entry["figures"] = returned
            else:
                entry["returned"] = returned
        finally:
            sys.stdout, sys.argv = saved_stdout, saved_argv
        entry["seconds"] = round(time.perf_counter() - start, 1)
        entry["output"] = output.getvalue()
        results["benchmarks"][name] = entry
    return results


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks, write ``benchmarks/results/latest.json``, print it.

    Parameters
    ----------
    argv : list of str, optional
        Benchmark module names to run (default: all); ``sys.argv[1:]`` if None.

    Returns
    -------
    int
        0 if every benchmark ran, 1 if any raised.
    """
    argv = sys.argv[1:] if argv is None else argv
    results = run_all(argv or None)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=2, default=_jsonable)
    RESULTS.write_text(text + "\n")
    print(f"\n=== combined results ({RESULTS.relative_to(HERE.parent)}) ===")
    print(text)
    return 1 if any("error" in e for e in results["benchmarks"].values()) else 0


# -- helpers ------------------------------------------------------------------
class _Tee(io.StringIO):
    """Keeps a copy of what is written and passes it on to ``stream``."""

    def __init__(self, stream) -> None:
        super().__init__()
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(text)
        return super().write(text)

    def flush(self) -> None:
        self._stream.flush()


def _meta() -> dict:
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=HERE, text=True,
                                capture_output=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    versions = {}
    for package in ("ray", "numpy", "matplotlib"):              # read without importing them
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {"time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": commit, "python": platform.python_version(), "cpus": os.cpu_count(),
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "versions": versions}


def _jsonable(value):
    """numpy scalars and arrays, paths and the like, for ``json.dumps``."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
