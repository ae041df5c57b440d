// The playground's keyboard. The page declares what each key does; this
// module only routes keys to the elements that say so:
//
//   <button data-key="s ArrowRight">  these keys click the button
//   <input data-enter="play-burst">   Enter in the field clicks #play-burst
//   <input data-jump-field>           the field the j key opens
//
// A key clicks a button, so each action is written once, as the button's
// own Datastar action. Keys typed into a field, or with a modifier, are
// left alone; space is left to a focused button, link or summary. The
// listeners are on the document, so elements the stream morphs keep
// working.

// keyName names a key as data-key does: "Space" for the space bar, whose
// key value is a blank an attribute list cannot hold.
const keyName = (evt) => (evt.key === " " ? "Space" : evt.key);

const inField = (el) => el.closest && el.closest("input, select, textarea");

// The j key does not jump at once: the Jump field keeps whatever was last
// typed into it while the clock moves on, so a jump straight away would go
// to a time typed minutes ago, far back perhaps, replaying every later
// decision. Instead j fills the field with the clock's time, focuses and
// selects it: the presenter types where to go and presses Enter. The input
// event carries the value into the field's bound signal, as typing would.
// The class "jumping" shows the clock panel in the presentation view, which
// hides it otherwise.
function openJump() {
  const field = document.querySelector("[data-jump-field]");
  const clock = document.querySelector(".clock-time");
  if (!field || !clock) return;
  field.value = clock.dataset.seconds;
  field.dispatchEvent(new Event("input", { bubbles: true }));
  field.closest("fieldset")?.classList.add("jumping");
  field.focus();
  field.select();
}

document.addEventListener("keydown", (evt) => {
  if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
  const target = evt.target;
  if (inField(target)) {
    if (target.matches("[data-jump-field]") && evt.key === "Escape") {
      target.blur();
      return;
    }
    if (evt.key !== "Enter" || !target.dataset.enter) return;
    // Enter acts on what was typed, as in a form: the field's shortcut
    // letters are typed into it, so this is the keyboard's way to act.
    evt.preventDefault();
    document.getElementById(target.dataset.enter)?.click();
    // A Jump field that j opened is left, so the shortcuts work again
    // and the presentation view hides the panel.
    if (target.matches("[data-jump-field]") && target.closest(".jumping")) {
      target.blur();
    }
    return;
  }
  const key = keyName(evt);
  if (key === "Space" && target.closest && target.closest("button, a, summary")) return;
  if (key === "j") {
    evt.preventDefault();
    openJump();
    return;
  }
  const button = [...document.querySelectorAll("[data-key]")].find((b) =>
    b.dataset.key.split(" ").includes(key),
  );
  if (!button) return;
  evt.preventDefault();
  button.click();
});

// Leaving the Jump field closes the panel j opened.
document.addEventListener("focusout", (evt) => {
  if (evt.target.matches && evt.target.matches("[data-jump-field]")) {
    evt.target.closest("fieldset")?.classList.remove("jumping");
  }
});
