"""The ``rlviz`` command: ``rlviz demo`` (the main job) and ``rlviz report TRACE.json``."""
from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rlviz`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "report":
        from rlviz.viz.report import report_main
        return report_main(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command != "demo":
        parser.print_help()
        return 2
    return _demo(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlviz", description="See how Ray/RLlib-style execution plans run.")
    commands = parser.add_subparsers(dest="command")
    demo = commands.add_parser("demo", help="run the recorded demo on an embedded local Ray")
    demo.add_argument("--items", type=int, default=40, help="numbers per source (default 40)")
    demo.add_argument("--shards", type=int, default=2, help="shard actors per source (default 2)")
    demo.add_argument("--out", default="rlviz-out", help="output folder (default rlviz-out)")
    demo.add_argument("--address", default=None, help="Ray cluster address (default: local Ray)")
    commands.add_parser("report", help="rlviz report TRACE.json -o report.html")
    return parser


def _demo(args: argparse.Namespace) -> int:
    from rlviz.demos.pipeline import PipelineDemoConfig, run

    run(PipelineDemoConfig(items=args.items, num_shards=args.shards, out_dir=args.out, address=args.address))
    return 0


if __name__ == "__main__":
    sys.exit(main())
