// Review page keyboard and in-place updates. Without this file every form still posts and reloads.
// j/k or arrows move between variant rows, and past the last (first) row to the next (previous) page
// or compound, filters kept: the links carry #first-row or #last-row, where the focus lands.
// a approve, r reject, u reset, e edit (Enter saves, Escape cancels), A approve all unflagged. Forms are sent with fetch; the server answers with the
// changed rows rendered from the same template, swapped in here. No dependencies.
(function () {
  "use strict";
  var root = document.getElementById("review");
  if (!root) return;
  var live = document.getElementById("review-status");
  var bulk = document.getElementById("approve-unflagged");
  var ACTION_KEYS = { a: "approve", r: "reject", u: "reset" };

  document.documentElement.classList.add("review-js");

  function rows() {
    return Array.prototype.slice.call(root.querySelectorAll(".review-row"));
  }

  function currentRow() {
    var active = document.activeElement;
    return active && active.closest ? active.closest(".review-row") : null;
  }

  function announce(text, isError) {
    live.textContent = text;
    live.classList.toggle("error", !!isError);
  }

  function focusRow(row) {
    if (!row) return;
    row.focus();
    row.scrollIntoView({ block: "nearest" });
  }

  function follow(name) {
    var link = document.querySelector('a[data-nav="' + name + '"]');
    if (!link) return false;
    announce("Loading the " + name + " page…");
    window.location.assign(link.href);
    return true;
  }

  function move(step) {
    var list = rows();
    var index = list.indexOf(currentRow());
    if (!list.length || (index === list.length - 1 && step > 0) || (index === 0 && step < 0)) {
      if (follow(step > 0 ? "next" : "previous")) return;
      if (!list.length) return;
    }
    index = index < 0 ? (step > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, index + step));
    focusRow(list[index]);
  }

  function editParts(row) {
    var form = row.querySelector("form[data-action=edit]");
    return { form: form, input: form.querySelector("input[name=marked_text]"), toggle: row.querySelector(".edit-toggle") };
  }

  function openEdit(row) {
    var edit = editParts(row);
    edit.form.classList.add("open");
    edit.toggle.setAttribute("aria-expanded", "true");
    edit.input.focus();
    // The cursor goes just before the closing bracket: the usual edit is the replacement.
    var at = edit.input.value.indexOf("]");
    at = at < 0 ? edit.input.value.length : at;
    edit.input.setSelectionRange(at, at);
  }

  function closeEdit(row) {
    var edit = editParts(row);
    edit.form.classList.remove("open");
    edit.toggle.setAttribute("aria-expanded", "false");
    edit.input.value = edit.input.defaultValue;
    edit.form.querySelector("[data-error]").textContent = "";
    focusRow(row);
  }

  function submit(form) {
    if (!form) return;
    if (form.requestSubmit) form.requestSubmit();
    else form.dispatchEvent(new Event("submit", { cancelable: true, bubbles: true }));
  }

  function replaceRow(old, html) {
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    var fresh = template.content.firstElementChild;
    old.replaceWith(fresh);
    return fresh;
  }

  function send(form) {
    var focused = currentRow();
    form.setAttribute("aria-busy", "true");
    var body = new FormData(form);
    if (form === bulk) {
      // The server answers with these rows re-rendered: the ones this page shows.
      rows().forEach(function (row) {
        body.append("shown", row.dataset.variant);
      });
    }
    return fetch(form.action, {
      method: "POST",
      body: body,
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.json().then(function (data) {
          return { ok: response.ok, data: data };
        });
      })
      .then(function (result) {
        form.removeAttribute("aria-busy");
        if (!result.ok) {
          var message = result.data.error || result.data.detail || "Not saved.";
          var slot = form.querySelector("[data-error]");
          if (slot) {
            // The row's own alert says it; the status line would say it twice.
            slot.textContent = message;
            announce("");
            var input = form.querySelector("input[type=text]");
            if (input) input.focus();
          } else {
            announce(message, true);
          }
          return;
        }
        Object.keys(result.data.rows || {}).forEach(function (id) {
          var old = document.getElementById("variant-" + id);
          if (!old) return;
          var fresh = replaceRow(old, result.data.rows[id]);
          // The row that had the focus keeps it, so that j/k go on from there.
          if (old === focused) focusRow(fresh);
        });
        var counts = result.data.counts || {};
        Object.keys(counts).forEach(function (name) {
          var cell = document.querySelector('[data-count="' + name + '"]');
          if (cell) cell.textContent = counts[name];
        });
        announce(result.data.message || "Saved.");
      })
      .catch(function () {
        form.removeAttribute("aria-busy");
        announce("Not saved: the server did not answer as expected. Reload the page and try again.", true);
      });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches("form[data-action]")) return;
    event.preventDefault();
    if (form.getAttribute("aria-busy")) return;
    send(form);
  });

  root.addEventListener("click", function (event) {
    var toggle = event.target.closest(".edit-toggle");
    if (!toggle) return;
    var row = toggle.closest(".review-row");
    if (editParts(row).form.classList.contains("open")) closeEdit(row);
    else openEdit(row);
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var target = event.target;
    if (target.matches && target.matches("input, textarea, select")) {
      // Typing stays typing; Enter submits the form natively (and the submit handler sends it).
      var editing = target.closest("form[data-action=edit]");
      if (event.key === "Escape" && editing) {
        event.preventDefault();
        closeEdit(editing.closest(".review-row"));
      }
      return;
    }
    var row = currentRow();
    var key = event.key;
    if (key === "j" || (key === "ArrowDown" && row)) move(1);
    else if (key === "k" || (key === "ArrowUp" && row)) move(-1);
    else if (key === "A") submit(bulk);
    else if (row && key === "e") openEdit(row);
    else if (row && ACTION_KEYS[key]) {
      var form = row.querySelector('form[data-action="' + ACTION_KEYS[key] + '"]');
      if (form) submit(form);
      else announce(key === "u" ? "Already pending." : "Nothing to do.");
    } else return;
    event.preventDefault();
  });

  // Arrived with j or k from a neighbouring page: go on from the first (or last) row.
  var list = rows();
  if (list.length && window.location.hash === "#first-row") focusRow(list[0]);
  else if (list.length && window.location.hash === "#last-row") focusRow(list[list.length - 1]);

  root.dataset.keyboard = "on";
})();
