// Rating form keyboard: a digit 0-5 answers the focused question and moves to the next one.
// Tab and Enter keep their native meaning (next field, submit). No dependencies.
(function () {
  "use strict";
  var form = document.getElementById("rate-form");
  if (!form) return;
  var questions = Array.prototype.slice.call(form.querySelectorAll("[data-question]"));

  function focusQuestion(question) {
    var target = question.querySelector("input:checked") || question.querySelector("input[type=radio]");
    if (target) target.focus();
  }

  form.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (!/^[0-5]$/.test(event.key)) return;
    var active = document.activeElement;
    if (!active || active.type !== "radio") return;
    var question = active.closest("[data-question]");
    if (!question) return;
    var radio = question.querySelector('input[type=radio][value="' + event.key + '"]');
    if (!radio) return;
    event.preventDefault();
    radio.checked = true;
    question.classList.remove("has-error");
    var next = questions[questions.indexOf(question) + 1];
    // The last question keeps the focus, so Tab goes on to the paraphrases.
    focusQuestion(next || question);
  });

  form.dataset.keyboard = "on";

  // The form shows only what the server rendered for this item (its answers after a refused
  // submission, else nothing): whatever the browser put back (Back, reload, autofill, a page
  // restored from the back-forward cache) is reset, so it can never be sent as this item's answers.
  function blank() {
    form.reset();
    Array.prototype.forEach.call(form.querySelectorAll("button[type=submit]"), function (button) {
      button.disabled = false;
    });
    form.dataset.blank = "on";
  }
  blank();
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) blank();
  });

  // Focus the first question with an error after a refused submission.
  var invalid = form.querySelector(".question.has-error");
  if (invalid) focusQuestion(invalid);

  // One submission per page: a double click sends the form once.
  form.addEventListener("submit", function () {
    var buttons = form.querySelectorAll("button[type=submit]");
    setTimeout(function () {
      Array.prototype.forEach.call(buttons, function (button) { button.disabled = true; });
    }, 0);
  });
})();
