"""Counter and timer names shared by the execution ops, as in RLlib 1.x (docs/plans.md, "Counters and timers")."""
from __future__ import annotations

__all__ = ["STEPS_SAMPLED_COUNTER", "AGENT_STEPS_SAMPLED_COUNTER", "STEPS_TRAINED_COUNTER",
           "STEPS_TRAINED_THIS_ITER_COUNTER", "AGENT_STEPS_TRAINED_COUNTER", "LAST_TARGET_UPDATE_TS",
           "NUM_TARGET_UPDATES", "SAMPLE_TIMER", "LEARN_ON_BATCH_TIMER", "LOAD_BATCH_TIMER",
           "COMPUTE_GRADS_TIMER", "APPLY_GRADS_TIMER", "GRAD_WAIT_TIMER", "WORKER_UPDATE_TIMER",
           "LEARNER_INFO", "COUNTERS", "TIMERS"]

STEPS_SAMPLED_COUNTER = "num_steps_sampled"
AGENT_STEPS_SAMPLED_COUNTER = "num_agent_steps_sampled"
STEPS_TRAINED_COUNTER = "num_steps_trained"
STEPS_TRAINED_THIS_ITER_COUNTER = "num_steps_trained_this_iter"
AGENT_STEPS_TRAINED_COUNTER = "num_agent_steps_trained"
LAST_TARGET_UPDATE_TS = "last_target_update_ts"
NUM_TARGET_UPDATES = "num_target_updates"

SAMPLE_TIMER = "sample"
LEARN_ON_BATCH_TIMER = "learn"
LOAD_BATCH_TIMER = "load"
COMPUTE_GRADS_TIMER = "compute_grads"
APPLY_GRADS_TIMER = "apply_grad"
GRAD_WAIT_TIMER = "grad_wait"
WORKER_UPDATE_TIMER = "synch_weights"

#: Key of ``MetricsContext.info`` holding the latest learner statistics.
LEARNER_INFO = "learner"

COUNTERS = (STEPS_SAMPLED_COUNTER, AGENT_STEPS_SAMPLED_COUNTER, STEPS_TRAINED_COUNTER,
            STEPS_TRAINED_THIS_ITER_COUNTER, AGENT_STEPS_TRAINED_COUNTER, LAST_TARGET_UPDATE_TS,
            NUM_TARGET_UPDATES)
TIMERS = (SAMPLE_TIMER, LEARN_ON_BATCH_TIMER, LOAD_BATCH_TIMER, COMPUTE_GRADS_TIMER,
          APPLY_GRADS_TIMER, GRAD_WAIT_TIMER, WORKER_UPDATE_TIMER)
