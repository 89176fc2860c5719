// Run pytest on the `rules` package and its tests inside the vendored
// Pyodide (CPython 3.14) under Node, so a difference between the machine's
// Python and the browser's cannot hide. pytest and its pure-Python
// dependencies are copied from the test venv into Pyodide's file system.
//
// The standard library is the page's own (static/stdlib.zip, .ci/stdlib.py),
// as in the browser. What only the test tools need (pytest's argparse,
// doctest, …) comes from Pyodide's whole python_stdlib.zip, on sys.path
// behind it; a module taken from there for our code — the nearest caller
// outside the standard library is in rules/ or static/py/ — is one the page
// would miss: the run lists it and fails.
// Usage: node tests/pyodide_run.mjs <site-packages dir> [pytest args...]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const [sitePackages, ...args] = process.argv.slice(2);
const { loadPyodide } = await import(join(root, "static/vendor/pyodide/pyodide.mjs"));
const stdlib = join(root, "static/stdlib.zip");
if (!existsSync(stdlib)) throw new Error("static/stdlib.zip is missing: run `node .ci/precache.mjs`");
const py = await loadPyodide({ indexURL: join(root, "static/vendor/pyodide") + "/", stdLibURL: stdlib });
const REST = "/lib/python314-whole.zip";
py.FS.writeFile(REST, readFileSync(join(root, "static/vendor/pyodide/python_stdlib.zip")));

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
import os, sys, zipfile
sys.path.insert(sys.path.index("/lib/python314.zip") + 1, "${REST}")

def _modules(path, ext):
    names = (n[: -len(ext)].replace("/", ".") for n in zipfile.ZipFile(path).namelist() if n.endswith(ext))
    return {n.removesuffix(".__init__") for n in names}

_ONLY_WHOLE = _modules("${REST}", ".py") - _modules("/lib/python314.zip", ".pyc")
_OURS = tuple("${work}/" + d for d in ("rules/", "static/py/"))
MISSING = {}

class _Record:
    """Notes an import of a module the page's standard library lacks, made for our code."""
    def find_spec(self, name, path=None, target=None):
        if name in _ONLY_WHOLE:
            frame = sys._getframe(1)
            while frame and frame.f_code.co_filename.startswith(("/lib/python314", "<frozen")):
                frame = frame.f_back
            where = frame.f_code.co_filename if frame else "?"
            if where.startswith(_OURS):
                MISSING.setdefault(name, f"{where}:{frame.f_lineno}")
        return None

class _Whole:
    """A submodule of a package the page's zip holds (importlib.resources
    of importlib), found in the whole zip: a package is in one zip only."""
    def find_spec(self, name, path=None, target=None):
        package, _, _ = name.rpartition(".")
        if name not in _ONLY_WHOLE or not package:
            return None
        import zipimport
        return zipimport.zipimporter(f"${REST}/{package.replace('.', '/')}/").find_spec(name)

sys.meta_path.insert(0, _Record())
sys.meta_path.append(_Whole())
os.chdir("${work}")
sys.path.insert(0, "${work}")
import pytest
print("Python", sys.version.split()[0], "on", sys.platform, "with the page's standard library", flush=True)
code = int(pytest.main(["-q", "-p", "no:cacheprovider", "-m", "not browser and not pyodide", *ARGS]))
for name, where in sorted(MISSING.items()):
    print(f"not in static/stdlib.zip: {name}, imported by {where} (.ci/stdlib.py RUNTIME)", flush=True)
code or (3 if MISSING else 0)
`);
process.exit(Number(code));
