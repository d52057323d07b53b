/* Search on a page opened from disk (file://).
 *
 * Material's search runs lunr in a Web Worker, and browsers refuse to start a worker from a file:// page
 * (Chromium: "Script at 'file:///…' cannot be accessed from origin 'null'"), so Material hides the search box.
 * Opened from disk, this file gives the page a Worker that runs the worker's script in a hidden frame of the
 * page instead (the approach of the iframe-worker package Material's offline plugin names; that package is
 * loaded from a CDN, this copy from the site).  Material's offline plugin writes search/search_index.js,
 * which the page loads with a script tag.  Served over http(s), nothing here runs.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:") return;

  class FrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._pending = [];
      this._frame = document.createElement("iframe");
      this._frame.hidden = true;
      this._frame.title = "search";
      (document.body || document.documentElement).appendChild(this._frame);
      const scope = this._frame.contentWindow;
      this._scope = scope;
      scope.postMessage = (data) => setTimeout(() => this._deliver("message", data));
      scope.importScripts = (...urls) => urls.reduce((done, next) => done.then(() => load(scope, next)),
                                                     Promise.resolve());
      load(scope, new URL(url, location.href).href).then(() => {
        this._loaded = true;
        this._pending.splice(0).forEach((data) => this.postMessage(data));
      }, (error) => this._deliver("error", error));
    }

    postMessage(data) {
      if (!this._loaded) {
        this._pending.push(data);
        return;
      }
      setTimeout(() => this._scope.dispatchEvent(new this._scope.MessageEvent("message", { data })));
    }

    terminate() {
      this._frame.remove();
    }

    _deliver(type, data) {
      const event = type === "message" ? new MessageEvent("message", { data }) : new ErrorEvent("error", { error: data });
      const handler = type === "message" ? this.onmessage : this.onerror;
      if (handler) handler.call(this, event);
      this.dispatchEvent(event);
    }
  }

  function load(scope, url) {
    return new Promise((resolve, reject) => {
      const script = scope.document.createElement("script");
      script.src = url;
      script.onload = resolve;
      script.onerror = () => reject(new Error(`search: could not load ${url}`));
      scope.document.head.appendChild(script);
    });
  }

  window.Worker = FrameWorker;
})();
