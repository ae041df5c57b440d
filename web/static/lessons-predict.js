// Predict, then observe: a lesson's prediction forms are sent in place, the
// server's feedback goes into the form's live region, and the example the
// prediction guards opens. The answer is never in the page before that: the
// server computes it when the prediction arrives.
//
// Committed predictions are kept in this browser only (localStorage), as
// the form fields that were sent; coming back to the page sends them again,
// so the feedback is always the server's, never a stored copy.
const prefix = "windowlab:predict:" + location.pathname + ":";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage switched off: predictions last as long as the page
  }
}

function reveal(id, open) {
  const details = document.querySelector(`details[data-predict-reveal="${id}"]`);
  if (details) details.open = open;
}

function lock(form, locked) {
  for (const el of form.elements) el.disabled = locked;
}

function restoreFields(form, fields) {
  for (const el of form.elements) {
    if (el.type === "hidden") continue; // the page's open examples, not the learner's answer
    if (el.type === "radio" || el.type === "checkbox") {
      el.checked = fields.getAll(el.name).includes(el.value);
    } else if (el.name) {
      el.value = fields.get(el.name) ?? "";
    }
  }
}

async function check(section, fields, restoring) {
  const id = section.dataset.predict;
  const form = section.querySelector("form");
  const slot = section.querySelector("[data-predict-feedback]");
  let res;
  try {
    res = await fetch(form.action, { method: "POST", body: fields, headers: { "Windowlab-Fragment": "1" } });
  } catch {
    slot.textContent = "The prediction could not be sent. Check the connection and try again.";
    return;
  }
  const text = await res.text();
  if (res.status === 400 || res.ok) {
    slot.innerHTML = text; // server-rendered by templ, escaped there
  } else {
    slot.textContent = text;
  }
  if (res.status === 404) storage()?.removeItem(prefix + id); // the lesson no longer asks it
  if (!res.ok) return; // an unreadable prediction: the learner fixes it and commits again
  if (slot.querySelector('[data-final="false"]')) {
    // A first wrong try: a hint, the answer behind "Show the answer", and
    // the form left open for a second try, which the feedback counts.
    if (!restoring) slot.focus();
    return;
  }
  // Focus the feedback before the form is disabled, so keyboard focus is
  // not lost to the top of the page.
  if (!restoring) slot.focus();
  lock(form, true);
  reveal(id, true);
  if (!restoring) storage()?.setItem(prefix + id, fields.toString());
}

function reset(sections) {
  const store = storage();
  for (const section of sections) {
    const id = section.dataset.predict;
    store?.removeItem(prefix + id);
    const form = section.querySelector("form");
    lock(form, false);
    form.reset();
    section.querySelector("[data-predict-feedback]").replaceChildren();
    reveal(id, false);
  }
  const first = sections[0]?.querySelector("input");
  if (first) first.focus();
}

const sections = [...document.querySelectorAll("[data-predict]")];
for (const section of sections) {
  const form = section.querySelector("form");
  form.addEventListener("submit", (evt) => {
    evt.preventDefault();
    check(section, new URLSearchParams(new FormData(form)), false);
  });
  const saved = storage()?.getItem(prefix + section.dataset.predict);
  if (saved) {
    const fields = new URLSearchParams(saved);
    restoreFields(form, fields);
    check(section, fields, true);
  }
}
for (const button of document.querySelectorAll("[data-predict-reset]")) {
  button.hidden = false;
  button.addEventListener("click", () => reset(sections));
}
