// Threadfold's search box, on the index and the search page of a site built with --search. The
// box is in the page but hidden; this script reveals it, so without JavaScript there is no box.
// Titles: the index is script files (search/index-N.js, loaded on first use, so it works from
// file://) that call threadfoldSearch.add. Pagefind: its own script, over HTTP, on the search page.
// Everything from the archive is inserted with textContent, never as HTML.
(function () {
  "use strict";
  var box = document.getElementById("tf-search");
  if (!box) return;
  var input = document.getElementById("tf-search-input");
  var status = document.getElementById("tf-search-status");
  var list = document.getElementById("tf-search-results");
  var data = box.dataset;
  var root = data.root || "";
  var limit = parseInt(data.limit, 10) || 50;
  var chunks = [];
  var loaded = 0;
  var loading = false;
  var pagefind = null;
  var timer = 0;
  var generation = 0;

  function fold(text) {
    return String(text).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  function counted(one, other, n) {
    var pattern = n === 1 && one ? one : other;
    return pattern.replace(/[17]/, String(n));
  }
  function say(text) { status.textContent = text; }
  function clear() { while (list.firstChild) list.removeChild(list.firstChild); }

  // Titles: rows are [title, href, author, category, [tags], date, comments], newest activity first.
  window.threadfoldSearch = {
    add: function (n, rows) {
      chunks[n] = rows;
      loaded += 1;
      if (loaded === (parseInt(data.chunks, 10) || 0)) run();
    }
  };
  function loadTitles() {
    if (loading) return;
    loading = true;
    var count = parseInt(data.chunks, 10) || 0;
    for (var i = 0; i < count; i++) {
      var script = document.createElement("script");
      script.src = root + "search/index-" + i + ".js";
      script.async = false;
      script.onerror = function () { say(data.failed || ""); };
      document.head.appendChild(script);
    }
    if (count === 0) run();
  }
  function isWordStart(text, at) {
    return at === 0 || !/[\p{L}\p{N}]/u.test(text.charAt(at - 1));
  }
  // 0: the whole title; 1: its start; 2: every word at a word start; 3: every word inside the
  // title; 4: every word in the title, author, category or tags; -1: no match.
  function rank(row, query, terms) {
    var title = row.folded || (row.folded = fold(row[0]));
    if (title === query) return 0;
    if (title.indexOf(query) === 0) return 1;
    var starts = true, inside = true;
    for (var i = 0; i < terms.length; i++) {
      var at = title.indexOf(terms[i]);
      if (at < 0) { inside = false; starts = false; break; }
      var found = false;
      for (; at >= 0; at = title.indexOf(terms[i], at + 1)) if (isWordStart(title, at)) { found = true; break; }
      if (!found) starts = false;
    }
    if (starts) return 2;
    if (inside) return 3;
    var rest = row.rest || (row.rest = fold([row[2], row[3]].concat(row[4]).join(" ")));
    for (var j = 0; j < terms.length; j++) if (title.indexOf(terms[j]) < 0 && rest.indexOf(terms[j]) < 0) return -1;
    return 4;
  }
  function searchTitles(query) {
    var terms = query.split(/\s+/).filter(Boolean);
    var tiers = [[], [], [], [], []];
    var total = 0;
    for (var c = 0; c < chunks.length; c++) {
      var rows = chunks[c] || [];
      for (var r = 0; r < rows.length; r++) {
        var tier = rank(rows[r], query, terms);
        if (tier >= 0) { tiers[tier].push(rows[r]); total += 1; }
      }
    }
    var shown = [].concat.apply([], tiers).slice(0, limit);
    clear();
    shown.forEach(function (row) {
      var meta = [row[2], row[3], row[5], counted(data.commentsOne, data.commentsOther || "", row[6])].filter(Boolean);
      list.appendChild(result(root + row[1], row[0], meta.join(" · "), ""));
    });
    say(total === 0 ? data.none : counted(data.one, data.other, total));
  }
  function result(href, title, meta, excerpt) {
    var item = document.createElement("li");
    var link = document.createElement("a");
    link.href = href;
    link.className = "tf-search-link";
    var bdi = document.createElement("bdi");
    bdi.textContent = title;
    link.appendChild(bdi);
    item.appendChild(link);
    if (meta) {
      var line = document.createElement("span");
      line.className = "tf-search-meta";
      line.textContent = " " + meta;
      item.appendChild(line);
    }
    if (excerpt) {
      var quote = document.createElement("p");
      quote.className = "tf-search-excerpt";
      quote.textContent = excerpt;
      item.appendChild(quote);
    }
    return item;
  }

  // Pagefind: the result links to the comment whose anchor comes last before the first match.
  function textOf(html) {
    return new DOMParser().parseFromString("<body>" + html, "text/html").body.textContent;
  }
  function pageHref(url, anchors, locations) {
    var href = root + String(url).replace(/^\/+/, "");
    if (/\/$/.test(href) || href === root) href += "index.html";
    var first = locations && locations.length ? locations[0] : 0;
    var best = null;
    (anchors || []).forEach(function (anchor) {
      if (anchor.element === "article" && anchor.id && anchor.location <= first && (!best || anchor.location >= best.location)) best = anchor;
    });
    return href + (best ? "#" + encodeURIComponent(best.id) : "");
  }
  function searchPagefind(query) {
    var mine = ++generation;
    pagefind.search(query).then(function (found) {
      if (mine !== generation) return null;
      return Promise.all(found.results.slice(0, limit).map(function (r) { return r.data(); })).then(function (pages) {
        if (mine !== generation) return;
        clear();
        pages.forEach(function (page) {
          var title = (page.meta && page.meta.title) || page.url;
          list.appendChild(result(pageHref(page.url, page.anchors, page.locations), title, "", textOf(page.excerpt || "")));
        });
        say(found.results.length === 0 ? data.none : counted(data.one, data.other, found.results.length));
      });
    }).catch(function () { say(data.failed || ""); });
  }
  function loadPagefind() {
    if (loading) return;
    loading = true;
    if (location.protocol === "file:") { say(data.served || ""); return; }
    import(new URL(root + "pagefind/pagefind.js", location.href).href).then(function (module) {
      pagefind = module;
      run();
    }).catch(function () { say(data.failed || ""); });
  }

  function run() {
    var query = fold(input.value.trim());
    if (!query) { clear(); say(""); return; }
    if (data.mode === "pagefind") {
      if (!data.here) return;
      if (!pagefind) { loadPagefind(); return; }
      searchPagefind(query);
    } else {
      if (loaded < (parseInt(data.chunks, 10) || 0)) { loadTitles(); return; }
      searchTitles(query);
    }
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, data.mode === "pagefind" ? 150 : 60);
  });
  input.addEventListener("focus", function () {
    if (data.mode === "titles") loadTitles();
    else if (data.here) loadPagefind();
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown") {
      var first = list.querySelector("a");
      if (first) { first.focus(); event.preventDefault(); }
    } else if (event.key === "Enter" && data.mode === "pagefind" && !data.here && input.value.trim()) {
      location.href = data.page + "?q=" + encodeURIComponent(input.value.trim());
    } else if (event.key === "Escape") {
      input.value = "";
      run();
    }
  });
  list.addEventListener("keydown", function (event) {
    var links = Array.prototype.slice.call(list.querySelectorAll("a"));
    var at = links.indexOf(document.activeElement);
    if (at < 0) return;
    if (event.key === "ArrowDown" && at + 1 < links.length) { links[at + 1].focus(); event.preventDefault(); }
    else if (event.key === "ArrowUp") { (at > 0 ? links[at - 1] : input).focus(); event.preventDefault(); }
    else if (event.key === "Escape") { input.focus(); event.preventDefault(); }
  });

  box.hidden = false;
  var asked = new URLSearchParams(location.search).get("q");
  if (asked && data.here) {
    input.value = asked;
    run();
  }
})();
