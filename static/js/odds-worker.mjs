// The odds beside the page (docs/SPEED.md, "Odds beside the page"): a
// second Python in a module Worker, so that no odds question ever holds up
// a tap, a scroll or a roll. The page (static/py/odds/oddsclient.py) starts it
// once it is ready and sends it the files its own start wrote, so nothing
// of ours is fetched again; Pyodide's runtime comes from the HTTP cache or
// the service worker, as for the snapshot Worker. Where the page itself was
// restored from the memory snapshot, this Worker restores from the same
// stored snapshot (checked against the key the page restored) and so starts
// in about the same fraction of a second.
//
// Message in:  { type: "start", cwd, files: [path], contents: [Uint8Array], key: {site, pyodide} | null }
//              then questions as JSON text (static/py/odds/oddswork.py `answer`)
// Message out: { type: "ready", start: "snapshot" | "fresh", ms, wasm } or { type: "failed", reason },
//              then one JSON text answer per question.
import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
import { PYODIDE_OPTIONS } from "./pyodide-config.mjs";
import * as store from "./snapshot-store.mjs";

const INDEX_URL = new URL("../vendor/pyodide/", import.meta.url).href;
const quiet = () => {};
let answer = null;

async function snapshotBytes(key) {
  if (!key) return null;
  try {
    const record = await store.read();
    return record && store.sameKey(record.key, key) ? await store.bytesOf(record) : null;
  } catch {
    return null;
  }
}

async function startPython(key) {
  const config = { indexURL: INDEX_URL, ...PYODIDE_OPTIONS, stdout: quiet, stderr: quiet };
  const bytes = await snapshotBytes(key);
  if (bytes) {
    try {
      const py = await loadPyodide({ ...config, _loadSnapshot: bytes });
      return { py, start: "snapshot" };
    } catch {
      // a refused restore: start afresh, as the page would
    }
  }
  return { py: await loadPyodide(config), start: "fresh" };
}

async function start({ cwd, files, contents, key }) {
  const t0 = performance.now();
  const { py, start } = await startPython(key);
  files.forEach((path, i) => {
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")) || "/");
    py.FS.writeFile(path, contents[i]);
  });
  py.FS.chdir(cwd);
  py.runPython(`import sys\nif ${JSON.stringify(cwd)} not in sys.path: sys.path.insert(0, ${JSON.stringify(cwd)})`);
  if (start === "snapshot") {
    const snap = py.pyimport("shell.snapshot");
    try {
      snap.after_restore();
    } finally {
      snap.destroy();
    }
  }
  const module = py.pyimport("odds.oddswork");
  answer = module.answer;
  return { type: "ready", start, ms: Math.round(performance.now() - t0), wasm: py._module.HEAP8.length };
}

self.onmessage = async ({ data }) => {
  if (typeof data === "string") {
    self.postMessage(answer(data));
    return;
  }
  try {
    self.postMessage(await start(data));
  } catch (e) {
    self.postMessage({ type: "failed", reason: String(e && e.message) });
  }
};
