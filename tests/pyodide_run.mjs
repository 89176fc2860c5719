// Run pytest on the `rules` package and its tests inside the vendored
// Pyodide (CPython 3.14) under Node, so a difference between the machine's
// Python and the browser's cannot hide. pytest and its pure-Python
// dependencies are copied from the test venv into Pyodide's file system.
// Usage: node tests/pyodide_run.mjs <site-packages dir> [pytest args...]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const [sitePackages, ...args] = process.argv.slice(2);
const { loadPyodide } = await import(join(root, "static/vendor/pyodide/pyodide.mjs"));
const py = await loadPyodide({ indexURL: join(root, "static/vendor/pyodide") + "/" });

function copyTree(from, to, skip = () => false) {
  for (const name of readdirSync(from)) {
    if (name === "__pycache__" || skip(name)) continue;
    const src = join(from, name);
    const dst = `${to}/${name}`;
    if (statSync(src).isDirectory()) {
      py.FS.mkdirTree(dst);
      copyTree(src, dst, skip);
    } else {
      py.FS.writeFile(dst, readFileSync(src));
    }
  }
}

const site = "/lib/python3.14/site-packages";
py.FS.mkdirTree(site);
// hypothesis is left out: it now carries a compiled part that Pyodide cannot
// load, so the property tests run under CPython only (tests/conftest.py).
const wanted = ["_pytest", "pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py"];
for (const name of readdirSync(sitePackages)) {
  const base = name.replace(/-[^-]+\.dist-info$/, "");
  if (!wanted.includes(name) && !(name.endsWith(".dist-info") && /^(pytest|pluggy|iniconfig|packaging|pygments)-/i.test(name))) continue;
  const src = join(sitePackages, name);
  if (statSync(src).isDirectory()) { py.FS.mkdirTree(`${site}/${name}`); copyTree(src, `${site}/${name}`); }
  else py.FS.writeFile(`${site}/${name}`, readFileSync(src));
}

const work = "/home/pyodide/project";
for (const dir of ["rules", "tests/cases", "tests/rules", "tests/ui", "static/py"].filter((d) => existsSync(join(root, d)))) {
  py.FS.mkdirTree(`${work}/${dir}`);
  copyTree(join(root, dir), `${work}/${dir}`);
}
for (const f of ["pyproject.toml", "tests/conftest.py", "tests/static_form.py", "tests/tab_registry.py", "index.html", "pyscript.toml"]) py.FS.writeFile(`${work}/${f}`, readFileSync(join(root, f)));

py.globals.set("ARGS", py.toPy(args.length ? args : ["rules", "static/py", "tests/rules", "tests/ui"]));
const code = await py.runPythonAsync(`
import os, sys
os.chdir("${work}")
sys.path.insert(0, "${work}")
import pytest
print("Python", sys.version.split()[0], "on", sys.platform, flush=True)
int(pytest.main(["-q", "-p", "no:cacheprovider", "-m", "not browser and not pyodide", *ARGS]))
`);
process.exit(Number(code));
