// Write static/precache.js: every file the page needs offline, with the
// SHA-256 of each and a VERSION over all of them. sw.js loads it with
// importScripts, so the browser's byte-for-byte update check of the service
// worker sees a new version whenever any precached file changes (a JSON file
// fetched by the worker would not be compared, and the update would go
// unnoticed). It writes static/pycache.zip, static/later.zip, static/stdlib.zip
// and static/js/pyodide-config.mjs first (.ci/pycache.mjs). Run after .ci/vendor.mjs, and again after editing any file the
// page loads (`bash .ci/dev serve` does both).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPycache, stdlibFile } from "./pycache.mjs";

// The site folder: the repository by default, or the one given (tests build copies).
const root = process.argv[2] ? resolve(process.argv[2]) : join(dirname(fileURLToPath(import.meta.url)), "..");
// The page's compiled bytecode first (a [files] entry, so it is precached too).
await buildPycache(root);
const files = new Set(["index.html"]);  // paths relative to the site root (= the SW scope)

const norm = (p) => posix.normalize(p).replace(/^\.\//, "");
const add = (p) => {
  p = norm(p);
  if (!existsSync(join(root, p))) throw new Error(`precache: ${p} is referenced but missing`);
  files.add(p);
};

// index.html: every local href/src/config (css, PyScript, main.py, the toml,
// icons, the manifest, our JS modules).
const html = readFileSync(join(root, "index.html"), "utf8");
for (const m of html.matchAll(/\b(?:href|src|config)="\.\/([^"#?]+)"/g)) add(m[1]);

// pyscript.toml: the interpreter and every [files] source.
const toml = readFileSync(join(root, "pyscript.toml"), "utf8");
for (const m of toml.matchAll(/^\s*"(\.\/[^"]+)"\s*=/gm)) add(m[1]);
const interpreter = toml.match(/^\s*interpreter\s*=\s*"\.\/([^"]+)"/m);
if (interpreter) add(interpreter[1]);

// Our JS modules: the interpreter module imports its helpers, and the
// snapshot Worker is started from a URL, neither visible in index.html.
for (const f of readdirSync(join(root, "static/js"))) {
  if (/\.m?js$/.test(f)) add(`static/js/${f}`);
}

// The CSS files' url(...) references (fonts), relative to each css file.
for (const p of [...files].filter((f) => f.endsWith(".css"))) {
  const css = readFileSync(join(root, p), "utf8");
  for (const m of css.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)) {
    if (!/^(data:|[a-z]+:\/\/|#)/.test(m[1])) add(posix.join(posix.dirname(p), m[1]));
  }
}
// Both font weights, whether or not a first load happened to use them.
for (const f of readdirSync(join(root, "static/vendor/fonts"))) {
  if (f.endsWith(".woff2")) add(`static/vendor/fonts/${f}`);
}

// Pure-Python wheels the page loads lazily (segno, for QR codes).
if (existsSync(join(root, "static/vendor/wheels"))) {
  for (const f of readdirSync(join(root, "static/vendor/wheels"))) {
    if (f.endsWith(".whl")) add(`static/vendor/wheels/${f}`);
  }
}

// The QR decoder the live table loads only while scanning (.ci/vendor.mjs).
add("static/vendor/jsqr/jsQR.js");

// The manifest's icons.
const manifest = "static/manifest.webmanifest";
if (files.has(manifest)) {
  for (const icon of JSON.parse(readFileSync(join(root, manifest), "utf8")).icons || []) {
    add(posix.join(posix.dirname(manifest), icon.src));
  }
}

// Pyodide's runtime, less what the page loads in its place: our standard
// library (static/stdlib.zip, .ci/stdlib.py) instead of python_stdlib.zip,
// and the lock file's info (static/js/pyodide-config.mjs) instead of
// pyodide-lock.json.
for (const f of ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm"]) add(`static/vendor/pyodide/${f}`);
add(stdlibFile());

// PyScript: core.js's static import closure, the plugins core always
// imports at start (its plugin table) and the TOML parser it imports for our
// config. Codemirror, xterm and the rest load only for editors/terminals,
// which the page has none of; the offline test checks this set against what
// a cold load really fetches.
const ps = "static/vendor/pyscript";
const staticImports = (f) => [...readFileSync(join(root, ps, f), "utf8")
  .matchAll(/(?:from\s*|import\s*)["']\.\/([^"']+\.js)["']/g)].map((m) => m[1]);
const closure = (start) => {
  const seen = new Set(), queue = [...start];
  while (queue.length) {
    const f = queue.shift();
    if (seen.has(f)) continue;
    seen.add(f);
    queue.push(...staticImports(f));
  }
  return seen;
};
const core = [...closure(["core.js"])].find((f) => /^core-.*\.js$/.test(f));
const coreText = readFileSync(join(root, ps, core), "utf8");
const roots = ["core.js"];
for (const m of coreText.matchAll(/"?[\w-]+"?\s*:\s*\(\)\s*=>\s*import\(["']\.\/([^"']+\.js)["']\)/g)) roots.push(m[1]);
const tomlChunk = coreText.match(/import\(["']\.\/(toml-[^"']+\.js)["']\)/);
if (tomlChunk) roots.push(tomlChunk[1]);
for (const f of closure(roots)) add(`${ps}/${f}`);

// Hash each file; the version hashes the list with sw.js itself.
const sha = (buf) => createHash("sha256").update(buf).digest("hex");
const list = [...files].sort();
const entries = [{ url: "./", sha256: sha(readFileSync(join(root, "index.html"))) }];
for (const p of list) entries.push({ url: `./${p}`, sha256: sha(readFileSync(join(root, p))) });
const all = createHash("sha256");
for (const e of entries) all.update(`${e.url} ${e.sha256}\n`);
all.update(readFileSync(join(root, "sw.js")));
const version = all.digest("hex").slice(0, 16);
let bytes = 0;
for (const p of list) bytes += readFileSync(join(root, p)).length;

writeFileSync(join(root, "static", "precache.js"),
  "// Generated by .ci/precache.mjs: do not edit, do not commit.\n" +
  `self.PRECACHE = ${JSON.stringify({ version, files: entries }, null, 1)};\n`);
console.log(`precache ${version}: ${entries.length} URLs, ${(bytes / 1e6).toFixed(1)} MB -> static/precache.js`);
