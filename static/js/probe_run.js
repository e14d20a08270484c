// Probe run page: poll the run's JSON every 2 s while it works, update the progress in place, and
// reload the page once it has finished (to show the report). No dependencies.
(function () {
  "use strict";
  var root = document.getElementById("probe-run");
  if (!root || root.getAttribute("data-finished") === "true") return;
  var url = root.getAttribute("data-json-url");
  var progress = root.querySelector("progress");

  function show(name, value) {
    var field = root.querySelector('[data-field="' + name + '"]');
    if (field) field.textContent = value;
  }

  function duration(seconds) {
    if (seconds === null || seconds === undefined || !isFinite(seconds) || seconds < 0) return "–";
    seconds = Math.round(seconds);
    if (seconds < 60) return seconds + " s";
    var minutes = Math.floor(seconds / 60);
    if (minutes < 60) return minutes + " min " + String(seconds % 60).padStart(2, "0") + " s";
    return Math.floor(minutes / 60) + " h " + String(minutes % 60).padStart(2, "0") + " min";
  }

  function update(run) {
    var percent = Math.round(run.fraction * 100);
    progress.max = run.shards_total || 1;
    progress.value = run.shards_done;
    progress.textContent = percent + " %";
    show("percent", percent + " %");
    show("status", run.status.charAt(0).toUpperCase() + run.status.slice(1));
    ["shards_done", "shards_total", "texts_done", "texts_total", "texts_embedded", "texts_cached"].forEach(function (name) {
      show(name, run[name]);
    });
    show("eta", duration(run.eta_seconds));
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (run) {
        update(run);
        if (run.finished) window.location.reload();
        else window.setTimeout(poll, 2000);
      })
      .catch(function () {
        window.setTimeout(poll, 5000); // a server restart, say: try again, less often
      });
  }

  window.setTimeout(poll, 2000);
})();
