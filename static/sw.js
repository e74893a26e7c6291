/* Scorepad's service worker, served as /sw.js (scope: the whole site) after a line
 *   const CONFIG = {version, precache: [urls], offline: url, static: "/static/"};
 * written by scorepad/web/pwa.py.
 *
 * - The static assets and the offline page are kept in a cache named after the version
 *   (a hash of the static files and the offline page), so a deploy with new assets or a new
 *   offline text replaces the cache.
 * - Static assets: from the cache, else the network (and kept).
 * - Pages: always from the network (they hold live scores); when the network fails, the
 *   offline page.
 * - Everything else (taps, fragments, posts) goes to the network untouched: a failed tap is
 *   queued and retried by static/scorepad.js, never answered from a cache.
 */
/* global CONFIG */
"use strict";

var CACHE = "scorepad-" + CONFIG.version;

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) {
      return cache.addAll(CONFIG.precache.map(function (url) {
        return new Request(url, { cache: "reload" });
      }));
    }).then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("scorepad-") === 0 && name !== CACHE;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function fromCacheFirst(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request, { ignoreSearch: true }).then(function (hit) {
      if (hit) { return hit; }
      return fetch(request).then(function (resp) {
        if (resp.ok) { cache.put(request, resp.clone()); }
        return resp;
      });
    });
  });
}

function pageOrOffline(request) {
  return fetch(request).catch(function () {
    return caches.match(CONFIG.offline).then(function (page) {
      return page || new Response("offline", { status: 503, headers: { "Content-Type": "text/plain" } });
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") { return; }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) { return; }
  if (url.pathname.indexOf(CONFIG.static) === 0) {
    event.respondWith(fromCacheFirst(request));
  } else if (request.mode === "navigate") {
    event.respondWith(pageOrOffline(request));
  }
});
