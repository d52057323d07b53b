"""Cutting a batch into fixed-length, zero-padded sequences with a burn-in overlap, as RLlib's replay of RNN data does.

``timeslice_along_seq_lens_with_overlap`` is what RLlib 1.x's replay buffer
runs on each added batch when ``replay_sequence_length > 1``.
"""
from __future__ import annotations

import numpy as np

from rlviz.rollout.sample_batch import SampleBatch

__all__ = ["timeslice_along_seq_lens_with_overlap"]


def timeslice_along_seq_lens_with_overlap(sample_batch: SampleBatch, seq_lens: list[int] | None = None,
                                          zero_pad_max_seq_len: int = 0, pre_overlap: int = 0,
                                          zero_init_states: bool = True) -> list[SampleBatch]:
    """Slices of ``sample_batch``, each with ``pre_overlap`` earlier rows in front, zero-padded.

    Without ``seq_lens`` (given or in the batch) the rows are cut every
    ``zero_pad_max_seq_len - pre_overlap`` rows.  Rows of an earlier episode
    than a slice's last row become zeros (and its states start at zero), as
    in RLlib.  ``state_in_i`` of a slice is zeros when ``zero_init_states``,
    else the ``state_out_i`` of the row before it.

    Raises
    ------
    ValueError
        If the cut length ``zero_pad_max_seq_len - pre_overlap`` is not positive.

    Examples
    --------
    >>> batch = SampleBatch(t=[0, 1, 2, 3, 4], eps_id=[1, 1, 1, 1, 1])
    >>> [s["t"].tolist() for s in timeslice_along_seq_lens_with_overlap(batch, zero_pad_max_seq_len=3, pre_overlap=1)]
    [[0, 0, 1], [1, 2, 3], [3, 4, 0]]
    """
    if seq_lens is None:
        seq_lens = sample_batch.get(SampleBatch.SEQ_LENS)
    if seq_lens is None:
        step = zero_pad_max_seq_len - pre_overlap
        if step <= 0:
            raise ValueError(f"zero_pad_max_seq_len ({zero_pad_max_seq_len}) must exceed pre_overlap "
                             f"({pre_overlap}); raise replay_sequence_length or lower replay_burn_in")
        seq_lens = [step] * (sample_batch.count // step) + ([sample_batch.count % step] if sample_batch.count % step
                                                             else [])
    slices, start = [], 0
    for seq_len in (int(n) for n in seq_lens):
        slices.append(_one_slice(sample_batch, start - pre_overlap, start + seq_len, zero_init_states))
        start += seq_len
    if zero_pad_max_seq_len > 0:
        for piece in slices:
            piece.right_zero_pad(max_seq_len=zero_pad_max_seq_len, exclude_states=True)
    return slices


def _one_slice(batch: SampleBatch, begin: int, end: int, zero_init_states: bool) -> SampleBatch:
    zeros, data_begin = 0, max(begin, 0)
    if begin < 0:
        zeros, zero_init_states = -begin, True
    elif SampleBatch.EPS_ID in batch:
        ids = batch[SampleBatch.EPS_ID][begin:end]
        earlier = int(np.sum(ids != ids[-1]))
        if earlier:
            zeros, data_begin, zero_init_states = earlier, begin + earlier, True
    data = {}
    for key, value in dict.items(batch):
        if key == SampleBatch.SEQ_LENS or key.startswith(("state_in_", "state_out_")):
            continue
        part = value[data_begin:end]
        data[key] = np.concatenate([np.zeros((zeros, *part.shape[1:]), part.dtype), part]) if zeros else part
    index = 0
    while f"state_in_{index}" in batch:
        source = batch[f"state_in_{index}"][:1] if zero_init_states else batch[f"state_out_{index}"][begin - 1:begin]
        data[f"state_in_{index}"] = np.zeros_like(source) if zero_init_states else source
        index += 1
    return SampleBatch(data, seq_lens=[end - begin])
