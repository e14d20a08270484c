// The campaign form: the slug follows the name until it is edited by hand, and the finish rule
// ("each worker is given ... the code comes ...") follows the two settings that make it. No dependencies.
(function () {
  "use strict";
  var form = document.getElementById("campaign-form");
  if (!form) return;
  var name = form.querySelector("#id_name");
  var slug = form.querySelector("#id_slug");
  if (name && slug && form.dataset.new === "1") {
    var touched = slug.value !== "";
    slug.addEventListener("input", function () { touched = slug.value !== ""; });
    name.addEventListener("input", function () {
      if (touched) return;
      slug.value = name.value
        .normalize("NFD").replace(/[\u0300-\u036f]/g, "")
        .toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
    });
  }
  var perWorker = form.querySelector("#id_max_items_per_annotator");
  var minimum = form.querySelector("#id_min_items_for_code");
  var rule = document.getElementById("finish-rule");
  function update() {
    if (!rule) return;
    var given = perWorker && perWorker.value ? "up to " + perWorker.value + " items" : "every item of the campaign";
    var code = minimum && minimum.value ? "after " + minimum.value + " rated items"
      : "once every item they were given is rated or skipped within the allowance";
    rule.textContent = "Each worker is given " + given + "; the completion code comes " + code + ".";
  }
  [perWorker, minimum].forEach(function (input) { if (input) input.addEventListener("input", update); });
})();
