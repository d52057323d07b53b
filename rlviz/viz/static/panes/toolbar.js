// The toolbar: title, search (every hit highlighted, their count), step buttons, Play, "skip
// not-ready", zoom buttons, the filter chip with "hide others" and the status line; the error banner and the dropped-events note under it; the keys
// (← → Esc) of the whole view; and the data-rlviz-* attributes that announce the state.
import { PLAY_MS, counted, formatMs, iconButton, make, setIconLabel } from "../explorer_dom.js";
import { durationText } from "../explorer_time.js";

const SEARCH_SETTLE_MS = 200;       // typing highlights the hits once it pauses

/**
 * The toolbar's header: calls, processes and span of the trace (a long trace's page counts the whole
 * run, `meta.events`, not the part it holds); and what was dropped ("" if nothing).
 */
export function toolbarTexts(model, meta) {
  return {
    title: `${counted(meta.events ?? model.n, "call")} · ${counted(meta.lanes.length, "process")} · ${durationText(meta.span_ms)}`,
    dropped: meta.dropped > 0
      ? `${counted(meta.dropped, "event")} ${meta.dropped === 1 ? "was" : "were"} dropped by the bounded buffers (the oldest); `
        + "raise rlviz.record(capacity=...) to keep them."
      : "",
  };
}

/**
 * The search's one count: "match 3 of 5,186" once Enter stepped to hit `current` (an event index), else
 * "5,186 matches"; "" for an empty query.  Read from the hits of now, so it never lags them.
 */
export function searchCountText(query, hits, current = -1) {
  if (!query.trim()) return "";
  const k = current >= 0 ? hits.indexOf(current) : -1;
  return k >= 0 ? `match ${(k + 1).toLocaleString("en-US")} of ${hits.length.toLocaleString("en-US")}`
    : counted(hits.length, "match");
}

/** The filter chip's words (after its drawn close mark): which op and/or lane the timeline shows, "" when it shows everything. */
export function filterChipText(filter) {
  const parts = [filter.op, filter.where].filter((v) => v != null);
  return parts.length ? `showing ${parts.join(" @ ")}` : "";
}

/**
 * Mount the toolbar into `host` (the Explorer's root, which also gets the key handler).
 * @param {HTMLElement} host
 * @param {object} view  the Explorer's shared context
 * @returns {{update: function(Set<string>): void, destroy: function(): void, showError: function(string): void}}
 */
