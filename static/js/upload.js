// The upload form's progress bar. htmx reports the bytes sent (htmx:xhr:progress); once they are
// all sent the server stores the lines and reports on each, so the bar then says so.
document.addEventListener("htmx:xhr:progress", (event) => {
  const form = event.target.closest ? event.target.closest(".upload-form") : null;
  if (!form || !event.detail.lengthComputable || !event.detail.total) return;
  const bar = form.querySelector(".upload-form__bar");
  const state = form.querySelector(".upload-form__state");
  const percent = Math.round((event.detail.loaded / event.detail.total) * 100);
  bar.hidden = false;
  bar.value = percent;
  state.textContent = percent < 100 ? `Uploading… ${percent}%` : "Storing each line…";
});
