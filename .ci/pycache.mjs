// Write static/pycache.zip: the sources and compiled bytecode of the Python
// the page imports before it is ready, made by the vendored Pyodide
// (.ci/pycache.py). PyScript unpacks it ([files] "./static/pycache.zip" =
// "./*"), so a first visit fetches them as one file and does not compile
// them (docs/SPEED.md). Then static/later.zip (what is read later), and the
// page's own standard library, static/stdlib.zip (.ci/stdlib.py), with
// static/js/pyodide-config.mjs, which the page and both Workers load
// Pyodide with. Generated, never committed; .ci/precache.mjs runs it, so
// they are as fresh as the precache list. The page's files are laid out as
// PyScript writes them: rules/ as rules/, static/py/ at the top.
// Usage: node .ci/pycache.mjs [site folder]
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const PYCACHE = "static/pycache.zip";
/** The page files read after ready, sources only (.ci/pycache.py build_later). */
export const LATER = "static/later.zip";
/** The page's standard library (.ci/stdlib.py) and the module naming it. */
export const STDLIB = "static/stdlib.zip";
export const CONFIG = "static/js/pyodide-config.mjs";
/** The standard library the page loads: its own, or with DICE_STDLIB=whole
 * (tests/benchmark.py --whole-stdlib, to measure the difference) Pyodide's. */
export const stdlibFile = () =>
  process.env.DICE_STDLIB === "whole" ? "static/vendor/pyodide/python_stdlib.zip" : STDLIB;
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
  // PYTHONNODEBUGRANGES: the bytecode compiled here keeps each instruction's
  // line but not its columns (a traceback has no ^^^ under the expression):
  // the column tables are a third of the compressed bytecode.
  const py = await loadPyodide({ indexURL: pyodideDir, env: { PYTHONNODEBUGRANGES: "1" }, stdout: () => {},
    stderr: (s) => process.stderr.write(s + "\n") });
  // What Pyodide's own start imported, before anything else is.
  const boot = py.runPython("import sys; sorted(sys.modules)").toJs();
  const cwd = "/home/pyodide";
  for (const [from, to] of LAYOUT) {
    for (const f of pageFiles(join(root, from))) {
      py.FS.mkdirTree(posix.dirname(`${cwd}/${to}/${f}`));
      py.FS.writeFile(`${cwd}/${to}/${f}`, readFileSync(join(root, from, f)));
    }
  }
  py.FS.mkdirTree("/tmp/main");
  py.FS.writeFile("/tmp/main/main.py", readFileSync(join(root, "static/py/main.py")));
  py.FS.mkdirTree("/tmp/ci");
  for (const f of ["pycache.py", "stdlib.py"]) py.FS.writeFile(`/tmp/ci/${f}`, readFileSync(join(here, f)));
  py.runPython("import sys; sys.path.insert(0, '/tmp/ci')");

  const ps = join(root, "static/vendor/pyscript");
  const chunks = readdirSync(ps).filter((f) => /^core-.*\.js$/.test(f)).map((f) => readFileSync(join(ps, f), "utf8"));
  py.globals.set("PYSCRIPT_CHUNK", chunks[0]);
  const bytes = py.runPython("import pycache; pycache.build('/tmp/main/main.py', pyscript_chunk=PYSCRIPT_CHUNK)").toJs();
  writeFileSync(join(root, PYCACHE), bytes);
  const later = py.runPython("pycache.build_later('/tmp/main/main.py')").toJs();
  writeFileSync(join(root, LATER), later);

  // The standard library: the wheels the page ships and PyScript's core
  // chunk (its own Python package) are read for their imports.
  const wheelDir = join(root, "static/vendor/wheels");
  const wheels = existsSync(wheelDir) ? readdirSync(wheelDir).filter((f) => f.endsWith(".whl")) : [];
  py.FS.mkdirTree("/tmp/wheels");
  for (const f of wheels) py.FS.writeFile(`/tmp/wheels/${f}`, readFileSync(join(wheelDir, f)));
  const build = py.pyimport("stdlib").build_stdlib;
  const stdlib = build(py.toPy(boot), py.toPy([cwd, "/tmp/main"]), py.toPy(wheels.map((f) => `/tmp/wheels/${f}`)),
    py.toPy(chunks)).toJs();
  build.destroy();
  writeFileSync(join(root, STDLIB), stdlib);
  writeConfig(root);
  return bytes.length;
}

/** static/js/pyodide-config.mjs: what the page and both Workers pass to
 * loadPyodide — the page's standard library (its URL and SHA-256, which
 * keys the memory snapshot) and the lock file's info with no packages
 * (the page loads none: nothing to fetch for it). */
function writeConfig(root) {
  const lock = JSON.parse(readFileSync(join(root, "static/vendor/pyodide/pyodide-lock.json"), "utf8"));
  const file = stdlibFile();
  const sha = createHash("sha256").update(readFileSync(join(root, file))).digest("hex");
  writeFileSync(join(root, CONFIG), `// Generated by .ci/pycache.mjs: do not edit, do not commit.
// What the page (pyodide-snapshot.mjs) and both Workers load Pyodide with
// (docs/SPEED.md, "The page's standard library").
/** The page's standard library (.ci/stdlib.py), in place of python_stdlib.zip. */
export const STDLIB_URL = new URL(${JSON.stringify(posix.relative("static/js", file))}, import.meta.url).href;
/** Its SHA-256: a memory snapshot is restored only into the library it was made from. */
export const STDLIB_SHA256 = ${JSON.stringify(sha)};
/** Pyodide's lock file without its packages (the page installs none). */
export const LOCK = ${JSON.stringify({ info: lock.info, packages: {} })};
/** The options every loadPyodide call of the page adds. */
export const PYODIDE_OPTIONS = { stdLibURL: STDLIB_URL, lockFileContents: LOCK };
`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = process.argv[2] ? resolve(process.argv[2]) : join(here, "..");
  const n = await buildPycache(root);
  console.log(`${PYCACHE}: ${(n / 1e3).toFixed(0)} kB, ${STDLIB}: ${(readFileSync(join(root, STDLIB)).length / 1e3).toFixed(0)} kB`);
}
