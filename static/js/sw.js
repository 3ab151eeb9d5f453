// The service worker of the table pages: a table's page and the files it uses are kept on
// the phone as they were last loaded, so the page opens with no connection (a hall's Wi-Fi
// dropped, the phone reloaded it); the taps made then wait in the page's own queue
// (static/js/table.js) until they can be sent. Everything else goes to the network as usual.
"use strict";
var CACHE = "guandan-table-pages-v1";
var TABLE_PAGE = /^\/t\/[^/]+\/[^/]+\/tables\/\d+\/$/;

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

// A table page asks to be kept, with the files it uses.
self.addEventListener("message", function (event) {
  var urls = (event.data && event.data.keep) || [];
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(urls.map(function (url) {
      return fetch(url, { credentials: "same-origin" }).then(function (response) {
        return response.ok ? cache.put(url, response) : null;
      }).catch(function () { return null; });
    }));
  }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") { return; }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin || request.headers.get("HX-Request")) { return; }
  if (!TABLE_PAGE.test(url.pathname) && url.pathname.indexOf("/static/") !== 0) { return; }
  event.respondWith(
    fetch(request).then(function (response) {
      if (response.ok) {
        var copy = response.clone();
        caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
      }
      return response;
    }).catch(function () {
      return caches.match(request, { ignoreVary: true }).then(function (hit) {
        return hit || Response.error();
      });
    })
  );
});
