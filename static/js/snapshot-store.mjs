// Where the page keeps its Python memory snapshot (docs/SPEED.md,
// "Returning visits"): one record in IndexedDB, read by the page
// (pyodide-snapshot.mjs) and written by the Worker that makes it
// (snapshot-worker.mjs).
//
// The record: { key: {site, pyodide, stdlib, build}, sha256, raw, stored,
// made, makeMs, blob }. `site` is the precache version of the files the
// snapshot's Python came from, `pyodide`/`build` the runtime that made it,
// `stdlib` the SHA-256 of the standard library zip it was made with (a
// restore into another would read that zip through the snapshot's index of
// the old one). There is one
// record at most ("current"): a new one replaces it, a stale one is dropped.
//
// The blob is the snapshot with its all-zero 4 KiB pages left out (about
// half of Pyodide's 30 MiB heap is untouched): 17 MB instead of 31.5, and
// faster to read back than a gzip stream is to inflate. Its SHA-256 is
// checked before use, so damaged bytes never reach the interpreter.

export const DB_NAME = "dice-table-snapshot";
const STORE = "snapshot";
const CURRENT = "current";
const MAGIC = 0x31535444;  // "DTS1", little-endian
const PAGE = 4096;
const HEADER_WORDS = 4;    // magic, raw length, page size, page count

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function openDb() {
  const req = indexedDB.open(DB_NAME, 1);
  req.onupgradeneeded = () => req.result.createObjectStore(STORE);
  return request(req);
}

async function withStore(mode, fn) {
  const db = await openDb();
  try {
    const tx = db.transaction(STORE, mode);
    const result = fn(tx.objectStore(STORE));
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error || new DOMException("transaction aborted", "AbortError"));
    });
    return result instanceof IDBRequest ? result.result : result;
  } finally {
    db.close();
  }
}

/** The stored record, or undefined. */
export const read = () => withStore("readonly", (s) => s.get(CURRENT));

/** Store a record in place of any other. */
export const write = (record) => withStore("readwrite", (s) => s.put(record, CURRENT));

/** Forget the stored snapshot (never throws: a failed drop is retried next time). */
export async function drop() {
  try {
    await withStore("readwrite", (s) => s.delete(CURRENT));
  } catch {
    // Storage unavailable: nothing to drop that could be read either.
  }
}

/** Two keys name the same snapshot. */
export const sameKey = (a, b) => !!a && !!b && a.site === b.site && a.pyodide === b.pyodide && a.stdlib === b.stdlib;

/** The label a snapshot's Python carries (static/py/shell/snapshot.py MADE_FOR). */
export const label = (key) => `${key.site} ${key.pyodide} ${key.stdlib}`;

export async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function isZero(words, from, to) {
  for (let i = from; i < to; i++) if (words[i] !== 0) return false;
  return true;
}

/** The snapshot as stored: a header, a bitmap of the non-zero pages, those pages. */
export function pack(raw) {
  if (raw.byteOffset % 4 || raw.byteLength % 4) raw = new Uint8Array(raw);  // aligned copy
  const words = new Uint32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  const count = Math.ceil(raw.byteLength / PAGE);
  const bitmap = new Uint8Array(Math.ceil(count / 32) * 4);
  const parts = [];
  for (let p = 0; p < count; p++) {
    const from = p * PAGE, to = Math.min(from + PAGE, raw.byteLength);
    if (isZero(words, from / 4, to / 4)) continue;
    bitmap[p >> 3] |= 1 << (p & 7);
    parts.push(raw.subarray(from, to));
  }
  const header = new Uint32Array([MAGIC, raw.byteLength, PAGE, count]);
  return new Blob([header, bitmap, ...parts]);
}

/** The snapshot's bytes back from ``pack``'s; throws on any inconsistency. */
export function unpack(buffer) {
  const head = new Uint32Array(buffer, 0, HEADER_WORDS);
  const [magic, length, page, count] = head;
  if (magic !== MAGIC || page !== PAGE || count !== Math.ceil(length / PAGE)) {
    throw new Error("not a snapshot of this format");
  }
  const bitmapBytes = Math.ceil(count / 32) * 4;
  const bitmap = new Uint8Array(buffer, HEADER_WORDS * 4, bitmapBytes);
  const raw = new Uint8Array(length);
  let at = HEADER_WORDS * 4 + bitmapBytes;
  for (let p = 0; p < count; p++) {
    if (!(bitmap[p >> 3] & (1 << (p & 7)))) continue;
    const size = Math.min(PAGE, length - p * PAGE);
    if (at + size > buffer.byteLength) throw new Error("snapshot is truncated");
    raw.set(new Uint8Array(buffer, at, size), p * PAGE);
    at += size;
  }
  if (at !== buffer.byteLength) throw new Error("snapshot has trailing bytes");
  return raw;
}

/** The stored record's snapshot, checked against its hash: raw bytes for loadPyodide. */
export async function bytesOf(record) {
  const buffer = await record.blob.arrayBuffer();
  if ((await sha256(buffer)) !== record.sha256) throw new Error("snapshot bytes do not match their hash");
  return unpack(buffer);
}
