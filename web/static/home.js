// The home page's picture plays by itself: its frames (each drawn by the
// server from the policies' own decisions) are shown in turn, the last one
// held, then again. Under prefers-reduced-motion nothing moves: the last
// frame, every decision, stays, and the button plays it on request.
const fig = document.querySelector("[data-home-picture]");
const frames = fig ? [...fig.querySelectorAll("[data-frame]")] : [];
const button = fig?.querySelector("[data-home-toggle]");
const reduce = matchMedia("(prefers-reduced-motion: reduce)");
const STEP = 700; // ms a request's frame shows
const HOLD = 3000; // ms the last frame, with every decision, shows

let at = frames.length - 1;
let timer = 0;
let playing = false;

function show(i) {
  frames.forEach((f, j) => (f.hidden = j !== i));
  fig.dataset.frame = String(i);
  at = i;
}

function tick() {
  const next = at >= frames.length - 1 ? 0 : at + 1;
  show(next);
  timer = setTimeout(tick, next === frames.length - 1 ? HOLD : STEP);
}

function play(on) {
  playing = on;
  clearTimeout(timer);
  button.textContent = on ? "Pause" : "Play";
  if (on) {
    timer = setTimeout(tick, STEP);
  } else {
    show(frames.length - 1);
  }
}

if (fig && frames.length > 1 && button) {
  button.hidden = false;
  button.addEventListener("click", () => play(!playing));
  play(!reduce.matches);
  reduce.addEventListener("change", () => play(!reduce.matches));
}
