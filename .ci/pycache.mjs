// Write static/pycache.zip: the sources and compiled bytecode of the Python
// the page imports before it is ready, made by the vendored Pyodide
// (.ci/pycache.py). PyScript unpacks it ([files] "./static/pycache.zip" =
// "./*"), so a first visit fetches them as one file and does not compile
// them (docs/SPEED.md). Generated, never committed; .ci/precache.mjs runs
// it, so it is as fresh as the precache list. The page's files are laid out
// as PyScript writes them: rules/ as rules/, static/py/ at the top.
// Usage: node .ci/pycache.mjs [site folder]
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const PYCACHE = "static/pycache.zip";
/** The page files read after ready, sources only (.ci/pycache.py build_later). */
export const LATER = "static/later.zip";
/** Where each folder of page files lands in the interpreter's working directory. */
export const LAYOUT = [["rules", "rules"], ["static/py", "."]];

/** The page's Python and data files under ``dir`` (each game's folder
 * within rules/ too), as paths relative to it; main.py is not one. */
export function pageFiles(dir, sub = "") {
  const out = [];
  for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
    const rel = sub ? `${sub}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (e.name !== "__pycache__") out.push(...pageFiles(dir, rel));
    } else if (/\.(py|json)$/.test(e.name) && rel !== "main.py") out.push(rel);
  }
  return out;
}

export async function buildPycache(root) {
  const pyodideDir = join(root, "static/vendor/pyodide") + "/";
  const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, "pyodide.mjs")).href);
  const py = await loadPyodide({ indexURL: pyodideDir, stdout: () => {}, stderr: (s) => process.stderr.write(s + "\n") });
  const cwd = "/home/pyodide";
  for (const [from, to] of LAYOUT) {
    for (const f of pageFiles(join(root, from))) {
      py.FS.mkdirTree(posix.dirname(`${cwd}/${to}/${f}`));
      py.FS.writeFile(`${cwd}/${to}/${f}`, readFileSync(join(root, from, f)));
    }
  }
  py.FS.writeFile("/tmp/main.py", readFileSync(join(root, "static/py/main.py")));
  py.runPython(readFileSync(join(here, "pycache.py"), "utf8"));
  const bytes = py.runPython("build('/tmp/main.py')").toJs();
  writeFileSync(join(root, PYCACHE), bytes);
  const later = py.runPython("build_later('/tmp/main.py')").toJs();
  writeFileSync(join(root, LATER), later);
  return bytes.length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = process.argv[2] ? resolve(process.argv[2]) : join(here, "..");
  const n = await buildPycache(root);
  console.log(`${PYCACHE}: ${(n / 1e3).toFixed(0)} kB`);
}
