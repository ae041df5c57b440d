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

// Code wider than a phone scrolls inside its box: while it does, it takes
// focus, so that it can be scrolled from the keyboard.
function codeKeys(el) {
  const scrolls = el.scrollWidth > el.clientWidth + 1;
  if (scrolls && el.tabIndex !== 0) el.tabIndex = 0;
  else if (!scrolls && el.hasAttribute("tabindex")) el.removeAttribute("tabindex");
}

function all(smooth) {
  for (const el of document.querySelectorAll(".table-scroll")) fits(el);
  for (const el of document.querySelectorAll(".lesson pre")) codeKeys(el);
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

// A section's picture answers the reader pointing at it: hovering an
// instant of any of its lanes, or the arrow keys once the picture has
// focus (Home and End for the first and last, Escape to let go), mark
// that instant in every lane (a line across the plot, its marks ringed)
// and the line under the picture says, in the server's words, how each
// lane decided the requests there. Nothing here computes a decision: the
// sentences and the requests' instants come with the page.
const svgNS = "http://www.w3.org/2000/svg";

function explore(box) {
  const fig = box.closest(".section-picture");
  const point = fig.querySelector(".picture-point");
  const instants = [...fig.querySelectorAll(".picture-instants li")].map((li) => ({
    at: Number(li.dataset.at), first: Number(li.dataset.first), last: Number(li.dataset.last), text: li.textContent,
  }));
  if (!point || instants.length === 0) return;
  const hint = fig.querySelector(".picture-hint");
  if (hint) hint.hidden = false;
  box.tabIndex = 0;
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", (fig.querySelector(".section-picture-caption")?.textContent.trim() || "Picture") + ": the arrow keys go from instant to instant");
  box.setAttribute("aria-describedby", point.id);
  let current = -1;

  // x of an instant in an SVG's own units, as the lane drew its marks.
  const xOf = (svg, at) => {
    const from = Number(svg.dataset.from), to = Number(svg.dataset.to), x0 = Number(svg.dataset.x0), x1 = Number(svg.dataset.x1);
    return to > from ? x0 + ((at - from) / (to - from)) * (x1 - x0) : x0;
  };
  const show = (i) => {
    current = i;
    for (const svg of box.querySelectorAll("svg.lane-svg")) {
      let line = svg.querySelector(":scope > .picture-at");
      for (const m of svg.querySelectorAll(".picture-hit")) m.classList.remove("picture-hit");
      if (i < 0) {
        line?.remove();
        continue;
      }
      const it = instants[i];
      if (!line) {
        line = document.createElementNS(svgNS, "line");
        line.setAttribute("class", "picture-at");
        line.setAttribute("aria-hidden", "true");
        svg.append(line);
      }
      const vb = svg.viewBox.baseVal, x = xOf(svg, it.at);
      line.setAttribute("x1", x);
      line.setAttribute("x2", x);
      line.setAttribute("y1", 4);
      line.setAttribute("y2", vb.height - 22);
      for (const m of svg.querySelectorAll("[data-index]")) {
        const n = Number(m.dataset.index);
        if (n >= it.first && n <= it.last) m.classList.add("picture-hit");
      }
    }
    box.dataset.point = i < 0 ? "" : String(instants[i].at);
    fig.toggleAttribute("data-pointing", i >= 0);
    point.textContent = i < 0 ? "" : instants[i].text;
  };
  box.addEventListener("keydown", (e) => {
    const last = instants.length - 1;
    const to = { ArrowRight: current + 1, ArrowDown: current + 1, ArrowLeft: current - 1, ArrowUp: current - 1, Home: 0, End: last }[e.key];
    if (e.key === "Escape" && current >= 0) {
      e.preventDefault();
      show(-1);
    } else if (to !== undefined) {
      e.preventDefault();
      show(Math.min(Math.max(current < 0 && e.key.startsWith("Arrow") ? 0 : to, 0), last));
    }
  });
  // A pointer moving over the lanes, or a finger touching them (a phone
  // has no hover), points at the nearest instant.
  const fromPointer = (e) => {
    const svg = e.target instanceof Element ? e.target.closest("svg.lane-svg") : null;
    const ctm = svg?.getScreenCTM();
    if (!ctm) return;
    const x = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse()).x;
    let best = -1, dist = Infinity;
    instants.forEach((it, i) => {
      const d = Math.abs(xOf(svg, it.at) - x);
      if (d < dist) [best, dist] = [i, d];
    });
    if (best !== current && dist <= 24) show(best);
  };
  box.addEventListener("pointermove", fromPointer);
  box.addEventListener("pointerdown", fromPointer);
  box.addEventListener("pointerleave", () => {
    if (document.activeElement !== box) show(-1);
  });
  box.addEventListener("blur", () => show(-1));
}

for (const box of document.querySelectorAll(".section-picture [data-picture-explore]")) explore(box);
