// The Explorer's state: one small store. `set(patch)` applies a patch, reports which keys
// changed, and tells every subscriber (the panes) once, with those keys.

/**
 * A store holding `initial`'s keys.
 * @param {object} initial  the first state
 * @returns {{get: function(): object, set: function(object, object=): Set<string>, subscribe: function(function): function}}
 */
export function createStore(initial) {
  let state = { ...initial };
  const listeners = new Set();
  return {
    /** The current state (a fresh object after every change: never mutate it). */
    get() { return state; },
    /**
     * Apply `patch`; keys whose value is unchanged (Object.is) are ignored.
     * @param {object} patch
     * @param {object} info  passed to subscribers, e.g. {from: "user"} or {from: "host"}
     * @returns {Set<string>} the keys that changed
     */
    set(patch, info = {}) {
      const changed = new Set();
      for (const key of Object.keys(patch)) if (!Object.is(state[key], patch[key])) changed.add(key);
      if (changed.size === 0) return changed;
      state = { ...state, ...patch };
      for (const listener of [...listeners]) listener(changed, state, info);
      return changed;
    },
    /** Call `listener(changed, state, info)` after every change; returns the function that stops it. */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
