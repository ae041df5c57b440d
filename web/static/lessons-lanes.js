// A lesson's lanes follow the step told. On a screen narrower than a
// lane's drawing the server starts the scroller at the end that holds the
// step's instant (data-follow, in thousandths of the drawing's width);
// this centres it, again after each step redraws the block, and keeps the
// "← earlier / later →" line, and a wide table's "scrolls sideways" line, saying which ways there is more.
const reduce = matchMedia("(prefers-reduced-motion: reduce)");

// left is the scroll offset from the drawing's left edge, whichever end
// the scroller's direction starts from (right-to-left offsets are negative).
function left(el) {
  return getComputedStyle(el).direction === "rtl" ? el.scrollLeft + el.scrollWidth - el.clientWidth : el.scrollLeft;
}

function mark(el) {
  const room = el.scrollWidth - el.clientWidth;
  const l = left(el);
  el.dataset.at = room <= 1 ? "all" : l <= 1 ? "start" : l >= room - 1 ? "end" : "middle";
  keys(el, room > 1);
}

// A lane that scrolls sideways inside its card (a section's picture beside
// the words, any lane on a phone) can be scrolled from the keyboard: it
// takes focus, named by its lane, while it scrolls, and gives it up once
// it fits.
function keys(el, scrolls) {
  if (scrolls && el.tabIndex !== 0) {
    el.tabIndex = 0;
    el.setAttribute("role", "group");
    const label = el.closest(".lane")?.dataset.label || "lane";
    el.setAttribute("aria-label", label + " timeline, scrolls sideways");
  } else if (!scrolls && el.hasAttribute("tabindex")) {
    el.removeAttribute("tabindex");
    el.removeAttribute("role");
    el.removeAttribute("aria-label");
  }
}

function follow(el, smooth) {
  const room = el.scrollWidth - el.clientWidth;
  if (room > 1) {
    const want = Math.min(Math.max((el.dataset.follow / 1000) * el.scrollWidth - el.clientWidth / 2, 0), room);
    const rtl = getComputedStyle(el).direction === "rtl";
    el.scrollTo({ left: rtl ? want - room : want, behavior: smooth && !reduce.matches ? "smooth" : "instant" });
  }
  el.dataset.followed = el.dataset.follow;
  mark(el);
}

// A table's "scrolls sideways" line stays only while it does not fit.
function fits(el) {
  const fit = el.scrollWidth <= el.clientWidth + 1;
  el.toggleAttribute("data-fits", fit);
  el.toggleAttribute("data-overflows", !fit);
}

function all(smooth) {
  for (const el of document.querySelectorAll(".table-scroll")) fits(el);
  for (const el of document.querySelectorAll(".lane-scroll[data-follow]")) {
    if (el.dataset.followed !== el.dataset.follow) follow(el, smooth);
    else mark(el);
  }
}

all(false);
// A step redraws its block (Datastar patches it in): follow the new step.
new MutationObserver(() => all(true)).observe(document.body, {
  subtree: true,
  childList: true,
  attributes: true,
  attributeFilter: ["data-follow", "open"],
});
document.addEventListener("scroll", (e) => {
  if (e.target instanceof Element && e.target.matches(".lane-scroll[data-follow]")) mark(e.target);
}, { capture: true, passive: true });
addEventListener("resize", () => all(false));
