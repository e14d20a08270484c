// Campaign report, live: while the campaign is open, ask every N seconds whether anything changed (a
// short JSON stamp); only when it did, fetch the page once and replace, in place, the parts
// (data-live-part) whose content differs. The page never reloads, keeps its scroll position and the
// policy form as the reader left it, and stops asking once the campaign is no longer open.
(function () {
  "use strict";
  var root = document.getElementById("report");
  if (!root || root.getAttribute("data-live") !== "true") return;
  var stampUrl = root.getAttribute("data-stamp-url");
  var every = 1000 * (parseInt(root.getAttribute("data-poll-seconds"), 10) || 30);
  var checked = document.getElementById("live-checked");

  function say(text) {
    if (checked) checked.textContent = text;
  }

  function clock() {
    return new Date().toLocaleTimeString();
  }

  function replaceChanged(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var changed = [];
    Array.prototype.forEach.call(document.querySelectorAll("[data-live-part]"), function (old) {
      var name = old.getAttribute("data-live-part");
      var next = fresh.querySelector('[data-live-part="' + name + '"]');
      if (!next || next.innerHTML === old.innerHTML) return;
      old.innerHTML = next.innerHTML;
      old.classList.add("live-updated");
      window.setTimeout(function () { old.classList.remove("live-updated"); }, 4000);
      changed.push(name);
    });
    var freshRoot = fresh.getElementById("report");
    if (freshRoot) root.setAttribute("data-stamp", freshRoot.getAttribute("data-stamp"));
    root.setAttribute("data-updated-parts", changed.join(" "));
    return freshRoot && freshRoot.getAttribute("data-live") === "true";
  }

  function check() {
    fetch(stampUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (now) {
        if (now.stamp === root.getAttribute("data-stamp") && now.live) {
          say("last checked " + clock() + ", nothing new");
          window.setTimeout(check, every);
          return null;
        }
        return fetch(window.location.href, { credentials: "same-origin" })
          .then(function (response) {
            if (!response.ok) throw new Error("HTTP " + response.status);
            return response.text();
          })
          .then(function (html) {
            var live = replaceChanged(html);
            if (live) {
              say("updated " + clock() + " (" + (root.getAttribute("data-updated-parts") || "nothing visible") + ")");
              window.setTimeout(check, every);
            } else {
              say("the campaign closed or paused at " + clock() + ": no more updates");
              root.removeAttribute("data-live");
            }
          });
      })
      .catch(function () {
        say("could not check at " + clock() + " (will try again)");
        window.setTimeout(check, 2 * every);
      });
  }

  window.setTimeout(check, every);
})();
