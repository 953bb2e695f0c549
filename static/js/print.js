// Buttons marked data-print open the browser's print dialog (the page has a print stylesheet).
document.addEventListener("click", (event) => {
  if (event.target.closest && event.target.closest("[data-print]")) window.print();
});
