// Unit tests of the kernel connection's watch (explorer_kernel.js): a lost connection asks the kernel,
// and no answer says it is gone. tests/widgets/test_kernel_lost_browser.py kills a kernel in JupyterLab.
import assert from "node:assert/strict";
import { test } from "node:test";

import { PING_MS, createKernelWatch, kernelLostText } from "../../rlviz/viz/static/explorer_kernel.js";

/** Timers run by hand: `fire()` runs what is due. */
function handTimers() {
  const due = new Map();
  let next = 1;
  return { setTimeout(fn, ms) { due.set(next, [fn, ms]); return next++; }, clearTimeout(id) { due.delete(id); },
    fire() { for (const [id, [fn]] of [...due]) { due.delete(id); fn(); } }, get pending() { return due.size; } };
}

test("a lost connection asks the kernel; no answer within PING_MS says it is gone, an answer says nothing", () => {
  const timers = handTimers(), said = [];
  const watch = createKernelWatch({ ping: () => said.push("ping"), lost: () => said.push("lost"), found: () => said.push("found") }, timers);
  watch.disconnected();
  watch.disconnected();                                // one question at a time
  assert.deepEqual(said, ["ping"]);
  watch.heard();                                       // the kernel answered: still there
  timers.fire();
  assert.deepEqual(said, ["ping"]);
  assert.equal(watch.lost, false);
  watch.disconnected();
  timers.fire();                                       // PING_MS went by without an answer
  assert.deepEqual(said, ["ping", "ping", "lost"]);
  assert.equal(watch.lost, true);
  watch.disconnected();
  assert.equal(timers.pending, 0, "once gone, it does not ask again");
  watch.heard();                                       // a kernel that speaks again takes the note back
  assert.deepEqual(said, ["ping", "ping", "lost", "found"]);
  assert.ok(PING_MS >= 1000);
});

test("a connection that refuses to send is gone at once", () => {
  const said = [];
  const watch = createKernelWatch({ ping: () => { throw new Error("Comm is closed"); }, lost: () => said.push("lost"),
    found: () => {} }, handTimers());
  watch.disconnected();
  assert.deepEqual(said, ["lost"]);
});

test("the kernel's note says what the view keeps and what to do", () => {
  assert.equal(kernelLostText(1234, false), "The kernel restarted or stopped, so this view lost its connection: it keeps "
    + "the 1,234 events it shows. Run the cell again in the new kernel to record and show a new trace.");
  assert.match(kernelLostText(1, true), /the 1 event it shows, but the watched run ended with the kernel/);
});
