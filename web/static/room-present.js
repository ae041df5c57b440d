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

// The join panel's QR code steps aside once phones follow the room
// (room.css keys on the status line's data-phones); the QR button (on the
// presenter's projector page), or the Q key anywhere but in a field,
// shows it again for latecomers, and hides it again. The panel is not
// replaced by the stream, so the choice stays.
const room = document.querySelector(".room-present");
const toggle = document.querySelector(".room-qr-toggle");
function flipQR() {
  const on = room.classList.toggle("qr-shown");
  if (toggle) toggle.setAttribute("aria-expanded", String(on));
}
if (room) {
  if (toggle) toggle.addEventListener("click", flipQR);
  window.addEventListener("keydown", (e) => {
    if (e.key !== "q" && e.key !== "Q") return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest("input, select, textarea, [contenteditable]")) return;
    flipQR();
  });
}
