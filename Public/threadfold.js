// Threadfold's optional script. The page works without it; with it, a linked comment inside
// closed replies is revealed (for browsers that do not open <details> on navigation), there
// are "expand all / collapse all" buttons, and printing shows every reply.
(function () {
  "use strict";
  function openAncestors(element) {
    for (var node = element; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
  }
  function revealTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var target = document.getElementById(id);
    if (target) { openAncestors(target); target.scrollIntoView(); }
  }
  function setAll(open) {
    // Collapsing folds reply sections; each comment's own fold stays as the reader left it.
    var all = document.querySelectorAll(open ? "details" : "details:not(.tf-fold)");
    for (var i = 0; i < all.length; i++) all[i].open = open;
  }
  function addTools() {
    var main = document.querySelector(".tf-main");
    if (!main || !document.querySelector("details")) return;
    var tools = document.createElement("div");
    tools.className = "tf-tools";
    [["expandLabel", true], ["collapseLabel", false]].forEach(function (pair) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = main.dataset[pair[0]] || (pair[1] ? "Expand all" : "Collapse all");
      button.addEventListener("click", function () { setAll(pair[1]); });
      tools.appendChild(button);
    });
    main.insertBefore(tools, main.firstChild);
  }
  window.addEventListener("hashchange", revealTarget);
  window.addEventListener("beforeprint", function () { setAll(true); });
  document.addEventListener("DOMContentLoaded", function () { addTools(); revealTarget(); });
})();
