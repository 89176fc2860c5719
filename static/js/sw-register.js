// Registers the service worker (sw.js at the site root) once the page is
// ready, so it does not compete with Pyodide's start-up, and shows
// "Updated — reload" when a new version has installed in the background.
// Marks <body data-offline-ready> once a worker controls the page.
const SW_URL = new URL("../../sw.js", import.meta.url);
const SCOPE = new URL("../../", import.meta.url);

function whenReady() {
  return new Promise((resolve) => {
    if (document.body.hasAttribute("data-ready")) return resolve();
    const obs = new MutationObserver(() => {
      if (document.body.hasAttribute("data-ready")) { obs.disconnect(); resolve(); }
    });
    obs.observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
  });
}

const idle = () => new Promise((resolve) =>
  ("requestIdleCallback" in window ? requestIdleCallback(resolve, { timeout: 2000 }) : setTimeout(resolve, 200)));

function offerUpdate(registration) {
  const banner = document.getElementById("update-banner");
  const button = document.getElementById("update-reload");
  if (!banner || !button) return;
  banner.hidden = false;
  button.addEventListener("click", (event) => {
    // A new version never takes over a live table by itself: reloading the
    // tablet means every phone scans again (docs/LIVE-TABLE.md).
    if (document.body.classList.contains("at-table")
        && !window.confirm("This device is at a live table: reloading ends every connection, and each phone "
                           + "must scan the table's code again. Reload now?")) {
      event.stopImmediatePropagation();
      offerUpdate(registration);
      return;
    }
    const waiting = registration.waiting;
    if (!waiting) { location.reload(); return; }
    button.disabled = true;
    sessionStorage.setItem("dice-sw-reload", "1");
    waiting.postMessage({ type: "skip-waiting" });
  }, { once: true });
}

function watchInstalling(registration, worker) {
  if (!worker) return;
  worker.addEventListener("statechange", () => {
    // A worker installed while another controls the page is an update.
    if (worker.state === "installed" && navigator.serviceWorker.controller) offerUpdate(registration);
  });
}

function markControlled() {
  if (navigator.serviceWorker.controller) document.body.setAttribute("data-offline-ready", "");
}

async function main() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const sw = navigator.serviceWorker;
  sw.addEventListener("controllerchange", () => {
    markControlled();
    // Reload only when the user asked for the new version, not on the first install.
    if (sessionStorage.getItem("dice-sw-reload")) {
      sessionStorage.removeItem("dice-sw-reload");
      location.reload();
    }
  });
  await whenReady();
  await idle();
  let registration;
  try {
    registration = await sw.register(SW_URL, { scope: SCOPE.href, updateViaCache: "none" });
  } catch (e) {
    // No worker (e.g. precache.js not generated): the page works online as before.
    console.warn("service worker not registered:", e && e.message);
    return;
  }
  if (!registration) return;  // workers blocked (e.g. an automation context)
  markControlled();
  if (registration.waiting && sw.controller) offerUpdate(registration);
  watchInstalling(registration, registration.installing);
  registration.addEventListener("updatefound", () => watchInstalling(registration, registration.installing));
}

main();
