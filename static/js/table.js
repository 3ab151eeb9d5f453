// The referee's table page: when the network drops, say plainly that the last entry is
// not saved and resend it until it is. Each form carries an idempotency key, so a resend
// that reaches the server twice is recorded once.
(function () {
  "use strict";
  var pending = null;

  function banner(show) {
    var el = document.querySelector(".unsaved");
    if (el) { el.hidden = !show; }
  }

  document.body.addEventListener("htmx:configRequest", function (evt) {
    var form = evt.detail.elt && evt.detail.elt.closest && evt.detail.elt.closest("form.retry");
    if (form) {
      pending = { url: evt.detail.path, values: Object.assign({}, evt.detail.parameters) };
    }
  });

  function retry() {
    if (!pending) { return; }
    banner(true);
    window.setTimeout(function () {
      htmx.ajax("POST", pending.url, { values: pending.values, target: "#table-panel", swap: "outerHTML" });
    }, 3000);
  }

  document.body.addEventListener("htmx:sendError", retry);
  document.body.addEventListener("htmx:timeout", retry);
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    if (evt.detail.successful || (evt.detail.xhr && evt.detail.xhr.status === 422)) {
      pending = null;
      banner(false);
    }
  });
})();
