// The page's stored keys (docs/TRUST.md, "What the page keeps"): each key's
// text as this tab last read or wrote it is kept here, so that before each
// write static/py/shell/page.py can ask whether another tab stored
// something since, without carrying the whole text (about 110 kB for a full
// roll history) into Python after every roll. Python decides everything
// else (static/py/records/synced.py merges). Loaded by index.html as a
// module; it installs window.diceStore.

const known = new Map();

window.diceStore = {
  // The text stored under key (null: none), remembered as this tab's.
  read(key) {
    const text = localStorage.getItem(key);
    known.set(key, text);
    return text;
  },
  // Store text under key, remembered as this tab's; throws as
  // localStorage.setItem does (a full quota) and then remembers nothing.
  write(key, text) {
    localStorage.setItem(key, text);
    known.set(key, text);
  },
  // Whether the text stored under key is still the one this tab last read
  // or wrote (false if it never did).
  unchanged(key) {
    return known.has(key) && localStorage.getItem(key) === known.get(key);
  },
};
