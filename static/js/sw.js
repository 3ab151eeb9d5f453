// The service worker of the referee's table pages (served at /sw.js, registered by
// static/js/table.js with the scope /). A table page — a referee's, or the players' link of a
// table (/play/…/) — and the static files it uses are kept
// on the phone as last loaded, so that a reload or a reopened tab with no connection still
// shows the table; the taps made then wait in the page's own queue (localStorage) until they
// can be sent. Network first: the kept copy is only used when the network fails, so a page
// opened online is always fresh. Only GETs are looked at: a POST is never kept or answered.
"use strict";
var CACHE = "guandan-table-pages-v1";
var TABLE_PAGE = /^\/(t\/[^/]+\/[^/]+\/tables\/\d+|play\/[0-9a-f-]+)\/$/;

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) {
  // Drop what an older version of this worker kept, and take over the open pages at once.
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name !== CACHE && name.indexOf("guandan-table-pages") === 0;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

// What may be kept: this site's table pages and static files, nothing else.
function ours(url, test) {
  var u = new URL(url, self.location.href);
  return u.origin === self.location.origin && test(u.pathname);
}
function isTablePage(path) { return TABLE_PAGE.test(path); }
function isStatic(path) { return path.indexOf("/static/") === 0; }
// Only a whole, plain answer is kept: no error, no redirect (a browser refuses a redirected
// answer to a navigation), nothing opaque.
function whole(response) {
  return response.ok && response.type === "basic" && !response.redirected;
}
function fetchAndKeep(cache, url) {
  return fetch(url, { credentials: "same-origin" }).then(function (response) {
    return whole(response) ? cache.put(url, response) : null;
  }).catch(function () { return null; });
}

// A table page, once loaded, sends the files it uses (and asks for itself to be fetched
// again when this worker did not answer its loading, e.g. on the first visit). What is not
// kept yet is fetched and kept; the page is told (event.ports[0]) whether it is now kept.
self.addEventListener("message", function (event) {
  var page = event.source && event.source.url;
  var data = event.data || {};
  if (!page || !ours(page, isTablePage)) { return; }
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    var files = (data.files || []).filter(function (url) { return ours(url, isStatic); });
    return Promise.all(files.map(function (url) {
      return cache.match(url).then(function (hit) { return hit || fetchAndKeep(cache, url); });
    }).concat([data.fetchPage ? fetchAndKeep(cache, page) : null])).then(function () {
      return cache.match(page, { ignoreVary: true });
    }).then(function (hit) {
      if (event.ports[0]) { event.ports[0].postMessage(!!hit); }
    });
  }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  // htmx's own GETs (a panel polled at the page's address) are not whole pages: never kept.
  if (request.method !== "GET" || request.headers.get("HX-Request")) { return; }
  var page = request.mode === "navigate" && ours(request.url, isTablePage);
  if (!page && !ours(request.url, isStatic)) {
    return;  // everything else goes to the network as if there were no worker
  }
  event.respondWith(fetch(request).then(function (response) {
    if (whole(response)) {
      var copy = response.clone();
      // A table page is kept as now loaded; a static file is refreshed only if a table page
      // uses it (kept by the message above), so other pages' files are not stored.
      event.waitUntil(caches.open(CACHE).then(function (cache) {
        var kept = page ? Promise.resolve(true) : cache.match(request.url);
        return kept.then(function (yes) { return yes ? cache.put(request.url, copy) : null; });
      }));
    } else if (page && response.status < 500) {
      // The server no longer shows this table here (gone, moved, signed out): forget it.
      event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.delete(request.url); }));
    }
    return response;
  }, function () {
    // No network: the copy kept last, else the browser's own offline error.
    return caches.match(request.url, { ignoreVary: true }).then(function (hit) {
      return hit || Response.error();
    });
  }));
});
