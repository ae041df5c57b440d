// The lanes' gestures on the playground: ctrl + wheel (a trackpad's pinch
// sends the same) or two fingers zoom around the pointer, shift + wheel or a
// drag across a lane pans. They post to the view route the view bar names
// (lane.ViewBar: #lane-view[data-view-url]), as its buttons and keys do;
// the server redraws the lanes in the new span, which stays the one source
// of what they show. On a page without the view bar (a lesson, a room)
// nothing here runs.

const bar = () => document.getElementById("lane-view");

// post sends one view change; the session's stream brings the new frame.
function post(query) {
  const b = bar();
  if (!b) return;
  fetch(b.dataset.viewUrl + "?" + query, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Datastar-Request": "true" },
    body: "{}",
  }).catch(() => {}); // the connection notice speaks for a lost server
}

// timeAt is the instant under clientX in a lane's SVG, from the span and
// the plot's ends it declares (data-from, data-to, data-x0, data-x1, in
// viewBox units).
function timeAt(svg, clientX) {
  const r = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal;
  const x = ((clientX - r.left) / r.width) * vb.width;
  const { from, to, x0, x1 } = svg.dataset;
  return Math.round(+from + ((x - x0) / (x1 - x0)) * (to - from));
}

// msPerPixel is how much time one screen pixel spans in svg.
function msPerPixel(svg) {
  const r = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal;
  const { from, to, x0, x1 } = svg.dataset;
  return (to - from) / (((x1 - x0) / vb.width) * r.width);
}

const laneSVG = (el) => bar() && el.closest && el.closest(".lane-svg[data-x0]");

// Wheel: one post per burst of wheel events, at most every 150 ms.
let wheel = null;
document.addEventListener(
  "wheel",
  (evt) => {
    const svg = laneSVG(evt.target);
    if (!svg) return;
    const panning = evt.shiftKey || Math.abs(evt.deltaX) > Math.abs(evt.deltaY);
    if (!evt.ctrlKey && !panning) return; // a plain wheel scrolls the page
    evt.preventDefault();
    if (!wheel) {
      wheel = { svg, at: timeAt(svg, evt.clientX), zoom: 1, pan: 0 };
      setTimeout(() => {
        const w = wheel;
        wheel = null;
        if (w.zoom !== 1) post(`zoom=${w.zoom.toFixed(3)}&at=${w.at}`);
        else if (w.pan) post(`pan=${Math.round(w.pan)}`);
      }, 150);
    }
    if (evt.ctrlKey) {
      wheel.zoom = Math.min(Math.max(wheel.zoom * Math.exp(evt.deltaY / 300), 0.05), 20);
    } else {
      wheel.pan += (evt.deltaX || evt.deltaY) * msPerPixel(svg);
    }
  },
  { passive: false },
);

// Drag and pinch: pointers down on one lane, settled when they lift.
const pointers = new Map();
let gesture = null;
let dragged = false;

document.addEventListener("pointerdown", (evt) => {
  const svg = laneSVG(evt.target);
  if (!svg) return;
  pointers.set(evt.pointerId, { x: evt.clientX, x0: evt.clientX });
  if (!gesture || gesture.svg !== svg) gesture = { svg };
  dragged = false;
});

document.addEventListener("pointermove", (evt) => {
  const p = pointers.get(evt.pointerId);
  if (!p) return;
  p.x = evt.clientX;
  if (Math.abs(p.x - p.x0) > 8) dragged = true;
});

function settle(evt) {
  if (!pointers.has(evt.pointerId) || !gesture) return;
  const all = [...pointers.values()];
  const svg = gesture.svg;
  if (all.length === 2) {
    const [a, b] = all;
    const before = Math.abs(a.x0 - b.x0);
    const after = Math.abs(a.x - b.x);
    if (before > 20 && after > 20) {
      const at = timeAt(svg, (a.x0 + b.x0) / 2);
      post(`zoom=${(before / after).toFixed(3)}&at=${at}`);
    }
    pointers.clear();
    gesture = null;
    return;
  }
  pointers.delete(evt.pointerId);
  if (pointers.size === 0) {
    const p = all[0];
    if (dragged) post(`pan=${Math.round(-(p.x - p.x0) * msPerPixel(svg))}`);
    gesture = null;
  }
}
document.addEventListener("pointerup", settle);
document.addEventListener("pointercancel", (evt) => {
  pointers.delete(evt.pointerId);
  if (pointers.size === 0) gesture = null;
});

// A drag is not a click on the mark it started on.
document.addEventListener(
  "click",
  (evt) => {
    if (dragged && laneSVG(evt.target)) {
      evt.stopPropagation();
      evt.preventDefault();
      dragged = false;
    }
  },
  true,
);

// A lane's "What is drawn" stays open across frames: the server's frame
// does not know the reader opened it, and morphing to it would close it.
// The open ones are remembered by lane and opened again after each morph
// (a MutationObserver runs before the page is painted).
const openHelp = new Set();
// The reader's own click (or Enter on the summary) says which they want.
document.addEventListener("click", (evt) => {
  const summary = evt.target.closest && evt.target.closest(".lane-help > summary");
  const lane = summary && summary.closest(".lane")?.id;
  if (!lane) return;
  if (summary.parentElement.open) openHelp.delete(lane);
  else openHelp.add(lane);
});
new MutationObserver(() => {
  for (const id of openHelp) {
    const d = document.querySelector(`#${CSS.escape(id)} .lane-help`);
    if (d && !d.open) d.open = true;
  }
}).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["open"], childList: true });
