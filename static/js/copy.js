// Copy buttons: <button data-copy="ID"> copies the text of the element with that id. No dependencies.
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), function (button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.dataset.copy);
      if (!source) return;
      var text = source.textContent;
      var done = function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () { select(source); });
      } else {
        select(source);
      }
    });
  });
  // Without clipboard access (an http:// page, an old browser): select the text for Ctrl-C.
  function select(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
})();