export function createToolbar(host, view) {
  const { store, actions, root } = view;
  const bar = make("div", "rlviz-bar");
  const title = make("span", "rlviz-title");
  const search = make("input", null, "search");
  search.type = "search";
  search.placeholder = "search op or item, op:Name for op names only (Enter: next)";
  search.setAttribute("aria-label", "search op, label or item text");
  const prev = iconButton("prev", "prev");
  prev.title = "previous call to complete (←)";
  const play = iconButton("play", "play", "Play");
  play.title = "step through calls in completion order";
  const next = iconButton("next", "next");
  next.title = "next call to complete (→)";
  const skip = make("label", "rlviz-skip", "skip-not-ready");
  const skipBox = make("input", null, "skip-not-ready-box");
  skipBox.type = "checkbox";
  skip.title = "step over calls that returned 'not ready'";
  skip.append(skipBox, document.createTextNode(" skip not-ready"));
  const hide = make("label", "rlviz-hide", "hide-others");
  const hideBox = make("input", null, "hide-others-box");
  hideBox.type = "checkbox";
  hide.title = "hide the rows the filter leaves out (instead of dimming them)";
  hide.append(hideBox, document.createTextNode(" hide others"));
  const zoomSel = make("button", null, "zoom-selection", "zoom to selection");
  const reset = make("button", null, "reset", "reset zoom");
  const chip = make("span", "rlviz-chip", "filter");
  chip.style.display = "none";
  const status = make("span", "rlviz-status", "status");
  const count = make("span", "rlviz-status", "matches");
  bar.append(title, search, count, prev, play, next, skip, zoomSel, reset, chip, hide, status);
  const banner = make("div", "rlviz-banner", "error");
  banner.style.display = "none";
  const damaged = make("div", "rlviz-banner", "damaged");     // a saved page's part that failed its checks: in
  const dropped = make("div", "rlviz-note", "dropped");      // the page only then, as a damaged page's own note is
  host.append(bar, banner, dropped);
  let playing = null, searched = null, typing = null;
  let stepped = { query: "", event: -1 };      // the hit Enter last stepped to, and for which query

  const listeners = [
    [root, "keydown", (e) => {
      if (e.target === search) return;
      // handled keys stay in the view: JupyterLab would otherwise move between cells too
      if (e.key === "ArrowRight") { e.preventDefault(); e.stopPropagation(); actions.step(1); }
      else if (e.key === "ArrowLeft") { e.preventDefault(); e.stopPropagation(); actions.step(-1); }
      else if (e.key === "Escape") { e.stopPropagation(); actions.select(-1); }
    }],
    // a click anywhere but in the search box gives the view the keyboard, so ← / → work next
    [root, "pointerdown", (e) => {
      if (e.target !== search && document.activeElement !== root) root.focus({ preventScroll: true });
    }],
    [skipBox, "change", () => actions.setSkipNotReady(skipBox.checked)],
    [hideBox, "change", () => actions.setHideOthers(hideBox.checked)],
    [search, "input", () => { clearTimeout(typing); typing = setTimeout(highlight, SEARCH_SETTLE_MS); }],
    [prev, "click", () => actions.step(-1)],
    [next, "click", () => actions.step(1)],
    [play, "click", togglePlay],
    [reset, "click", () => actions.setWindow(view.full.slice(), { from: "user" })],
    [zoomSel, "click", () => actions.zoomToSelection()],
    [chip, "click", () => actions.setFilter({})],
    [search, "keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); runSearch(e.shiftKey ? -1 : 1); } }],
  ];
  for (const [target, name, handler] of listeners) target.addEventListener(name, handler);
  describe();
  announce();

  function describe() {
    const texts = toolbarTexts(view.model, view.meta);
    title.textContent = texts.title;
    dropped.style.display = texts.dropped ? "" : "none";
    dropped.textContent = texts.dropped;
  }

  function announce() {
    const state = store.get(), toMs = (t) => t * view.model.unitMs;
    root.dataset.rlvizSelected = String(view.selectedId());
    root.dataset.rlvizWindow = `${formatMs(toMs(state.window[0]))},${formatMs(toMs(state.window[1]))}`;
    root.dataset.rlvizSkipNotReady = String(state.skipNotReady);
    root.dataset.rlvizHideOthers = String(state.hideOthers);
    root.dataset.rlvizMatches = String(state.matches ? state.matches.length : 0);
    skipBox.checked = state.skipNotReady;
    hideBox.checked = state.hideOthers;
    const showing = filterChipText(state.filter);
    chip.style.display = showing ? "" : "none";
    if (showing) {
      setIconLabel(chip, "close", showing);          // the page draws the close mark: no font glyph
      chip.title = "click to show every op and lane";
    }
  }

  function togglePlay() {
    if (playing) {
      clearInterval(playing);
      playing = null;
      setIconLabel(play, "play", "Play");
      return;
    }
    setIconLabel(play, "pause", "Pause");
    playing = setInterval(() => { if (actions.step(1) < 0) togglePlay(); }, PLAY_MS);
  }

  /** The hits of the query in the box (searched once per query), every one highlighted, their count shown. */
  function hitsOf(query) {
    if (!searched || searched.query !== query) {
      searched = { query, hits: query.trim() ? actions.search(query) : new Uint32Array(0) };
      actions.setMatches(searched.hits);
      count.textContent = searchCountText(query, searched.hits, stepped.query === query ? stepped.event : -1);
    }
    return searched.hits;
  }

  function highlight() {
    clearTimeout(typing);
    hitsOf(search.value);
    if (!search.value.trim()) status.textContent = "";
  }

  function runSearch(direction) {
    const query = search.value;
    const hits = hitsOf(query);
    if (!query.trim()) { status.textContent = ""; return; }
    if (hits.length === 0) { status.textContent = `no call matches "${query}"`; return; }
    stepped = { query, event: actions.searchStep(hits, direction) };
    status.textContent = "";
    count.textContent = searchCountText(query, hits, stepped.event);
  }

  return {
    update(changed) {
      if (changed.has("filter") || changed.has("data")) {
        const again = searched !== null;
        searched = null;
        if (again) { clearTimeout(typing); typing = setTimeout(highlight, 0); }   // the hits follow the filter
      }
      if (changed.has("data") || changed.has("rows")) describe();
      if (["selected", "selectedId", "window", "filter", "skipNotReady", "hideOthers", "matches", "data"].some((key) => changed.has(key))) announce();
      if (changed.has("error")) {
        const message = store.get().error;
        banner.textContent = message || "";
        banner.style.display = message ? "" : "none";
      }
      if (changed.has("damaged")) {
        damaged.textContent = store.get().damaged;
        if (damaged.textContent) banner.after(damaged); else damaged.remove();
      }
    },
    destroy() {
      if (playing) clearInterval(playing);
      clearTimeout(typing);
      for (const [target, name, handler] of listeners) target.removeEventListener(name, handler);
      bar.remove();
      banner.remove();
      damaged.remove();
      dropped.remove();
    },
  };
}
