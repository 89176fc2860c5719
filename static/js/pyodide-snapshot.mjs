// The interpreter module pyscript.toml names (docs/SPEED.md, "Returning
// visits"). PyScript imports it in place of Pyodide's pyodide.mjs, reads its
// `version` and calls its `loadPyodide({stdout, stderr, indexURL, …})`; all
// else ([files], the `pyscript` module, `when`, the DOM) stays PyScript's.
//
// On a returning visit this module restores Python from a memory snapshot
// made earlier on this device, instead of starting it (most of a start's
// two seconds). Without a usable snapshot it starts Python as before and,
// once the page is ready and idle, has a throw-away Worker make one.
// Any doubt — no service worker (so no single version of the files), another
// site version or Pyodide, bytes that fail their hash, a restore that
// throws, storage refused — means a normal start; a stale or failed
// snapshot is dropped and a fresh one made later. Never a mixed start: the
// snapshot is used whole or not at all, and it holds no page state (the
// history and saved setups live in localStorage and are read after either
// start).
//
// What the page shows: <body data-start="snapshot|fresh"
// data-start-reason="…"> (restored, or why not: none, stale, corrupt,
// failed, unreadable, no-worker), <body data-snapshot="…"> (that, then what
// became of making one: making, stored, refused, unstored, too-big, error,
// timeout), and a line in #start-info.
import { loadPyodide as startPyodide, version } from "../vendor/pyodide/pyodide.mjs";
import { PYODIDE_OPTIONS, STDLIB_SHA256 } from "./pyodide-config.mjs";
import * as store from "./snapshot-store.mjs";
import { unzip } from "./unzip.mjs";

export { version };

const INDEX_URL = new URL("../vendor/pyodide/", import.meta.url).href;
const WORKER_URL = new URL("./snapshot-worker.mjs", import.meta.url);
const MAKE_TIMEOUT_MS = 180_000;


// The precache version of the files this page is served from, asked of the
// service worker that serves them; null when none controls the page.
function siteVersion() {
  const sw = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (!sw) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), 3000);
    channel.port1.onmessage = (e) => {
      clearTimeout(timer);
      resolve(typeof e.data === "string" ? e.data : null);
    };
    sw.postMessage({ type: "version" }, [channel.port2]);
  });
}

// Look for a snapshot as soon as PyScript imports this module, so reading
// it overlaps PyScript's and Pyodide's own preparations.
async function look() {
  const site = await siteVersion();
  if (!site) return { reason: "no-worker" };
  const key = { site, pyodide: version, stdlib: STDLIB_SHA256 };
  let record;
  try {
    record = await store.read();
  } catch {
    return { key, reason: "unreadable" };
  }
  if (!record) return { key, reason: "none" };
  if (!store.sameKey(record.key, key)) {
    await store.drop();
    return { key, reason: "stale" };
  }
  const bytes = store.bytesOf(record);
  bytes.then(() => performance.mark("dice:snapshot-read"), () => {});  // a rejection is handled where loadPyodide awaits it
  return { key, record, bytes };
}

performance.mark("dice:interpreter-module");
const found = look().catch(() => ({ reason: "unreadable" }));

function withModule(py, name, fn) {
  const module = py.pyimport(name);
  try {
    return fn(module);
  } finally {
    module.destroy();
  }
}

// What must run after a restore (static/py/shell/snapshot.py `after_restore`), and
// the proof that the memory restored is the snapshot of this key.
function finishRestore(py, key) {
  const madeFor = withModule(py, "shell.snapshot", (m) => m.after_restore());
  if (madeFor !== store.label(key)) throw new Error(`the snapshot was made for "${madeFor}"`);
}

// PyScript unpacks the [files] zips with the interpreter's unpackArchive
// (Python's zipfile, file by file, while the page waits); here the browser
// inflates them (static/js/unzip.mjs), or Pyodide as before if it cannot.
// The bytecode zip (static/pycache.zip, .ci/pycache.py) is for a start that
// imports our modules: a restored interpreter has them all imported, so
// it takes from that one (known by its comment) only PyScript's own
// package's bytecode, which every start imports; any other archive whole.
const BYTECODE = new TextEncoder().encode("dice-table bytecode");
const PYSCRIPT = (name) => name.startsWith("pyscript/");

function unpackHere(py, restored) {
  const unpack = py.unpackArchive.bind(py);
  py.unpackArchive = (buffer, format, options = {}) => {
    if (format !== "zip") return unpack(buffer, format, options);
    const bytes = new Uint8Array(buffer.buffer ?? buffer, buffer.byteOffset ?? 0, buffer.byteLength);
    const skim = restored && bytes.subarray(-BYTECODE.length).every((b, i) => b === BYTECODE[i]);
    const dir = options.extractDir || ".";
    const to = dir.startsWith("/") ? dir : `${py.FS.cwd()}/${dir}`.replace(/\/(\.\/)+|\/\.$/g, "/").replace(/\/+$/, "");
    return unzip(py.FS, bytes, to, skim ? PYSCRIPT : undefined)
      .catch(() => (skim ? undefined : unpack(buffer, format, options)));
  };
}

