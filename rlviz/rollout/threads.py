"""How many threads torch computes with in the thread that learns.

torch splits each operation over as many threads as the machine has cores
(OpenMP, MKL).  A learner next to rollout workers, Ray's own processes and a
browser never has those cores to itself, and an MLP the size of CartPole's
gains nothing from splitting: its threads spend their time waiting for each
other.  On the 2-core machine of docs/performance.md, DQN with two remote
workers trained about twice as fast with one thread as with torch's default
of two.  So the ``Trainer`` learns with ``num_cpus_for_driver`` threads
(default 1), as remote workers already use one each.
"""
from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["torch_threads"]


@contextlib.contextmanager
def torch_threads(count: int | None) -> Iterator[None]:
    """Run the block with torch's intra-op thread count set to ``count`` in this thread, then restore it.

    The count is OpenMP's per thread, so set it in the thread that learns
    (``Trainer.train``'s caller, Ape-X's learner thread).  Nothing changes
    when ``count`` is None or torch was never imported (no torch policy).

    Parameters
    ----------
    count : int or None
        Threads torch may use for one operation, at least 1; None leaves torch's own setting.

    Examples
    --------
    >>> import torch
    >>> before = torch.get_num_threads()
    >>> with torch_threads(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    torch = sys.modules.get("torch")
    if count is None or torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)
