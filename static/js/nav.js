// At phone width the graph's tabs scroll sideways: bring the current one into view.
document.addEventListener("DOMContentLoaded", () => {
  const current = document.querySelector(".graph-nav [aria-current]");
  if (current) current.scrollIntoView({ block: "nearest", inline: "center" });
});
