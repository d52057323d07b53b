// The inspector pane: the selected call's op, lane, outcome, item, times and completion rank,
// with buttons to the calls that produced its inputs and consumed its output. In a live view of a
// run with dataflow ops, "Break here" sets a breakpoint on the selected driver op (again: removes it).
import { completionOrder, decisionIndex, isDroppedInput } from "../explorer_core.js";
import { MAX_LINKS_LISTED, make, setIconLabel } from "../explorer_dom.js";
import { durationText, startText } from "../explorer_time.js";
import { eventWhy } from "../explorer_gauges.js";

/**
 * What the inspector lists of call `i`, as [key, text] pairs: op, label, the node's details (round-robin
 * weights, max_concurrency, worker class: facts its Ray label leaves out), lane, outcome, item, times,
 * its rank in completion order, and why (a union's decision, the state that caused a not-ready or a
 * dropped input: explorer_gauges.eventWhy).
 * @param {object} view  the Explorer's shared context (model, meta, describe)
 * @param {number} i     the call
 * @param {Map} whyRows  decisionIndex of view.meta.decisions
 * @returns {Array<[string, string]>}
 */
export function inspectorFields(view, i, whyRows) {
  const { model } = view, d = view.describe(i);
  const rank = completionOrder(model) && model.rank[i];
  const details = Object.entries(d.node.details || {}).map(([key, value]) =>
    [key, Array.isArray(value) ? value.join(" : ") : String(value)]);
  const fields = [["op", d.node.op], ["label", d.node.label], ...details, ["lane", d.node.where], ["outcome", d.outcome],
    ["item", d.item ?? "(none)"], ["start", startText(d.startMs)], ["duration", durationText(d.durationMs)],
    ["event", `#${d.index} · ${completedText(rank, model.n, view.meta.events)}`]];
  const why = eventWhy(model, view.meta.decisions, whyRows, i);   // the decision, and the cause behind it
  if (why) fields.push(["why", why]);
  return fields;
}

/**
 * What the inspector says with no call selected: where the selected call went (`selectedId`, a long trace's call in
 * a part not loaded for this window), that this window's calls could not be loaded (`unloaded`: the page shows why
 * above), how to start, or why there is nothing to inspect.
 * @param {{selectedId: number, held: number, events: number, unloaded: boolean}} facts  `held` calls in the model,
 *   `events` in the run
 * @returns {{name: string|null, text: string}} the paragraph's data-rlviz name and its text
 */
export function idleText({ selectedId, held, events, unloaded }) {
  if (selectedId >= 0) {
    return { name: "away", text: `Call #${selectedId} is selected, away from the calls loaded for this window: zoom out to bring it back.` };
  }
  if (unloaded) {
    return { name: "unloaded", text: "This window's calls could not be loaded (the message above says why): the lanes are drawn from the overview." };
  }
  if (held) return { name: null, text: "Click a span, or press → (or Play) to step through the calls in the order they completed." };
  return { name: null, text: events ? "This long trace is drawn from its overview here: zoom in (a few minutes or less) to inspect its calls."
    : "Nothing to inspect: the trace is empty." };
}

/**
 * Where a call's end falls among the calls the page holds (`rank` of `held`, 0 first); a page that holds a part of
 * a run of `events` says so, since the rank is within that part.
 */
function completedText(rank, held, events = held) {
  const place = `completed ${(rank + 1).toLocaleString("en-US")} of `;
  return events > held ? `${place}the ${held.toLocaleString("en-US")} loaded (the run has ${events.toLocaleString("en-US")})`
    : `${place}${held.toLocaleString("en-US")}`;
}

/**
 * The calls that produced call `i`'s inputs and those that consumed its output, as two boxes of
 * buttons (`button(j, note)`), at most MAX_LINKS_LISTED each; a filter's rejected input (a not-ready
 * None) is listed, marked, so the kept one reads as the source.
 */
