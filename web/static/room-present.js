// The projector follows a reveal. The presenter presses Reveal in the
// controls below the screen (or on a paired remote); the tally arrives
// through the room's stream into the screen's side column, above the
// viewport. When a question's tally first appears, the screen is brought
// back into view, so the room sees the reveal without anyone scrolling.
// With prefers-reduced-motion the page jumps rather than glides.
//
// The trigger is the stream's own update, not the button: a reveal from
// the remote, or a second projector window, moves each projector alike.
// A tally already on the page when it loads does not move it, and each
// question moves it once, so the presenter can scroll back to the
// controls while the tally stays.

const seen = new Set();
for (const t of document.querySelectorAll("[data-revealed]")) seen.add(t.dataset.revealed);

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

function follow() {
  for (const t of document.querySelectorAll("[data-revealed]")) {
    if (seen.has(t.dataset.revealed)) continue;
    seen.add(t.dataset.revealed);
    const screen = t.closest(".present") || t;
    screen.scrollIntoView({ block: "start", behavior: reduced.matches ? "instant" : "smooth" });
  }
}

new MutationObserver(follow).observe(document.body, { childList: true, subtree: true });
