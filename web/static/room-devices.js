// The devices page shows when each device joined in the presenter's own
// time zone: the server writes UTC (the page without scripts reads it so),
// and this rewrites each <time data-local-time>, again after the live list
// is replaced. A rewritten element is marked, so the observer's own change
// does not set it off again.

function local() {
  for (const t of document.querySelectorAll("time[data-local-time]:not([data-local])")) {
    const d = new Date(t.dateTime);
    if (Number.isNaN(d.getTime())) continue;
    t.dataset.local = "";
    t.textContent = d.toLocaleTimeString();
  }
}

local();
new MutationObserver(local).observe(document.body, { childList: true, subtree: true });
