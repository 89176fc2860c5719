// Write static/pycache.zip: the compiled bytecode of the Python the page
// imports before it is ready, made by the vendored Pyodide (.ci/pycache.py).
// PyScript unpacks it beside the sources ([files] "./static/pycache.zip" =
// "./*"), so a first visit does not compile them (README "Speed"). Generated,
// never committed; .ci/precache.mjs runs it, so it is as fresh as the
// precache list. Usage: node .ci/pycache.mjs [site folder]
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const PYCACHE = "static/pycache.zip";

export async function buildPycache(root) {
  const pyodideDir = join(root, "static/vendor/pyodide") + "/";
  const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, "pyodide.mjs")).href);
  const py = await loadPyodide({ indexURL: pyodideDir, stdout: () => {}, stderr: (s) => process.stderr.write(s + "\n") });
  const toml = readFileSync(join(root, "pyscript.toml"), "utf8");
  const cwd = "/home/pyodide";
  for (const m of toml.matchAll(/^\s*"\.\/([^"]+)"\s*=\s*"\.\/([^"*]+)"/gm)) {
    const dst = `${cwd}/${m[2]}`;
    py.FS.mkdirTree(dst.slice(0, dst.lastIndexOf("/")));
    py.FS.writeFile(dst, readFileSync(join(root, m[1])));
  }
  py.FS.writeFile("/tmp/main.py", readFileSync(join(root, "static/py/main.py")));
  py.runPython(readFileSync(join(here, "pycache.py"), "utf8"));
  const bytes = py.runPython("build('/tmp/main.py')").toJs();
  writeFileSync(join(root, PYCACHE), bytes);
  return bytes.length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = process.argv[2] ? resolve(process.argv[2]) : join(here, "..");
  const n = await buildPycache(root);
  console.log(`${PYCACHE}: ${(n / 1e3).toFixed(0)} kB`);
}
