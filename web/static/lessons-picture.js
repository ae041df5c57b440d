// A prediction's picture answers: the server draws the question's traffic
// (lessons/picture.templ) as neutral marks; this makes them the place to
// answer, and writes the answer into the block's own fields (the count,
// the choice, the time), which stay the way to answer by typing and are
// what the form sends and the server checks. Nothing here knows the
// answer: the page holds none before the prediction is committed.
//
// Count: each request is a checkbox; its number is the count.
// Outcome: the asked request cycles unmarked → gets through → turned away.
// Which: the asked request in each lane's row ticks that lane's box.
// Moment: a marker on the axis, a range input under the picture, gives the
// time.
// Marks are one tab stop (roving tabindex): arrow keys move, Space or
// Enter marks.

const fmtMs = (ms) => (ms < 1000 && ms % 1000 !== 0 ? `${ms} ms` : `${+(ms / 1000).toFixed(3)} s`);

function setField(el, value) {
  el.value = value;
  el.dispatchEvent(new Event("input", { bubbles: true }));
}

function setup(pic) {
  const mode = pic.dataset.askPicture;
  const form = document.getElementById(pic.dataset.form);
  if (!mode || !form) return;
  const rows = pic.querySelector("[data-picture-rows]");
  const how = pic.querySelector("[data-picture-how]");
  how.hidden = false;
  rows.setAttribute("role", "group");
  rows.setAttribute("aria-describedby", how.id);
  const locked = () => [...form.elements].some((el) => el.type === "submit" && el.disabled);
  pic.classList.add("ask-live");

  if (mode === "moment") return moment(pic, form, rows, locked);

  for (const svg of rows.querySelectorAll(".ask-strip")) svg.removeAttribute("aria-hidden");
  const marks = [...rows.querySelectorAll(mode === "count" ? ".ask-mark[data-mark]" : ".ask-mark[data-asked]")];
  const row = (m) => m.closest(".ask-row")?.querySelector(".ask-row-label")?.textContent.trim();
  const name = (m) => (mode === "which" ? `${row(m)}: ${m.dataset.name}` : m.dataset.name);
  const describe = (m) => {
    if (mode === "outcome") {
      const s = m.dataset.state || "";
      m.setAttribute("aria-label", `${name(m)}: ${s === "in" ? "you mark it as getting through" : s === "out" ? "you mark it as turned away" : "not marked yet"}`);
    } else {
      m.setAttribute("aria-label", `${name(m)}: gets through?`);
      m.setAttribute("aria-checked", String(m.dataset.state === "in"));
    }
  };
  marks.forEach((m, i) => {
    m.setAttribute("role", mode === "outcome" ? "button" : "checkbox");
    m.setAttribute("tabindex", i === 0 ? "0" : "-1");
    describe(m);
  });

  const paint = (m, state) => {
    m.dataset.state = state;
    m.classList.toggle("ask-marked-in", state === "in");
    m.classList.toggle("ask-marked-out", state === "out");
    describe(m);
  };

  // The fields follow the marks.
  const write = () => {
    if (mode === "count") {
      setField(form.elements.answer, String(marks.filter((m) => m.dataset.state === "in").length));
    } else if (mode === "outcome") {
      const radios = [...form.querySelectorAll('input[type="radio"][name="answer"]')];
      const s = marks[0].dataset.state;
      radios.forEach((r, i) => (r.checked = (s === "in" && i === 0) || (s === "out" && i === 1)));
    } else {
      for (const m of marks) {
        const box = form.querySelector(`input[name="choice"][value="${CSS.escape(m.dataset.value)}"]`);
        if (box) box.checked = m.dataset.state === "in";
      }
      const none = form.querySelector('input[name="choice"][value="none"]');
      if (none && marks.some((m) => m.dataset.state === "in")) none.checked = false;
    }
  };
  // ... and the marks follow the fields, for a learner who ticks or picks
  // below (or a prediction restored from this browser).
  const read = () => {
    if (mode === "which") {
      for (const m of marks) {
        const box = form.querySelector(`input[name="choice"][value="${CSS.escape(m.dataset.value)}"]`);
        paint(m, box?.checked ? "in" : "");
      }
    } else if (mode === "outcome") {
      const radios = [...form.querySelectorAll('input[type="radio"][name="answer"]')];
      paint(marks[0], radios[0]?.checked ? "in" : radios[1]?.checked ? "out" : "");
    }
  };
  form.addEventListener("change", read);
  read();

  const toggle = (m) => {
    if (locked()) return;
    const s = m.dataset.state || "";
    paint(m, mode === "outcome" ? (s === "" ? "in" : s === "in" ? "out" : "") : s === "in" ? "" : "in");
    write();
  };
  const focusAt = (i) => {
    const j = Math.max(0, Math.min(marks.length - 1, i));
    marks.forEach((m, k) => m.setAttribute("tabindex", k === j ? "0" : "-1"));
    marks[j].focus();
  };
  marks.forEach((m, i) => {
    m.addEventListener("click", () => {
      focusAt(i);
      toggle(m);
    });
    m.addEventListener("keydown", (e) => {
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (step) focusAt(i + step);
      else if (e.key === "Home") focusAt(0);
      else if (e.key === "End") focusAt(marks.length - 1);
      else if (e.key === " " || e.key === "Enter") toggle(m);
      else return;
      e.preventDefault();
    });
  });
}

function moment(pic, form, rows, locked) {
  const box = pic.querySelector("[data-picture-moment]");
  const range = box.querySelector("input[type=range]");
  const x0 = +pic.dataset.xFrom / +pic.dataset.width;
  const x1 = +pic.dataset.xTo / +pic.dataset.width;
  box.hidden = false;
  box.style.marginLeft = `${x0 * 100}%`;
  box.style.width = `${(x1 - x0) * 100}%`;
  const marker = document.createElement("div");
  marker.className = "ask-marker";
  marker.setAttribute("aria-hidden", "true");
  const label = document.createElement("span");
  marker.append(label);
  rows.style.position = "relative";
  rows.append(marker);
  const at = () => +range.value;
  const place = () => {
    const f = (at() - +range.min) / (+range.max - +range.min || 1);
    marker.style.left = `${(x0 + f * (x1 - x0)) * 100}%`;
    label.textContent = fmtMs(at());
    range.setAttribute("aria-valuetext", fmtMs(at()));
  };
  let moved = false;
  const write = () => {
    moved = true;
    marker.classList.add("ask-marker-set");
    setField(form.elements.answer, fmtMs(at()));
  };
  range.addEventListener("input", () => {
    if (locked()) return;
    place();
    write();
  });
  // A click or drag on the traffic moves the marker there too.
  const fromPointer = (e) => {
    if (locked()) return;
    const r = rows.getBoundingClientRect();
    const f = ((e.clientX - r.left) / r.width - x0) / (x1 - x0);
    if (f < -0.02 || f > 1.02) return;
    const span = +range.max - +range.min;
    range.value = String(+range.min + Math.round((Math.max(0, Math.min(1, f)) * span) / +range.step) * +range.step);
    place();
    write();
  };
  let dragging = false;
  rows.addEventListener("pointerdown", (e) => {
    dragging = true;
    rows.setPointerCapture(e.pointerId);
    fromPointer(e);
  });
  rows.addEventListener("pointermove", (e) => dragging && fromPointer(e));
  rows.addEventListener("pointerup", () => (dragging = false));
  form.addEventListener("change", () => moved || place());
  place();
}

for (const pic of document.querySelectorAll("[data-ask-picture]")) setup(pic);
