// Copy the runtime the page needs from node_modules into static/vendor/.
// PyScript's chunk names carry hashes, so the set is read from the import
// statements of core.js (static and dynamic), never hard-coded.
import { cpSync, mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { minify } from "terser";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const nm = join(root, "node_modules");
const out = join(root, "static", "vendor");

function copy(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to);
}

rmSync(out, { recursive: true, force: true });

// Pyodide 314's runtime set (STACK-NOTES: .asm.mjs, not .asm.js).
const pyodideFiles = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm",
  "python_stdlib.zip", "pyodide-lock.json"];
for (const f of pyodideFiles) copy(join(nm, "pyodide", f), join(out, "pyodide", f));
// Pyodide (MPL-2.0) ships no licence file in its npm package; README names it.

// PyScript core and the closure of the chunks it imports.
const dist = join(nm, "@pyscript", "core", "dist");
const seen = new Set();
const queue = ["core.js"];
const importRe = /(?:import\(|from\s*|import\s*)["']\.\/([^"']+\.js)["']/g;
while (queue.length) {
  const f = queue.shift();
  if (seen.has(f)) continue;
  seen.add(f);
  const text = readFileSync(join(dist, f), "utf8");
  for (const m of text.matchAll(importRe)) queue.push(m[1]);
}
for (const f of [...seen, "core.css"]) copy(join(dist, f), join(out, "pyscript", f));
const pkgLicense = join(nm, "@pyscript", "core", "LICENSE");
if (existsSync(pkgLicense)) copy(pkgLicense, join(out, "pyscript", "LICENSE"));

// The Hebrew font, self-hosted (never from the network or the device).
const font = join(nm, "@fontsource", "noto-sans-hebrew");
for (const w of ["400", "700"]) {
  const f = `noto-sans-hebrew-hebrew-${w}-normal.woff2`;
  copy(join(font, "files", f), join(out, "fonts", f));
}
copy(join(font, "LICENSE"), join(out, "fonts", "LICENSE"));

// The QR decoder the live table loads only while scanning, where the
// browser has no BarcodeDetector (jsQR, Apache-2.0: a classic script that
// sets window.jsQR). Its npm build is not minified: terser halves it
// (257 -> 130 kB of every first visit's precache; docs/SPEED.md).
const jsqr = await minify(readFileSync(join(nm, "jsqr", "dist", "jsQR.js"), "utf8"),
  { compress: true, mangle: true });
mkdirSync(join(out, "jsqr"), { recursive: true });
writeFileSync(join(out, "jsqr", "jsQR.js"), jsqr.code);
copy(join(nm, "jsqr", "LICENSE"), join(out, "jsqr", "LICENSE"));

const versions = {};
for (const p of ["pyodide", "@pyscript/core", "@fontsource/noto-sans-hebrew", "jsqr"]) {
  versions[p] = JSON.parse(readFileSync(join(nm, p, "package.json"), "utf8")).version;
}
writeFileSync(join(out, "versions.json"), JSON.stringify({ versions, pyscript: [...seen].sort() }, null, 1));
console.log(`vendored pyodide ${versions.pyodide}, pyscript ${versions["@pyscript/core"]} (${seen.size} chunks), font into static/vendor/`);
