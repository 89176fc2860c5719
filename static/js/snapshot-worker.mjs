// Makes the page's Python memory snapshot, away from the page (docs/SPEED.md).
// A throw-away module Worker: an interpreter loaded with _makeSnapshot cannot
// drive a page, and starting one takes seconds of CPU that must not block a
// roll. The page (pyodide-snapshot.mjs) sends its plan: the files its own
// Python start wrote, the modules to import and the key; this worker starts
// Python, writes and imports them (static/py/shell/snapshot.py `prepare`), takes
// the snapshot, stores it, answers, and is terminated.
//
// Message in:  { key: {site, pyodide}, plan: {cwd, modules, files}, contents: [Uint8Array] }
// Message out: { ok: true, raw, stored, makeMs, failed } or { ok: false, reason, message }
import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
import { PYODIDE_OPTIONS } from "./pyodide-config.mjs";
import * as store from "./snapshot-store.mjs";

const INDEX_URL = new URL("../vendor/pyodide/", import.meta.url).href;
const quiet = () => {};

function writeFiles(py, plan, contents) {
  plan.files.forEach((path, i) => {
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")) || "/");
    py.FS.writeFile(path, contents[i]);
  });
  py.FS.chdir(plan.cwd);
}

async function make({ key, plan, contents }) {
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL: INDEX_URL, ...PYODIDE_OPTIONS, _makeSnapshot: true, stdout: quiet, stderr: quiet });
  const heap = py._module.HEAP8.length;
  writeFiles(py, plan, contents);
  const label = store.label(key);
  const module = py.pyimport("shell.snapshot");
  let failed;
  try {
    failed = JSON.parse(module.prepare(JSON.stringify(plan.modules), label));
  } finally {
    module.destroy();
  }
  // Pyodide restores into its default heap (INITIAL_MEMORY is not honoured,
  // pyodide/pyodide#6254): a snapshot of a heap that grew would not restore.
  if (py._module.HEAP8.length !== heap) {
    return { ok: false, reason: "too-big", message: `the heap grew to ${py._module.HEAP8.length} bytes` };
  }
  const raw = py.makeMemorySnapshot();
  const blob = store.pack(raw);
  const record = {
    key: { ...key, build: py._api.config.BUILD_ID },
    sha256: await store.sha256(await blob.arrayBuffer()),
    raw: raw.byteLength,
    stored: blob.size,
    made: Date.now(),
    makeMs: Math.round(performance.now() - t0),
    blob,
  };
  try {
    await store.write(record);
  } catch (e) {
    const quota = e && e.name === "QuotaExceededError";
    return { ok: false, reason: quota ? "refused" : "unstored", message: String(e && e.message) };
  }
  return { ok: true, raw: record.raw, stored: record.stored, makeMs: record.makeMs, failed };
}

self.onmessage = async ({ data }) => {
  let answer;
  try {
    answer = await make(data);
  } catch (e) {
    answer = { ok: false, reason: "error", message: String(e && e.message) };
  }
  self.postMessage(answer);
};
