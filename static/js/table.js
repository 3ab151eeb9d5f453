// The table page: every tap (a deal, a game, a point, time up …) goes into a queue kept on
// this phone (localStorage, so a reload or a locked screen keeps it) and is sent in the order
// it was tapped. Each tap has its own idempotency key and the version the table will have
// reached by the taps before it, so a queue from one phone goes in whole, a resend is
// recorded once, and a change made elsewhere meanwhile is still caught: then sending stops,
// and the waiting taps stay for the referee or players to send again or drop.
(function () {
  "use strict";
  var panelSelector = "#table-panel";
  var store = "guandan-table-queue:" + window.location.pathname;
  var sending = false;
  var stopped = false;
  var counter = 0;

  function load() {
    try { return JSON.parse(window.localStorage.getItem(store) || "[]"); } catch (e) { return []; }
  }
  function save(queue) {
    try { window.localStorage.setItem(store, JSON.stringify(queue)); } catch (e) { /* full: kept in memory below */ }
    memory = queue;
  }
  var memory = load();
  function queue() { return window.localStorage ? load() : memory; }

  function banner() {
    var el = document.querySelector(".tap-queue");
    if (!el) { return; }
    var waiting = queue().length;
    el.hidden = waiting === 0;
    if (!waiting) { return; }
    var text = (stopped ? el.dataset.stopped : el.dataset.waiting) || "";
    el.querySelector(".tap-queue-text").textContent = text.replace("%(n)s", String(waiting));
    el.querySelector(".tap-queue-actions").hidden = !stopped;
  }

  function panelVersion() {
    var panel = document.querySelector(panelSelector);
    return panel ? parseInt(panel.dataset.version || "0", 10) : 0;
  }

  function swap(html) {
    var panel = document.querySelector(panelSelector);
    if (!panel) { return; }
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var fresh = holder.querySelector(panelSelector) || holder.firstElementChild;
    if (!fresh) { return; }
    if (fresh.dataset.follows !== undefined) {
      // A deal answered in part (scoring/deal_answer.html): only what it changed.
      if (!update(panel, fresh)) { reload(panel, fresh.dataset.version); }
      return;
    }
    panel.replaceWith(fresh);
    if (window.htmx) { window.htmx.process(fresh); }
  }

  // Put a deal's parts in place of the page's own — the message, the calls, the board, the
  // reports' count — add the record's new lines and take the new version. Only on the page
  // it follows (the version before the deal): false for any other, which loads its panel.
  function update(panel, fresh) {
    var parts = Array.prototype.slice.call(fresh.querySelectorAll("[data-part]"));
    var added = fresh.querySelector("[data-added]");
    var list = panel.querySelector(".history-list");
    if (panel.dataset.version !== fresh.dataset.follows || (added && !list)) { return false; }
    if (parts.some(function (part) { return !panel.querySelector("#" + part.id); })) { return false; }
    parts.forEach(function (part) {
      panel.querySelector("#" + part.id).replaceWith(part);
      if (window.htmx) { window.htmx.process(part); }
    });
    if (added) { list.prepend.apply(list, Array.prototype.slice.call(added.children)); }
    // As the whole panel comes after a deal: its forms as rendered, its folded parts shut.
    panel.querySelectorAll("form").forEach(function (form) { form.reset(); });
    panel.querySelectorAll("details[open]").forEach(function (folded) { folded.open = false; });
    panel.dataset.version = fresh.dataset.version;
    panel.dataset.over = fresh.dataset.over;
    panel.querySelectorAll("input[name=version]").forEach(function (input) {
      input.value = fresh.dataset.version;
    });
    return true;
  }

  // The panel as the server has it now (the page's own address answers htmx with it).
  function reload(panel, version) {
    panel.dataset.version = version;  // the taps still waiting follow the deal just made
    window.fetch(window.location.pathname, {
      credentials: "same-origin",
      headers: { "HX-Request": "true" }
    }).then(function (response) {
      return response.ok ? response.text().then(swap) : null;
    }).catch(function () { /* offline: the next answer brings the panel */ });
  }

  function csrf() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function pump() {
    var waiting = queue();
    if (sending || stopped || !waiting.length) { banner(); return; }
    sending = true;
    banner();
    var tap = waiting[0];
    var body = new URLSearchParams(tap.values);
    body.set("key", tap.key);
    body.set("version", String(tap.version));
    window.fetch(tap.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": csrf() }
    }).then(function (response) {
      return response.text().then(function (html) {
        sending = false;
        if (response.ok) {
          swap(html);
          // The rest follow from the version this write left (a change made elsewhere after
          // it is still caught by the next tap's version).
          var base = panelVersion();
          save(queue().slice(1).map(function (t, i) { t.version = base + i; return t; }));
          pump();
        } else if (response.status === 422 && response.headers.get("X-Table-Error") !== "stale") {
          // Refused for what it says (an impossible score …): the page shows why; this tap is
          // dropped, the ones after it follow from the version the page shows.
          swap(html);
          var from = panelVersion();
          save(queue().slice(1).map(function (t, i) { t.version = from + i; return t; }));
          pump();
        } else if (response.status === 422 || response.status === 409 || response.status === 403) {
          stopped = true;  // the table changed elsewhere, or may not be entered: people decide
          swap(html);
          banner();
        } else {
          window.setTimeout(pump, 3000);  // a server error: try again
          banner();
        }
      });
    }).catch(function () {
      sending = false;
      banner();
      // Offline: try again when the phone says it is back (and every few seconds, since a
      // hall's Wi-Fi can drop without the phone noticing).
      window.setTimeout(pump, navigator.onLine === false ? 10000 : 3000);
    });
  }

  document.body.addEventListener("htmx:configRequest", function (evt) {
    var elt = evt.detail.elt;
    var form = elt && elt.closest && elt.closest("form.retry");
    if (!form || !form.closest(panelSelector)) { return; }
    evt.preventDefault();  // this tap goes through the queue instead
    var values = {};
    var params = evt.detail.parameters;
    if (params && typeof params.forEach === "function") {
      params.forEach(function (value, name) { values[name] = value; });
    } else {
      Object.keys(params || {}).forEach(function (name) { values[name] = params[name]; });
    }
    delete values.csrfmiddlewaretoken;
    var waiting = queue();
    var last = waiting[waiting.length - 1];
    counter += 1;
    waiting.push({
      url: evt.detail.path,
      values: values,
      key: (values.key || "tap") + "." + Date.now().toString(36) + "." + counter,
      version: last ? last.version + 1 : panelVersion()
    });
    save(waiting);
    pump();
  });

  document.body.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest("[data-tap-queue]");
    if (!button) { return; }
    if (button.dataset.tapQueue === "drop") {
      save([]);
    } else if (button.dataset.tapQueue === "again") {
      // Re-base the waiting taps on the version the page shows now.
      var base = panelVersion();
      save(queue().map(function (tap, i) { tap.version = base + i; return tap; }));
    }
    stopped = false;
    pump();
  });

  window.addEventListener("online", pump);
  pump();

  // Open offline (static/js/sw.js): the service worker keeps this page and the files it uses,
  // so that a reload with no connection still shows the table and the taps above still wait.
  // Once it has kept them, <body data-offline-ready> says so.
  var worker = document.body.dataset.serviceWorker;
  if (worker && "serviceWorker" in navigator && window.MessageChannel) {
    // Loaded without the worker (the first visit): it fetches this page again to keep it.
    var fetchPage = !navigator.serviceWorker.controller;
    navigator.serviceWorker.register(worker, { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      var files = [];
      document.querySelectorAll("script[src], link[rel=stylesheet], link[rel=icon]").forEach(function (el) {
        files.push(el.src || el.href);
      });
      var reply = new MessageChannel();
      reply.port1.onmessage = function (evt) {
        if (evt.data === true) { document.body.dataset.offlineReady = ""; }
      };
      registration.active.postMessage({ files: files, fetchPage: fetchPage }, [reply.port2]);
    }).catch(function () { /* no service worker: the queue still keeps the taps */ });
  }
})();
