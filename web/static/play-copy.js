// Copy buttons: <button data-copy="ID" data-copy-status="ID"> copies the
// value of the field #ID and says so in the live region named by
// data-copy-status. navigator.clipboard exists only in a secure context
// (https or localhost); a workshop machine reaching the playground over
// plain http has none, so the field is then selected and copied with
// execCommand, or left selected for the visitor to copy with the keyboard.
// The listener is on the document, so buttons the stream morphs keep working.
const mac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

document.addEventListener("click", async (evt) => {
  const btn = evt.target.closest("[data-copy]");
  if (!btn) return;
  const field = document.getElementById(btn.dataset.copy);
  if (!field) return;
  const out = document.getElementById(btn.dataset.copyStatus);
  const say = (text) => {
    if (out) out.textContent = text;
  };
  say("");
  if (navigator.clipboard && navigator.clipboard.writeText) {
    try {
      await navigator.clipboard.writeText(field.value);
      say("Copied.");
      return;
    } catch {
      // Refused (permissions, an unfocused document): fall back below.
    }
  }
  field.focus();
  field.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  say(copied ? "Copied." : `Selected: press ${mac ? "Cmd" : "Ctrl"}+C to copy`);
});