export async function loadPyodide(options = {}) {
  // Our standard library (.ci/stdlib.py) and no lock file to fetch.
  const config = { ...options, indexURL: INDEX_URL, ...PYODIDE_OPTIONS };
  const look = await found;
  let reason = look.reason;
  if (look.bytes) {
    try {
      const py = await startPyodide({ ...config, _loadSnapshot: look.bytes });
      // The 31.5 MB of bytes are in the heap now: let them go (Pyodide keeps its config).
      look.bytes = null;
      if (py._api && py._api.config) delete py._api.config._loadSnapshot;
      finishRestore(py, look.key);
      unpackHere(py, true);
      performance.mark("dice:python-restored");
      show("snapshot", "restored", look.record);
      // The odds Worker restores from the same snapshot (static/js/odds-worker.mjs).
      globalThis.diceSnapshotKey = look.key;
      return py;
    } catch (e) {
      look.bytes = null;
      reason = /hash|format|truncated|trailing/.test(String(e && e.message)) ? "corrupt" : "failed";
      // A restore that fails twice for one version would fail every time.
      if (reason === "failed") declined(look.key.site, declined(look.key.site) ? "failed" : "failed-once");
      await store.drop();
    }
  }
  const py = await startPyodide(config);
  unpackHere(py, false);
  performance.mark("dice:python-started");
  show("fresh", reason);
  if (reason !== "unreadable") makeLater(py, look.key).catch((e) => setState("error", String(e && e.message)));
  return py;
}

// ---- what the page shows -------------------------------------------------

const STATE_TEXT = {
  restored: (r) => `from the snapshot this device saved (${mb(r.stored)} MB)`,
  making: () => "saving a snapshot of it on this device, for faster starts…",
  stored: (a) => `a snapshot (${mb(a.stored)} MB) is saved on this device: the next start is faster`,
  refused: () => "this device refused the storage for a snapshot, so Python starts normally",
  "too-big": () => "its memory is too big for a snapshot, so Python starts normally",
  failed: () => "a snapshot failed to restore twice, so Python starts normally",
};
const mb = (n) => (n / 1e6).toFixed(1);
const shown = { line: "", state: "", detail: undefined };

function whenReady() {
  return new Promise((resolve) => {
    if (document.body.hasAttribute("data-ready")) return resolve();
    const obs = new MutationObserver(() => {
      if (document.body.hasAttribute("data-ready")) {
        obs.disconnect();
        resolve();
      }
    });
    obs.observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
  });
}

function render() {
  const info = document.getElementById("start-info");
  if (!info || !shown.line) return;
  const say = STATE_TEXT[shown.state];
  info.textContent = shown.line + (say ? `; ${say(shown.detail)}.` : ".");
}

function setState(state, detail) {
  document.body.dataset.snapshot = state;
  Object.assign(shown, { state, detail });
  render();
}

function show(start, state, record) {
  document.body.dataset.start = start;
  document.body.dataset.startReason = state;
  setState(state, record);
  whenReady().then(() => {
    shown.line = `Python started in ${(performance.now() / 1000).toFixed(1)} s`;
    render();
  });
}

// ---- making one ----------------------------------------------------------

const idle = () => new Promise((resolve) =>
  ("requestIdleCallback" in window ? requestIdleCallback(resolve, { timeout: 3000 }) : setTimeout(resolve, 500)));

// The key once a service worker controls the page (on a first visit, after
// sw-register.js has installed it).
async function controlledKey() {
  const sw = navigator.serviceWorker;
  if (!sw || !window.isSecureContext) return null;
  if (!sw.controller) await new Promise((resolve) => sw.addEventListener("controllerchange", resolve, { once: true }));
  const site = await siteVersion();
  return site ? { site, pyodide: version, stdlib: STDLIB_SHA256 } : null;
}

function runWorker(message) {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_URL, { type: "module", name: "snapshot" });
    const done = (answer) => {
      clearTimeout(timer);
      worker.terminate();
      resolve(answer);
    };
    const timer = setTimeout(() => done({ ok: false, reason: "timeout" }), MAKE_TIMEOUT_MS);
    worker.onmessage = (e) => done(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      done({ ok: false, reason: "error", message: e.message });
    };
    worker.postMessage(message);
  });
}

// A snapshot the device refused to store, one too big to restore, or one
// whose restore failed twice, is not made again for the same site version
// (making one costs seconds of CPU); a new version tries again.
const DECLINED = "dice-table/snapshot-declined";
const REMEMBERED = ["refused", "too-big"];
const GIVE_UP = [...REMEMBERED, "failed"];

function declined(site, reason) {
  try {
    if (reason) localStorage.setItem(DECLINED, JSON.stringify({ site, reason }));
    const seen = JSON.parse(localStorage.getItem(DECLINED) || "null");
    return seen && seen.site === site ? seen.reason : null;
  } catch {
    return null;
  }
}

async function makeLater(py, key) {
  await whenReady();
  key = key || (await controlledKey());
  if (!key) return;
  const before = declined(key.site);
  if (GIVE_UP.includes(before)) {
    setState(before);
    return;
  }
  await idle();
  performance.mark("dice:snapshot-making");
  setState("making");
  const plan = JSON.parse(withModule(py, "shell.snapshot", (m) => m.plan()));
  const contents = plan.files.map((path) => py.FS.readFile(path));
  const answer = await runWorker({ key, plan, contents });
  performance.mark("dice:snapshot-done");
  window.diceSnapshot = answer;  // for tests/benchmark.py: sizes and the time it took
  if (REMEMBERED.includes(answer.reason)) declined(key.site, answer.reason);
  setState(answer.ok ? "stored" : answer.reason, answer);
}
