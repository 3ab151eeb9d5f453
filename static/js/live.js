// Live pages poll with htmx. Each poll sends the ETag of the last answer it got for that
// URL (If-None-Match), so the server answers 304 without rendering anything while the
// event has not changed, and a 304 leaves the page as it is (see htmx-config in base.html).
//
// An element that fetches its content when it appears (hx-trigger "load": the projector's
// 团体总分 slide) starts empty: its first request is sent without an ETag, or a 304 would
// leave it empty — and it appears anew each time the element around it is replaced.
(function () {
  "use strict";
  var etags = {};
  var filled = new WeakSet();

  function startsEmpty(elt) {
    var trigger = elt && elt.getAttribute && elt.getAttribute("hx-trigger");
    return !!trigger && /(^|[\s,])load([\s,]|$)/.test(trigger) && !filled.has(elt);
  }

  document.addEventListener("htmx:configRequest", function (evt) {
    var path = evt.detail.path;
    if (evt.detail.verb === "get" && path && etags[path] && !startsEmpty(evt.detail.elt)) {
      evt.detail.headers["If-None-Match"] = etags[path];
    }
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail.xhr;
    var config = evt.detail.requestConfig;
    if (!xhr || !config || config.verb !== "get") { return; }
    var tag = xhr.getResponseHeader("ETag");
    if (tag && (xhr.status === 200 || xhr.status === 304)) { etags[config.path] = tag; }
    if (xhr.status === 200 && evt.detail.elt) { filled.add(evt.detail.elt); }
  });
})();
