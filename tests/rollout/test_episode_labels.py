"""``_Episodes.advance`` labels a whole fragment at once; it must agree with step-by-step bookkeeping."""
import numpy as np
import pytest

from rlviz.rollout.sampler import _Episodes


def _step_by_step(rewards, ended, t0, returns0):
    """Reference: walk every step, as a per-step sampler would."""
    T, N = ended.shape
    t, ret = t0.copy(), returns0.astype(float).copy()
    episode = np.zeros(N, int)
    t_col, ep_col, finished = np.zeros((T, N), int), np.zeros((T, N), int), []
    for s in range(T):
        t_col[s], ep_col[s] = t, episode
        ret += rewards[s]
        for i in range(N):
            if ended[s, i]:
                finished.append((s, i, ret[i], t[i] + 1))
        t = np.where(ended[s], 0, t + 1)
        ret = np.where(ended[s], 0.0, ret)
        episode = episode + ended[s]
    return t_col, ep_col, finished, t, ret


@pytest.mark.parametrize("seed", range(5))
def test_advance_matches_step_by_step_bookkeeping(seed):
    rng = np.random.default_rng(seed)
    T, N = 30, 4
    ended = rng.random((T, N)) < 0.15              # several episodes may end in one fragment
    ended[-1, 0], ended[:, 1] = True, False        # env 0 ends on the last step; env 1 never ends
    rewards = rng.normal(size=(T, N)).astype(np.float32)
    episodes = _Episodes(N, worker_index=3)
    episodes.t[:] = [0, 5, 17, 2]
    episodes.returns[:] = [0.0, 1.5, -2.0, 4.0]
    first_ids = episodes.eps_id.copy()
    t_ref, ep_ref, finished, t_next, ret_next = _step_by_step(rewards, ended, episodes.t.copy(), episodes.returns.copy())

    eps_id, t = episodes.advance(rewards, ended)

    assert np.array_equal(t, t_ref)
    for i in range(N):                              # one id per episode, the carried one first
        assert eps_id[0, i] == first_ids[i]
        ids_of = {k: set(eps_id[ep_ref[:, i] == k, i]) for k in np.unique(ep_ref[:, i])}
        assert all(len(ids) == 1 for ids in ids_of.values())
        assert len({next(iter(ids)) for ids in ids_of.values()}) == len(ids_of)
    records = episodes.pop()
    assert [(m.episode_length, m.worker_index) for m in records] == [(n, 3) for _, _, _, n in finished]
    assert np.allclose([m.episode_return for m in records], [r for _, _, r, _ in finished], atol=1e-4)
    assert np.array_equal(episodes.t, t_next) and np.allclose(episodes.returns, ret_next, atol=1e-4)
    assert episodes.eps_id[1] == first_ids[1]       # env 1's episode goes on into the next fragment
    assert episodes.eps_id[0] not in set(eps_id[:, 0])  # env 0 ended last step: a fresh id waits
