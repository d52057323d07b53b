// Whether a notebook view still has its kernel. JupyterLab's widget manager marks every widget's
// connection dead when the kernel restarts, or dies and is restarted (ipywidgets' `comm_live_update`
// event); the view then asks the kernel ("ping") and, when no "pong" comes back within PING_MS, says
// the kernel is gone while keeping everything it already shows. Free of the DOM: tested with node.

/** How long a view waits for the kernel's answer before it says the kernel is gone. */
export const PING_MS = 3000;

/**
 * What a view says once its kernel is gone: `events` it keeps, and whether it was watching a live
 * run (which stopped with the kernel).
 */
export function kernelLostText(events, live) {
  const kept = `it keeps the ${events.toLocaleString("en-US")} event${events === 1 ? "" : "s"} it shows`;
  return `The kernel restarted or stopped, so this view lost its connection: ${kept}`
    + (live ? ", but the watched run ended with the kernel and its buttons do nothing" : "")
    + ". Run the cell again in the new kernel to record and show a new trace.";
}

/**
 * Watch a view's kernel connection.
 * @param {object} hooks  {ping(): void (may throw when the connection is closed), lost(): void, found(): void}
 * @param {object} timers  {setTimeout, clearTimeout} (the global ones by default)
 * @returns {{disconnected, heard, destroy, lost: boolean}} `disconnected()` when the widget says its
 *   connection changed; `heard()` on any message from the kernel
 */
export function createKernelWatch({ ping, lost, found }, timers = globalThis) {
  let waiting = 0, gone = false;
  const markLost = () => {
    waiting = 0;
    if (!gone) { gone = true; lost(); }
  };
  return {
    /** The widget's connection changed: ask the kernel whether it is still there. */
    disconnected() {
      if (waiting || gone) return;
      try { ping(); } catch { markLost(); return; }        // a closed connection refuses to send
      waiting = timers.setTimeout(markLost, PING_MS);
    },
    /** A message came from the kernel: it is there. */
    heard() {
      if (waiting) { timers.clearTimeout(waiting); waiting = 0; }
      if (gone) { gone = false; found(); }
    },
    get lost() { return gone; },
    destroy() { if (waiting) timers.clearTimeout(waiting); waiting = 0; },
  };
}
