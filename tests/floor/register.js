// The floor's service worker, registered once Python is ready (as the app's is),
// so that "from the service worker" is measured for the floor too.
const ready = () => document.body.hasAttribute("data-ready");
const go = () => navigator.serviceWorker.register(new URL("./sw.js", import.meta.url));
if ("serviceWorker" in navigator) {
  if (ready()) go();
  else new MutationObserver((_, obs) => { if (ready()) { obs.disconnect(); go(); } })
    .observe(document.body, { attributes: true, attributeFilter: ["data-ready"] });
}
