// The floor's service worker: the least a precaching worker does. It caches
// what the floor page loads — Pyodide's runtime as vendored (its own
// standard library and lock file, which the app replaces) and the PyScript
// files the app's generated static/precache.js lists — plus the floor's
// own files, and serves them cache-first. No version checks: it only
// exists to be measured against.
importScripts("../../static/precache.js");
const ROOT = new URL("../../", self.location);
const PYODIDE = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
  .map((f) => new URL(`./static/vendor/pyodide/${f}`, ROOT).href);
const FILES = self.PRECACHE.files.filter((f) => f.url.startsWith("./static/vendor/pyscript/"))
  .map((f) => new URL(f.url, ROOT).href)
  .concat(PYODIDE)
  .concat(["./", "./index.html", "./floor.py", "./floor.toml", "./register.js"].map((f) => new URL(f, self.location).href));
const CACHE = "floor-" + self.PRECACHE.version;
self.addEventListener("install", (e) => e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES))));
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (e) => {
  if (e.request.method !== "GET") return;
  e.respondWith(caches.match(e.request, { ignoreSearch: true }).then((r) => r || fetch(e.request)));
});
