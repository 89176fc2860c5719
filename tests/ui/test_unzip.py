"""static/js/unzip.mjs, which unpacks the page's [files] zips with the
browser's own inflate (docs/SPEED.md, "Against the floor"), run in Node:
it writes every member of the start-up and later zips exactly as Python's
zipfile reads it, and refuses what it cannot unpack rightly (a member
outside the folder, zip64, another compression) so that Pyodide's own
unpacking takes over."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "emscripten" or shutil.which("node") is None,
                                reason="runs static/js/unzip.mjs in Node")

ROOT = Path(__file__).resolve().parents[2]

# Unzips the file named by argv[2] into a fake file system; prints
# {path: [bytes...]} as JSON, or {"error": message}.
SCRIPT = """
import { readFileSync } from "node:fs";
const { unzip } = await import(process.argv[1]);
const files = {}, dirs = new Set();
const FS = { mkdirTree: (p) => dirs.add(p), writeFile: (p, b) => { files[p] = Array.from(b); } };
try {
  await unzip(FS, new Uint8Array(readFileSync(process.argv[2])), "/home/pyodide");
  for (const p of Object.keys(files)) if (!dirs.has(p.slice(0, p.lastIndexOf("/")))) throw new Error("no folder for " + p);
  console.log(JSON.stringify(files));
} catch (e) {
  console.log(JSON.stringify({ error: String(e.message) }));
}
"""


def run(zip_path: Path) -> dict:
    out = subprocess.run(["node", "--input-type=module", "-e", SCRIPT, (ROOT / "static/js/unzip.mjs").as_uri(),
                          str(zip_path)], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", ["pycache.zip", "later.zip"])
def test_it_writes_what_zipfile_reads(name):
    path = ROOT / "static" / name
    if not path.exists():
        pytest.fail(f"static/{name} is missing: run `node .ci/precache.mjs`")
    got = run(path)
    with zipfile.ZipFile(path) as z:
        want = {f"/home/pyodide/{n}": list(z.read(n)) for n in z.namelist() if not n.endswith("/")}
    assert "error" not in got and got.keys() == want.keys()
    assert all(got[k] == want[k] for k in want)


def made(tmp_path: Path, members: list, **kw) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", **kw) as z:
        for name, data in members:
            z.writestr(name, data)
    path = tmp_path / "x.zip"
    path.write_bytes(buf.getvalue())
    return path


def test_stored_and_deflated_members_and_folders(tmp_path):
    path = made(tmp_path, [("a/", b""), ("a/b.txt", b"stored"), ("c.py", b"x = 1\n" * 500)])
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as z:
        z.writestr("d/e.json", b'{"k": "' + b"v" * 3000 + b'"}')
    got = run(path)
    assert got == {"/home/pyodide/a/b.txt": list(b"stored"), "/home/pyodide/c.py": list(b"x = 1\n" * 500),
                   "/home/pyodide/d/e.json": list(b'{"k": "' + b"v" * 3000 + b'"}')}


@pytest.mark.parametrize("members, kw, why", [
    ([("../up.py", b"x")], {}, "outside"),
    ([("/abs.py", b"x")], {}, "outside"),
    ([("a//b.py", b"x")], {}, "outside"),
    ([("b.py", b"x" * 100)], {"compression": zipfile.ZIP_BZIP2}, "unusual"),
], ids=["dot-dot", "absolute", "empty-part", "bzip2"])
def test_what_it_cannot_unpack_rightly_it_refuses(tmp_path, members, kw, why):
    got = run(made(tmp_path, members, **kw))
    assert why in got.get("error", ""), got


def test_not_a_zip_is_refused(tmp_path):
    path = tmp_path / "x.zip"
    path.write_bytes(b"not a zip at all" * 4)
    assert "not a zip" in run(path).get("error", "")
