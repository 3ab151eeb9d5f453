// Live pages poll with htmx. Each poll sends the ETag of the last answer it got for that
// region (If-None-Match), so the server answers 304 without rendering anything while the
// event has not changed, and a 304 leaves the page as it is (see htmx-config in base.html).
(function () {
  "use strict";
  var etags = {};

  function key(evt) {
    var elt = evt.detail.elt;
    return elt && elt.getAttribute ? elt.getAttribute("hx-get") : null;
  }

  document.addEventListener("htmx:configRequest", function (evt) {
    var k = key(evt);
    if (evt.detail.verb === "get" && k && etags[k]) {
      evt.detail.headers["If-None-Match"] = etags[k];
    }
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail.xhr;
    var k = key(evt);
    if (!xhr || !k) { return; }
    var tag = xhr.getResponseHeader("ETag");
    if (tag && (xhr.status === 200 || xhr.status === 304)) { etags[k] = tag; }
  });
})();