function linkLists(model, i, button) {
  const droppedNote = {
    producers: (p) => isDroppedInput(model, i, p) && "dropped by this call",
    consumers: (c) => isDroppedInput(model, c, i) && "dropped there",
  };
  return [["its inputs came from", model.inOffsets, model.inputs, "producers"],
    ["its output went to", model.outOffsets, model.outputs, "consumers"]].map(([title, offsets, values, part]) => {
    const box = make("div", null, part);
    const count = offsets[i + 1] - offsets[i];
    box.appendChild(make("h4", null, null, `${title} (${count})`));
    for (let k = offsets[i]; k < Math.min(offsets[i + 1], offsets[i] + MAX_LINKS_LISTED); k++) {
      box.appendChild(button(values[k], droppedNote[part](values[k])));
    }
    if (count > MAX_LINKS_LISTED) box.appendChild(make("span", null, null, `… and ${count - MAX_LINKS_LISTED} more`));
    return box;
  });
}

/**
 * Mount the inspector into `host`.
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context
 * @returns {{update: function(Set<string>): void, destroy: function(): void}}
 */
export function createInspector(host, view) {
  const pane = make("div", "rlviz-pane rlviz-inspector", "inspector");
  host.appendChild(pane);
  let drawnEmpty = true;
  let whyRows = null, whyFor = null;   // event -> the union's decision row behind it, for the decisions `whyFor`
  let drawnBreak = null;    // the breakpoint op the pane was drawn with (live views)
  draw();

  function eventButton(i, dropped) {
    const d = view.describe(i);
    const button = make("button", dropped ? "rlviz-dropped" : null, "link",
      `#${d.index} ${d.node.op} @ ${d.node.where}${d.item != null ? ` · ${d.item}` : ""} · ${startText(d.startMs)}`
      + (dropped ? ` · ${dropped}` : ""));
    button.dataset.event = String(d.index);
    button.addEventListener("click", () => view.actions.select(i));
    return button;
  }

  function draw() {
    const { model } = view, i = view.store.get().selected;
    drawnEmpty = model.n === 0;
    pane.replaceChildren(make("h4", null, null, "Inspector"));
    if (i < 0) {
      const { damaged, error } = view.store.get();
      const idle = idleText({ selectedId: view.selectedId(), held: model.n, events: view.meta.events ?? 0,
        unloaded: Boolean(damaged || error) });
      pane.appendChild(make("p", null, idle.name, idle.text));
      return;
    }
    if (whyFor !== view.meta.decisions) {         // a live page's decisions grow: index them again
      whyFor = view.meta.decisions;
      whyRows = decisionIndex(whyFor);
    }
    const list = make("dl");
    for (const [key, value] of inspectorFields(view, i, whyRows)) list.append(make("dt", null, null, key), make("dd", null, key, value));
    pane.appendChild(list);
    breakButton(view.describe(i).node);
    pane.append(...linkLists(model, i, eventButton));
  }

  /** "Break here" on a driver op of a live run that can pause at its ops (a second press removes the breakpoint). */
  function breakButton(node) {
    const live = view.store.get().live;
    drawnBreak = live ? live.break_op ?? null : null;
    if (!live || !live.running || live.gated === false || node.where !== "driver") return;
    const set = drawnBreak === node.op;
    const button = make("button", set ? "rlviz-break-set" : null, "break");
    setIconLabel(button, "dot", set ? "remove breakpoint" : "Break here");
    button.title = set ? `stop pausing after each call of ${node.op}` : `pause the run after each call of ${node.op}`;
    button.addEventListener("click", () => view.command("break", { op: set ? null : node.op }));
    pane.appendChild(button);
  }

  return {
    update(changed) {
      const live = view.store.get().live;
      if (changed.has("live") && live && (live.break_op ?? null) !== drawnBreak) draw();
      else if (changed.has("selected") || changed.has("selectedId")) draw();
      // rank and consumers grow; an empty trace's note goes once events arrive
      else if (changed.has("data") && (view.store.get().selected >= 0 || drawnEmpty)) draw();
      else if ((changed.has("damaged") || changed.has("error")) && view.store.get().selected < 0) draw();
    },
    destroy() { pane.remove(); },
  };
}
