"""Learning is real: DQN/PG/A2C/A3C return curves on CartPole-v1, training_intensity -> measured ratio, op order.

``run()`` returns the figures; ``main()`` also writes the curve PNGs and
plan graphs to docs/images/plan_*.png (docs/plans.md shows them).  Not a
timed test: DQN's 50k steps take several minutes on 2 cores.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

__all__ = ["run", "main", "train_plan", "DQN_TARGET", "DQN_BUDGET"]

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
#: DQN must reach this mean return ...
DQN_TARGET = 150.0
#: ... within this many sampled env steps.
DQN_BUDGET = 50_000
#: Sampled-step budgets of the policy-gradient plans.
PG_BUDGETS = {"pg": 40_000, "a2c": 40_000, "a3c": 40_000}
INTENSITIES = (1, 4, 16)


def run(seed: int = 0) -> dict:
    """Train every plan, measure the ratios and the recorded order; return plain figures."""
    import rlviz

    rlviz.init(num_cpus=8)
    figures: dict = {"curves": {}}
    dqn = train_plan("dqn", DQN_BUDGET, seed, stop_at=None)
    figures["curves"]["dqn"] = dqn["curve"]
    crossed = next((s for s, r in dqn["curve"] if r >= DQN_TARGET), None)
    figures["dqn"] = {"crossed_150_at_steps": crossed, "final_return": dqn["curve"][-1][1],
                      "best_return": max(r for _, r in dqn["curve"]), "seconds": dqn["seconds"],
                      "passed": crossed is not None and crossed <= DQN_BUDGET}
    for plan, budget in PG_BUDGETS.items():
        out = train_plan(plan, budget, seed)
        figures["curves"][plan] = out["curve"]
        first = out["curve"][0][1]
        figures[plan] = {"first_return": first, "final_return": out["curve"][-1][1],
                         "best_return": max(r for _, r in out["curve"]), "seconds": out["seconds"],
                         "improved": out["curve"][-1][1] > 2 * max(first, 22.0)}
    figures["intensity"] = [_intensity(i, seed) for i in INTENSITIES]
    figures["order"] = _order(seed)
    return figures


def main(seed: int = 0) -> dict:
    """Run, print the tables; for seed 0 (the docs' run) also draw docs/images/plan_*.png.

    Other seeds (``python -m benchmarks.bench_learning --seed 1``) write only
    ``benchmarks/results/learning-seed<N>.json``, for the seed tables in docs/plans.md.
    """
    figures = run(seed)
    print(_tables(figures))
    if seed == 0:
        _draw(figures)
        draw_plan_graphs()
    name = "learning.json" if seed == 0 else f"learning-seed{seed}.json"
    (ROOT / "benchmarks" / "results").mkdir(exist_ok=True)
    (ROOT / "benchmarks" / "results" / name).write_text(json.dumps(figures, indent=1))
    return figures


# -- helpers ------------------------------------------------------------------
def train_plan(plan: str, budget: int, seed: int, stop_at: float | None = None, **config) -> dict:
    from rlviz.plans import Trainer

    settings = {"seed": seed, **config}
    if plan in ("dqn", "a3c"):
        settings.setdefault("timesteps_per_iteration", 1000)
    trainer = Trainer(plan, num_workers=2, config=settings)
    curve, started = [], time.perf_counter()
    try:
        while True:
            result = trainer.train()
            if not math.isnan(result["episode_reward_mean"]):
                curve.append((result["timesteps_total"], round(result["episode_reward_mean"], 2)))
            print(f"\r{plan}: {result['timesteps_total']:6d} steps, return {result['episode_reward_mean']:6.1f}",
                  end="", flush=True)
            if result["timesteps_total"] >= budget or (stop_at and result["episode_reward_mean"] >= stop_at):
                break
    finally:
        trainer.stop()
    print()
    return {"curve": curve, "seconds": round(time.perf_counter() - started, 1)}


def _intensity(intensity: float, seed: int) -> dict:
    """Trained/sampled steps measured after learning starts, for one training_intensity."""
    from rlviz.ops import calculate_rr_weights, calculate_rr_weights_float
    from rlviz.plans import Trainer

    config = {"seed": seed, "training_intensity": intensity, "timesteps_per_iteration": 200,
              "learning_starts": 500}
    trainer = Trainer("dqn", num_workers=2, config=config)
    try:
        while trainer.train()["timesteps_total"] < 1000:         # past learning_starts
            pass
        c0 = dict(trainer.metrics.counters)
        for _ in range(10 if intensity < 16 else 4):
            result = trainer.train()
        c1 = result["counters"]
    finally:
        trainer.stop()
    measured = (c1["num_steps_trained"] - c0["num_steps_trained"]) / (c1["num_steps_sampled"] - c0["num_steps_sampled"])
    return {"training_intensity": intensity, "weights": calculate_rr_weights(trainer.config),
            "ray_float_weights": calculate_rr_weights_float(trainer.config), "measured": round(measured, 3),
            "error": round(abs(measured - intensity) / intensity, 4)}


def _order(seed: int) -> dict:
    """Record one DQN train() per weights and compare the op order with the weights."""
    import rlviz
    from rlviz.ops import calculate_rr_weights
    from rlviz.plans import Trainer

    out = {}
    for intensity in (1, 16):
        trainer = Trainer("dqn", num_workers=2, config={"seed": seed, "training_intensity": intensity,
                                                        "learning_starts": 200, "timesteps_per_iteration": 400})
        try:
            trainer.train()
            with rlviz.record() as trace:
                trainer.train()
        finally:
            trainer.stop()
        seq = ["S" if "StoreToReplayBuffer" in s else "T"
               for s in trace.sequence(ops=["StoreToReplayBuffer", "TrainOneStep"])]
        w = calculate_rr_weights(trainer.config)
        block = "S" * w[0] + "T" * w[1]
        text = "".join(seq)
        start = text.index(block) if block in text else 0
        body = text[start:start + len(block) * (len(text[start:]) // len(block))]
        out[str(intensity)] = {"weights": w, "events": len(seq), "prefix": text[start:start + 20],
                               "matches": body == block * (len(body) // len(block)) and len(body) >= 4 * len(block)}
    return out


def _tables(f: dict) -> str:
    lines = ["| plan | sampled steps | first return | final return | best | seconds | check |",
             "|---|---|---|---|---|---|---|"]
    d = f["dqn"]
    lines.append(f"| dqn | {f['curves']['dqn'][-1][0]} | {f['curves']['dqn'][0][1]} | {d['final_return']} | "
                 f"{d['best_return']} | {d['seconds']} | >= {DQN_TARGET:g} at {d['crossed_150_at_steps']} steps: "
                 f"{'PASS' if d['passed'] else 'FAIL'} |")
    for plan in PG_BUDGETS:
        p = f[plan]
        lines.append(f"| {plan} | {f['curves'][plan][-1][0]} | {p['first_return']} | {p['final_return']} | "
                     f"{p['best_return']} | {p['seconds']} | improved > 2x random: {'PASS' if p['improved'] else 'FAIL'} |")
    lines += ["", "| training_intensity | rlviz weights | Ray 1.x float weights | measured trained/sampled | error |",
              "|---|---|---|---|---|"]
    for row in f["intensity"]:
        lines.append(f"| {row['training_intensity']} | {row['weights']} | {row['ray_float_weights']} | "
                     f"{row['measured']} | {row['error']:.1%} |")
    lines += ["", "| training_intensity | weights | recorded order (S = store, T = train) | matches |", "|---|---|---|---|"]
    for key, row in f["order"].items():
        lines.append(f"| {key} | {row['weights']} | `{row['prefix']}...` | {row['matches']} |")
    return "\n".join(lines)


def _draw(f: dict) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    IMAGES.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 4))
    for plan, curve in f["curves"].items():
        ax.plot([s for s, _ in curve], [r for _, r in curve], label=plan)
    ax.axhline(DQN_TARGET, color="grey", linestyle="--", linewidth=1)
    ax.axhline(22, color="grey", linestyle=":", linewidth=1)
    right = max(s for curve in f["curves"].values() for s, _ in curve)
    ax.text(right, DQN_TARGET + 5, "150", color="grey", fontsize=8, ha="right")   # right end: clear of the curves
    ax.text(right, 27, "random ~22", color="grey", fontsize=8, ha="right")
    ax.set_xlabel("env steps sampled (2 remote workers)")
    ax.set_ylabel("mean episode return (last 100)")
    ax.set_title("rlviz plans on CartPole-v1")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(IMAGES / "plan_learning.png", dpi=100)
    plt.close(fig)


def draw_plan_graphs() -> list[Path]:
    """``plot_graph`` of every plan's dataflow (nothing runs) -> docs/images/plan_<name>.png."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import rlviz
    from rlviz.plans import PLANS, Trainer
    from rlviz.viz import plot_graph

    rlviz.init(num_cpus=8)
    IMAGES.mkdir(parents=True, exist_ok=True)
    written = []
    for plan in PLANS:
        trainer = Trainer(plan, num_workers=2, config={"seed": 0})
        try:
            ax = plot_graph(trainer.dataflow(), title=f"{plan}: execution_plan(workers, config)")
            path = IMAGES / f"plan_{plan}.png"
            ax.figure.savefig(path, dpi=90, bbox_inches="tight")
            plt.close(ax.figure)
            written.append(path)
        finally:
            trainer.stop()
    return written


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Train every plan on CartPole-v1 and report the learning figures.")
    parser.add_argument("--seed", type=int, default=0, help="seed of every run (0: the docs' run, redraws images)")
    main(parser.parse_args().seed)
