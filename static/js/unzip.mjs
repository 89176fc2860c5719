// Unpacks a zip into Pyodide's file system with the browser's own inflate
// (DecompressionStream), for the page's [files] archives (static/pycache.zip,
// static/later.zip): Pyodide's unpackArchive runs Python's zipfile and
// shutil in the interpreter, file by file, while the page waits for it
// (docs/SPEED.md, "Against the floor"). Our archives are plain: no zip64,
// stored or deflated members. Anything else throws, and the caller lets
// Pyodide unpack it as before.
const u16 = (v, at) => v.getUint16(at, true);
const u32 = (v, at) => v.getUint32(at, true);
const END = 0x06054b50;
const ENTRY = 0x02014b50;
const LOCAL = 0x04034b50;

async function inflate(data, method) {
  if (method === 0) return data;
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The members of the zip ``bytes``: [{name, method, data}], directories left out. */
export function members(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  while (end >= 0 && u32(view, end) !== END) end--;
  if (end < 0) throw new Error("not a zip");
  const decode = new TextDecoder();
  const out = [];
  let at = u32(view, end + 16);
  for (let i = u16(view, end + 10); i > 0; i--) {
    if (u32(view, at) !== ENTRY) throw new Error("not a zip's central directory");
    const method = u16(view, at + 10), size = u32(view, at + 20), n = u16(view, at + 28);
    const local = u32(view, at + 42);
    const name = decode.decode(bytes.subarray(at + 46, at + 46 + n));
    at += 46 + n + u16(view, at + 30) + u16(view, at + 32);
    if (name.endsWith("/")) continue;
    if (name.startsWith("/") || name.split("/").some((p) => p === "" || p === "." || p === "..")) {
      throw new Error(`a member outside the folder: ${name}`);
    }
    if ((method !== 0 && method !== 8) || size === 0xffffffff || u32(view, local) !== LOCAL) {
      throw new Error(`an unusual member: ${name}`);
    }
    const start = local + 30 + u16(view, local + 26) + u16(view, local + 28);
    out.push({ name, method, data: bytes.subarray(start, start + size) });
  }
  return out;
}

/** Every member of ``bytes`` (whose name ``wanted`` takes) written under
 * ``dir`` (absolute) in ``FS``. */
export async function unzip(FS, bytes, dir, wanted = () => true) {
  if (typeof DecompressionStream === "undefined") throw new Error("no DecompressionStream");
  const files = members(bytes).filter((f) => wanted(f.name));
  const contents = await Promise.all(files.map((f) => inflate(f.data, f.method)));
  files.forEach(({ name }, i) => {
    const path = `${dir}/${name}`;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, contents[i]);
  });
}
