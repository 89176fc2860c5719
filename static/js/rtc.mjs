// The live table's WebRTC and camera (docs/LIVE-TABLE.md): one RTCPeerConnection and
// one ordered data channel per phone, kept here by a key the page's Python
// chooses. Python (static/py/table/table_ui.py) decides everything else: what
// the offer and answer links carry (static/py/table/livetable.py), what a
// message means and whether it is refused. Loaded by index.html as a
// module; it installs window.diceRtc.
//
// No server is contacted unless the GM typed a STUN address: with none,
// ICE uses host candidates only (the devices on one Wi-Fi).

const peers = new Map();
let listener = null;
const OPEN_WAIT_MS = 12000;
const GATHER_WAIT_MS = 4000;

function emit(key, kind, data = "") {
  if (listener) listener(String(key), kind, String(data));
}

function config(stun) {
  return { iceServers: stun ? [{ urls: stun }] : [] };
}

function gathered(pc) {
  // The codes carry every candidate at once (no trickling through a QR code).
  return new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    const done = () => { if (pc.iceGatheringState === "complete") resolve(); };
    pc.addEventListener("icegatheringstatechange", done);
    setTimeout(resolve, GATHER_WAIT_MS);
  });
}

function wire(key, pc, channel) {
  const entry = peers.get(key);
  entry.channel = channel;
  channel.onopen = () => { clearTimeout(entry.timer); emit(key, "open"); };
  channel.onmessage = (ev) => emit(key, "message", typeof ev.data === "string" ? ev.data : "");
  channel.onclose = () => { if (peers.get(key) === entry) emit(key, "close"); };
}

function watch(key, pc) {
  pc.onconnectionstatechange = () => {
    const entry = peers.get(key);
    if (!entry || entry.pc !== pc) return;
    // "disconnected" may recover by itself (a phone's Wi-Fi blinking): the
    // page shows the peer away, and back when ICE reconnects the same channel.
    if (pc.connectionState === "failed") emit(key, "failed", "the connection failed");
    if (pc.connectionState === "disconnected") { entry.down = true; emit(key, "close"); }
    if (pc.connectionState === "connected" && entry.down) {
      entry.down = false;
      if (entry.channel && entry.channel.readyState === "open") emit(key, "resume");
    }
  };
}

function start(key, stun) {
  close(key);
  const pc = new RTCPeerConnection(config(stun));
  peers.set(key, { pc, channel: null, timer: 0 });
  watch(key, pc);
  return pc;
}

async function offer(key, stun) {
  const pc = start(key, stun);
  wire(key, pc, pc.createDataChannel("table", { ordered: true }));
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  return pc.localDescription.sdp;
}

async function answer(key, sdp, stun) {
  const pc = start(key, stun);
  pc.ondatachannel = (ev) => wire(key, pc, ev.channel);
  await pc.setRemoteDescription({ type: "offer", sdp });
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  expectOpen(key);
  return pc.localDescription.sdp;
}

async function accept(key, sdp) {
  const entry = peers.get(key);
  if (!entry) throw new Error("no offer is waiting for that answer");
  await entry.pc.setRemoteDescription({ type: "answer", sdp });
  expectOpen(key);
}

function expectOpen(key) {
  const entry = peers.get(key);
  clearTimeout(entry.timer);
  entry.timer = setTimeout(() => {
    if (peers.get(key) === entry && (!entry.channel || entry.channel.readyState !== "open")) {
      emit(key, "failed", "the channel did not open");
    }
  }, OPEN_WAIT_MS);
}

function send(key, text) {
  const entry = peers.get(key);
  if (!entry || !entry.channel || entry.channel.readyState !== "open") return false;
  entry.channel.send(text);
  return true;
}

function isOpen(key) {
  const entry = peers.get(key);
  return Boolean(entry && entry.channel && entry.channel.readyState === "open");
}

function close(key) {
  const entry = peers.get(key);
  if (!entry) return;
  peers.delete(key);
  clearTimeout(entry.timer);
  try { entry.pc.close(); } catch (e) { /* already closed */ }
}

// ---------------------------------------------------------------- the camera

let jsQRLoading = null;

function loadJsQR() {
  // The decoder is fetched (from the precache) only when a scan needs it.
  if (window.jsQR) return Promise.resolve(window.jsQR);
  if (!jsQRLoading) {
    jsQRLoading = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = new URL("../vendor/jsqr/jsQR.js", import.meta.url).href;
      s.onload = () => resolve(window.jsQR);
      s.onerror = () => { jsQRLoading = null; reject(new Error("the QR decoder could not be loaded")); };
      document.head.append(s);
    });
  }
  return jsQRLoading;
}

async function detector() {
  if ("BarcodeDetector" in window) {
    try {
      const formats = await window.BarcodeDetector.getSupportedFormats();
      if (formats.includes("qr_code")) {
        const d = new window.BarcodeDetector({ formats: ["qr_code"] });
        return async (video) => (await d.detect(video)).map((c) => c.rawValue)[0] || "";
      }
    } catch (e) { /* fall back to jsQR */ }
  }
  const jsQR = await loadJsQR();
  const canvas = document.createElement("canvas");
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  return async (video) => {
    const w = video.videoWidth, h = video.videoHeight;
    if (!w || !h) return "";
    canvas.width = w; canvas.height = h;
    ctx.drawImage(video, 0, 0, w, h);
    const code = jsQR(ctx.getImageData(0, 0, w, h).data, w, h, { inversionAttempts: "dontInvert" });
    return code ? code.data : "";
  };
}

let scanning = null;

async function scan(video, onText) {
  // Scans until a code is read (onText(text) returns true) or stopScan().
  stopScan();
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  const state = { stream, stop: false };
  scanning = state;
  video.srcObject = stream;
  video.muted = true;
  video.setAttribute("playsinline", "");
  await video.play();
  const read = await detector();
  const tick = async () => {
    if (state.stop) return;
    let text = "";
    try { text = await read(video); } catch (e) { text = ""; }
    if (text && onText(text)) { stopScan(); return; }
    setTimeout(tick, 120);
  };
  tick();
}

function stopScan() {
  if (!scanning) return;
  scanning.stop = true;
  for (const t of scanning.stream.getTracks()) t.stop();
  scanning = null;
}

window.diceRtc = {
  listen: (fn) => { listener = fn; },
  offer, answer, accept, send, isOpen, close, scan, stopScan,
  hasCamera: () => Boolean(navigator.mediaDevices && navigator.mediaDevices.getUserMedia),
};
