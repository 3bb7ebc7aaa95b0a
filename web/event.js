// The event page (/events/<id>): shows the schedule in the reader's own time zone next to the event's.
for (const t of document.querySelectorAll("time[data-local]")) {
  const d = new Date(t.getAttribute("datetime"));
  if (Number.isNaN(d.getTime())) continue;
  t.textContent = d.toLocaleString(undefined, {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    // The 24-hour clock of the event's own column beside it, whatever the reader's locale prefers.
    hourCycle: "h23",
    timeZoneName: "short",
  });
}
