"""The ``rlviz`` command: ``rlviz demo`` (DQN, the main job), ``rlviz demo --pipeline`` and ``rlviz report TRACE``."""
from __future__ import annotations

import argparse
import sys

from rlviz.plans import PLANS

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
    if args.pipeline or args.items is not None or args.shards is not None:
        return _pipeline_demo(args)
    return _plan_demo(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlviz", description="See how Ray/RLlib-style execution plans run.")
    commands = parser.add_subparsers(dest="command")
    demo = commands.add_parser("demo", help="train DQN on CartPole-v1 with 2 workers, recorded (about a minute)")
    demo.add_argument("--plan", default="dqn", choices=PLANS,
                      help="execution plan to run (default dqn)")
    demo.add_argument("--workers", type=int, default=2, help="remote rollout workers (default 2)")
    demo.add_argument("--time", type=float, default=60.0, help="time budget in seconds (default 60)")
    demo.add_argument("--steps", type=int, default=50_000, help="stop after this many env steps (default 50000)")
    demo.add_argument("--iteration-steps", type=int, default=1000,
                      help="env steps per train() iteration (default 1000)")
    demo.add_argument("--training-intensity", type=float, default=None,
                      help="dqn/apex: trained/sampled steps wanted (default: native ratio)")
    demo.add_argument("--pipeline", action="store_true", help="run the plain iterator pipeline demo instead")
    demo.add_argument("--items", type=int, default=None, help="pipeline demo: numbers per source (default 40)")
    demo.add_argument("--shards", type=int, default=None, help="pipeline demo: shards per source (default 2)")
    demo.add_argument("--out", default="rlviz-out", help="output folder (default rlviz-out)")
    demo.add_argument("--address", default=None, help="Ray cluster address (default: local Ray)")
    commands.add_parser("report", help="rlviz report TRACE -o report.html (a file Trace.save wrote)")
    return parser


def _plan_demo(args: argparse.Namespace) -> int:
    from rlviz.demos.dqn import DQNDemoConfig, run

    run(DQNDemoConfig(plan=args.plan, num_workers=args.workers, time_budget_s=args.time, max_timesteps=args.steps,
                      timesteps_per_iteration=args.iteration_steps, training_intensity=args.training_intensity,
                      out_dir=args.out, address=args.address))
    return 0


def _pipeline_demo(args: argparse.Namespace) -> int:
    from rlviz.demos.pipeline import PipelineDemoConfig, run

    run(PipelineDemoConfig(items=40 if args.items is None else args.items,
                           num_shards=2 if args.shards is None else args.shards, out_dir=args.out,
                           address=args.address))
    return 0


if __name__ == "__main__":
    sys.exit(main())
