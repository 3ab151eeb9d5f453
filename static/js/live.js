// Live pages poll with htmx. Each poll sends the ETag of the last answer it got for that
// URL (If-None-Match), so the server answers 304 without rendering anything while the
// event has not changed, and a 304 leaves the page as it is (see htmx-config in base.html).
(function () {
  "use strict";
  var etags = {};

  document.addEventListener("htmx:configRequest", function (evt) {
    var path = evt.detail.path;
    if (evt.detail.verb === "get" && path && etags[path]) {
      evt.detail.headers["If-None-Match"] = etags[path];
    }
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail.xhr;
    var config = evt.detail.requestConfig;
    if (!xhr || !config || config.verb !== "get") { return; }
    var tag = xhr.getResponseHeader("ETag");
    if (tag && (xhr.status === 200 || xhr.status === 304)) { etags[config.path] = tag; }
  });
})();
