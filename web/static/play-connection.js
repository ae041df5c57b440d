// The playground's connection to its stream. The stream that keeps the page
// up to date ends when the server restarts or is deployed, and the Datastar
// bundle (1.0.0-beta.11) opens it again only after a network error, not
// after a stream the server ended normally. This module watches the
// stream's own events (Datastar's "datastar-sse" events for #play-stream),
// says on the page when it is disconnected, and opens the stream again with
// backoff (0.5 s doubling to 30 s) until the server answers. The stream's
// first answer re-renders every region; when the server answers that the
// session is gone (it sends the "session ended" summary, marked
// data-session-ended), the page says so at once, before any click, and
// stops trying. A connection can also die without closing (a laptop
// sleeping, a network change): the server sends an event at least every
// 15 s (StreamHeartbeat in web/play_stream.go), so a stream silent for
// three of those is taken as lost and opened again.

const STREAM = "play-stream";
const FIRST_DELAY = 500;
const MAX_DELAY = 30000;
const SILENCE = 45000;

const status = document.getElementById("play-connection");
const footer = document.getElementById("live-status");
let delay = FIRST_DELAY;
let timer = 0;
let heard = Date.now(); // when the stream last said anything

const sessionEnded = () => document.querySelector("[data-session-ended]") !== null;

// show says where the connection stands, in words (not colour alone) and
// in data-state for styles and tests: "on", "off" or "ended".
function show(state, text) {
  if (status) {
    status.dataset.state = state;
    status.textContent = text;
    status.hidden = state === "on";
  }
  if (footer) {
    footer.textContent = state === "on" ? "Live: buttons and pictures answer in place" : "Not live: " + text;
  }
}

// reopen replaces the stream's element with a copy: Datastar runs the
// copy's data-on-load, which opens the stream again with the same URL.
function reopen() {
  const el = document.getElementById(STREAM);
  if (el) el.replaceWith(el.cloneNode(false));
}

document.addEventListener("datastar-sse", (evt) => {
  const { type, elId } = evt.detail || {};
  if (elId !== STREAM) return;
  heard = Date.now();
  switch (type) {
    case "retrying":
      show("off", "disconnected from the server; trying again");
      break;
    case "finished":
      clearTimeout(timer);
      if (sessionEnded()) {
        show("ended", "this playground session has ended on the server; reload the page for a new one");
        return;
      }
      show("off", "disconnected from the server; reconnecting in " + Math.ceil(delay / 1000) + " s");
      timer = setTimeout(reopen, delay);
      delay = Math.min(delay * 2, MAX_DELAY);
      break;
    default:
      // Any event the stream sends (the first re-renders the page) means
      // it is connected again.
      if (type.startsWith("datastar-") && !sessionEnded()) {
        delay = FIRST_DELAY;
        if (!status || status.dataset.state !== "on") show("on", "connected");
      }
  }
});

// A hidden tab's stream is closed by Datastar and opened again when the tab
// shows: silence while hidden is not a lost connection.
document.addEventListener("visibilitychange", () => {
  heard = Date.now();
});

setInterval(() => {
  if (document.hidden || !status || status.dataset.state !== "on") return;
  if (Date.now() - heard > SILENCE) {
    heard = Date.now();
    show("off", "no word from the server; reconnecting");
    reopen();
  }
}, 5000);
