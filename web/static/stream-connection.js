// The one keeper of every live page's streams (the playground, its
// presentation view, a room's projector, phone, remote and projector-only
// window). A stream is an element with the class "live-stream" whose
// data-on-load opens it (templates.StreamOnLoad, which turns Datastar's own
// retries off: the 1.0.0-beta.11 bundle never reopens a stream the server
// closed cleanly, gives up after 10 failures counted across outages, and
// waits up to 30 s between them).
//
// Whatever ends a stream (a network error, a clean close on restart or
// deploy, a 503 while the store is unreachable, a replica gone), this
// module says so in the layout's connection notice (#connection) and the
// footer, and opens it again after 0.5 s, doubling to 3 s (with jitter, so
// that a room's phones do not all come back in the same instant), with no
// limit on attempts; the server's first frame on a reopened stream is the
// whole current state. A stream the server says has ended for good (an
// element marked data-stream-ended, whose value says why: "This room has
// ended") is not reopened, and the notice says why. A connection can also
// die without closing (a laptop sleeping, a network change): streams send
// an event at least every 15 s (web.StreamHeartbeat), so one silent for
// three of those is opened again.
//
// An action answered 503 because the store is unreachable puts its own
// words in the notice (state "refused", web.Server.StoreUnreachable); the
// next action that succeeds, or the next stream that reopens, clears them.

const FIRST_DELAY = 500;
const MAX_DELAY = 3000;
const SILENCE = 45000;
const ON_TEXT = "Live: connected";

const streams = new Map(); // element id → { delay, timer, heard, fresh, down }
const actions = new Map(); // element id of an action in flight → it failed

const notice = () => document.getElementById("connection");
const footer = () => document.getElementById("live-status");

function isStream(id) {
  const el = id && document.getElementById(id);
  return !!el && el.classList.contains("live-stream");
}

function stream(id) {
  let s = streams.get(id);
  if (!s) {
    s = { delay: FIRST_DELAY, timer: 0, heard: Date.now(), fresh: true, down: false };
    streams.set(id, s);
  }
  return s;
}

// ended is the sentence of the element that says a stream ended for good.
function ended() {
  const el = document.querySelector("[data-stream-ended]");
  return el ? el.dataset.streamEnded || "this page's live updates have ended" : "";
}

// show says where the connection stands, in words (not colour alone) and
// in data-state for styles and tests: "on", "off", "refused" or "ended".
function show(state, text) {
  const n = notice();
  if (n) {
    n.dataset.state = state;
    n.textContent = state === "on" ? "" : text.charAt(0).toUpperCase() + text.slice(1);
    n.hidden = state === "on";
  }
  const f = footer();
  if (f) f.textContent = state === "on" ? ON_TEXT : "Live: " + text.charAt(0).toLowerCase() + text.slice(1);
}

const allUp = () => [...streams.values()].every((s) => !s.down);

// reopen replaces the stream's element with a copy: Datastar runs the
// copy's data-on-load, which opens the stream again (with the page's
// signals as they are now).
function reopen(id) {
  const el = document.getElementById(id);
  if (el) el.replaceWith(el.cloneNode(false));
  // Every attempt since the page loaded, never reset: tests read it to
  // keep a page down for more attempts than the bundle's own 10.
  const n = notice();
  if (n) n.dataset.attempts = String(Number(n.dataset.attempts || 0) + 1);
}

function streamEvent(id, type) {
  const s = stream(id);
  s.heard = Date.now();
  switch (type) {
    case "started":
      s.fresh = true;
      break;
    case "finished": {
      clearTimeout(s.timer);
      s.down = true;
      const why = ended();
      if (why) {
        show("ended", why);
        return;
      }
      // Jitter: between half and all of the delay.
      const wait = Math.round(s.delay * (0.5 + Math.random() / 2));
      const n = notice();
      if (!n || n.dataset.state !== "refused") {
        show("off", "disconnected from the server; reconnecting in " + Math.max(1, Math.round(wait / 1000)) + " s");
      }
      s.timer = setTimeout(() => reopen(id), wait);
      s.delay = Math.min(s.delay * 2, MAX_DELAY);
      break;
    }
    case "error":
    case "retrying":
    case "retries-failed":
      break; // "finished" follows, and says what happens next
    default:
      // The first event of a (re)opened stream is the whole current
      // state: the stream is live again.
      if (type.startsWith("datastar-") && s.fresh && !ended()) {
        s.fresh = false;
        s.down = false;
        s.delay = FIRST_DELAY;
        if (allUp()) show("on", "");
      }
  }
}

// actionEvent follows the page's other requests (buttons, answers): one
// that succeeds while the notice says the store is unreachable shows the
// store is back.
function actionEvent(id, type, detail) {
  switch (type) {
    case "started":
      actions.set(id, false);
      break;
    case "error":
      actions.set(id, true);
      break;
    case "finished": {
      const failed = actions.get(id);
      actions.delete(id);
      const n = notice();
      if (failed === false && n && n.dataset.state === "refused" && allUp() && !ended()) show("on", "");
      break;
    }
  }
}

document.addEventListener("datastar-sse", (evt) => {
  const { type, elId, argsRaw } = evt.detail || {};
  if (!type) return;
  if (isStream(elId) || streams.has(elId)) streamEvent(elId, type);
  else actionEvent(elId, type, argsRaw);
});

// The server may write the notice itself (an action or a stream answered
// 503: state "refused"); the footer says the same.
const watched = notice();
if (watched) {
  new MutationObserver(() => {
    const n = notice();
    const f = footer();
    if (n && f && n.dataset.state === "refused") {
      const text = n.textContent.trim();
      f.textContent = "Live: " + text.charAt(0).toLowerCase() + text.slice(1);
    }
  }).observe(watched, { attributes: true, childList: true, characterData: true, subtree: true });
}

// A hidden tab's stream is closed by Datastar and opened again when the tab
// shows: silence while hidden is not a lost connection.
document.addEventListener("visibilitychange", () => {
  for (const s of streams.values()) s.heard = Date.now();
});

setInterval(() => {
  if (document.hidden) return;
  for (const [id, s] of streams) {
    if (!s.down && Date.now() - s.heard > SILENCE) {
      s.heard = Date.now();
      s.down = true;
      show("off", "no word from the server; reconnecting");
      reopen(id);
    }
  }
}, 5000);
