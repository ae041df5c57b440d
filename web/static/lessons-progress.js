// Exercise progress, kept in this browser only (localStorage): a page that
// shows a right answer records the exercise as solved, and every list marks
// the exercises solved here.
const prefix = "windowlab:solved:";
try {
  for (const el of document.querySelectorAll("[data-exercise-solved]")) {
    localStorage.setItem(prefix + el.dataset.exerciseSolved, "1");
  }
  for (const el of document.querySelectorAll("[data-exercise-id]")) {
    if (localStorage.getItem(prefix + el.dataset.exerciseId) === "1") {
      el.textContent = "✓ solved";
      el.classList.add("solved");
    }
  }
  const fb = document.getElementById("feedback");
  if (fb) fb.focus();
} catch {
  // Storage can be switched off; the pages work the same without it.
}
