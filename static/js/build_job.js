// Build job page: poll the job's JSON every 2 s while it runs, update the progress in place,
// and reload the page once it has finished (to show the result and times). No dependencies.
(function () {
  "use strict";
  var root = document.getElementById("build-job");
  if (!root || root.getAttribute("data-finished") === "true") return;
  var url = root.getAttribute("data-job-url");
  var progress = root.querySelector("progress");

  function show(name, value) {
    var field = root.querySelector('[data-field="' + name + '"]');
    if (field) field.textContent = value;
  }

  function update(job) {
    var percent = Math.round(job.progress * 100);
    progress.max = job.total || 1;
    progress.value = job.done;
    progress.textContent = percent + " %";
    show("percent", percent + " %");
    show("done", job.done);
    show("total", job.total);
    show("status", job.status.charAt(0).toUpperCase() + job.status.slice(1));
    show("message", job.message || "–");
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (job) {
        update(job);
        if (job.finished) window.location.reload();
        else window.setTimeout(poll, 2000);
      })
      .catch(function () {
        window.setTimeout(poll, 5000); // a server restart, say: try again, less often
      });
  }

  window.setTimeout(poll, 2000);
})();
