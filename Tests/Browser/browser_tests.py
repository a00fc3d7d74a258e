#!/usr/bin/env python3
"""Browser checks for pages Threadfold rendered, in headless Chromium through chromedriver.

Run by Tests/ThreadfoldCLITests/BrowserTests.swift (and `make check-web`):

    browser_tests.py --site DIR --page example.html --input thread.json [--hostile hostile.html ...]
                     [--archive SITE]

Each check prints one line, "ok NAME" or "FAIL NAME: why"; the last line is
"N passed, N failed" and the exit code is 1 when anything failed.
"""
import argparse
import atexit
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

RESULTS = []


def check(name, condition, why=""):
    RESULTS.append((name, bool(condition)))
    print(("ok " if condition else "FAIL ") + name + ("" if condition else ": " + why), flush=True)


# Chromium leaves a folder of its own in the temporary folder each time it starts: it gets a
# temporary folder that is removed when the tests end.
SCRATCH = tempfile.mkdtemp(prefix="tf-browser-")
atexit.register(shutil.rmtree, SCRATCH, True)


def driver(javascript=True):
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1000,1200", "--allow-file-access-from-files"):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.binary_location = "/usr/bin/chromium"
    service = Service("/usr/bin/chromedriver", env={**os.environ, "TMPDIR": SCRATCH})
    return webdriver.Chrome(service=service, options=options)


# Trap every way a payload could act, before any page script runs.
TRAP = """
window.__calls = [];
for (const name of ['alert', 'confirm', 'prompt', 'print', 'open']) {
  window[name] = function () { window.__calls.push(name); };
}
window.fetch = function () { window.__calls.push('fetch'); return new Promise(() => {}); };
const send = XMLHttpRequest.prototype.send;
XMLHttpRequest.prototype.send = function () { window.__calls.push('xhr'); };
window.addEventListener('beforeunload', () => { window.__calls.push('navigation'); });
"""

# What may appear inside comment content: the sanitizer's and cmark's output, plus the page's own
# structure around it.
ALLOWED = set("""
p br em strong code pre blockquote ul ol li a h1 h2 h3 h4 h5 h6 del sup sub hr img
article header time span bdi abbr div details summary ol li main section button meta nav
table thead tbody tr th td input label
""".split())


def independent_counts(input_path):
    """Per comment id: (direct replies, all replies, people, latest date text), from the JSON."""
    data = json.loads(Path(input_path).read_text(encoding="utf-8"))
    comments = data["comments"] if isinstance(data, dict) else data
    ids = {str(c["id"]) for c in comments}
    thread_id = str(data.get("id")) if isinstance(data, dict) else None
    children = {}
    for c in comments:
        parent = c.get("parent_id", c.get("parentID", c.get("parent")))
        parent = None if parent in (None, "", 0, "0") or str(parent) == thread_id else str(parent)
        if parent is not None and parent in ids:
            children.setdefault(parent, []).append(c)
    by_id = {str(c["id"]): c for c in comments}
    months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()

    def subtree(cid):
        stack, out = list(children.get(cid, [])), []
        while stack:
            c = stack.pop()
            out.append(c)
            stack.extend(children.get(str(c["id"]), []))
        return out

    def visible(c):
        if not c.get("deleted") and not c.get("removed"):
            return True
        return any(visible(k) for k in children.get(str(c["id"]), []))

    counts = {}
    for cid, c in by_id.items():
        below = [d for d in subtree(cid) if visible(d)]
        direct = [d for d in children.get(cid, []) if visible(d)]
        people = {d.get("author") for d in below if d.get("author") and not d.get("deleted") and not d.get("removed")}
        times = [d.get("edited_at") or d.get("created_at") for d in below + [c]]
        times = [t for t in times if isinstance(t, str)]
        latest = max(times) if times else None
        date = None
        if latest:
            y, m, d = latest[:10].split("-")
            date = f"{int(d)} {months[int(m) - 1]} {y}"
        counts[cid] = (len(direct), len(below), len(people), date)
    return counts


def page_checks(browser, url, input_path, javascript):
    mode = "js" if javascript else "no-js"
    browser.get(url)

    # 0. The mode is real: the optional script adds its toolbar only when JavaScript runs.
    toolbar = bool(browser.find_elements(By.CSS_SELECTOR, ".tf-tools"))
    check(f"{mode}: the optional script {'runs' if javascript else 'does not run'}", toolbar == javascript,
          f"toolbar present: {toolbar}")

    # 1. A closed reply section opens and closes by clicking its summary.
    closed = [d for d in browser.find_elements(By.CSS_SELECTOR, "details.tf-replies") if d.get_attribute("open") is None]
    if closed:
        details = closed[0]
        summary = details.find_element(By.TAG_NAME, "summary")
        first = details.find_element(By.CSS_SELECTOR, ":scope > ol > li")
        hidden_before = not first.is_displayed()
        summary.click()
        opened = details.get_attribute("open") is not None and first.is_displayed()
        summary.click()
        closed_again = details.get_attribute("open") is None and not first.is_displayed()
        check(f"{mode}: clicking a summary opens and closes its replies", hidden_before and opened and closed_again,
              f"hidden before {hidden_before}, opened {opened}, closed again {closed_again}")
    else:
        check(f"{mode}: the page has a closed reply section to click", False, "none found")

    # 2. "Show K more replies" reveals exactly K replies.
    mores = browser.find_elements(By.CSS_SELECTOR, "li.tf-more > details")
    ok = bool(mores)
    why = "no 'more' fold on the page"
    for more in mores:
        summary = more.find_element(By.TAG_NAME, "summary")
        # Open every ancestor so the fold itself can be clicked.
        browser.execute_script("for (let n = arguments[0].parentElement; n; n = n.parentElement) if (n.tagName === 'DETAILS') n.open = true;", more)
        match = re.search(r"(\d+)", summary.text)
        items = more.find_elements(By.CSS_SELECTOR, ":scope > ol > li")
        before = sum(1 for li in items if li.is_displayed())
        summary.click()
        after = sum(1 for li in items if li.is_displayed())
        expected = int(match.group(1)) if match else -1
        if before != 0 or after != expected:
            ok, why = False, f"'{summary.text}': {before} visible before, {after} after, expected {expected}"
            break
    check(f"{mode}: 'Show K more replies' reveals exactly K", ok, why)

    # 3. A comment inside closed sections is shown when its anchor is the URL's fragment.
    browser.get(url)
    targets = [a for a in browser.find_elements(By.CSS_SELECTOR, "article.tf-comment") if not a.is_displayed()]
    if targets:
        target_id = targets[-1].get_attribute("id")
        browser.get(url + "#" + target_id)
        shown = browser.find_element(By.ID, target_id).is_displayed()
        check(f"{mode}: navigating to #{target_id} inside closed replies shows it", shown, "still hidden")
    else:
        check(f"{mode}: the page has a hidden comment to navigate to", False, "none hidden")

    # 4. Summary counts equal counts computed independently from the input.
    browser.get(url)
    counts = independent_counts(input_path)
    mismatches = []
    for details in browser.find_elements(By.CSS_SELECTOR, "details.tf-replies"):
        article = browser.execute_script("return arguments[0].previousElementSibling;", details)
        cid = article.get_attribute("id")[2:]
        text = browser.execute_script("return arguments[0].querySelector('summary > .tf-when-closed').textContent;", details)
        direct, total, people, date = counts[cid]
        expected = [f"{direct} repl{'y' if direct == 1 else 'ies'}"]
        if total > direct:
            expected.append(f"{total} in thread")
        expected.append(f"{people} {'person' if people == 1 else 'people'}")
        if date:
            expected.append(f"latest {date}")
        if text.strip() != " · ".join(expected):
            mismatches.append(f"{cid}: page says '{text.strip()}', input says '{' · '.join(expected)}'")
    check(f"{mode}: every summary's counts match the input", not mismatches, "; ".join(mismatches[:3]))

    # 5. Keyboard only: tab to a closed summary, press Enter, its replies open.
    browser.get(url)
    body = browser.find_element(By.TAG_NAME, "body")
    body.click()
    opened = False
    for _ in range(80):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        active = browser.switch_to.active_element
        if active.tag_name == "summary":
            details = active.find_element(By.XPATH, "..")
            if details.get_attribute("open") is None:
                active.send_keys(Keys.ENTER)
                opened = details.get_attribute("open") is not None
                break
    check(f"{mode}: Tab to a summary and Enter opens its replies", opened, "no closed summary reached or it did not open")


def hostile_checks(browser, url, javascript):
    mode = "js" if javascript else "no-js"
    name = Path(url).name
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAP})
    browser.get(url)
    # Open every fold so any payload inside would render.
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true);")
    calls = browser.execute_script("return window.__calls || [];")
    check(f"{mode}: {name}: no payload calls alert, print, fetch, open or navigates", not calls, f"calls: {calls}")
    outside = browser.execute_script("""
        const allowed = new Set(arguments[0]);
        const found = [];
        document.querySelectorAll('header.tf-thread *, main *').forEach(el => {
          if (!allowed.has(el.tagName.toLowerCase())) found.push(el.tagName.toLowerCase());
          for (const attr of el.attributes) if (attr.name.startsWith('on')) found.push(el.tagName + '[' + attr.name + ']');
          if ((el.getAttribute('href') || '').trim().toLowerCase().startsWith('javascript:')) found.push('javascript: link');
        });
        return found;""", sorted(ALLOWED))
    check(f"{mode}: {name}: no element, event attribute or link outside the allowlist", not outside, f"found {sorted(set(outside))[:8]}")


def crawl(site):
    """Every relative link from index.html, followed through the whole site on disk."""
    seen, pending, broken = set(), [site / "index.html"], []
    while pending:
        page = pending.pop()
        if page in seen:
            continue
        seen.add(page)
        for href in re.findall(r'href="([^"#]*)(?:#[^"]*)?"', page.read_text(encoding="utf-8")):
            if not href or re.match(r"^[a-z][a-z0-9+.-]*:", href):
                continue
            target = (page.parent / href).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
            elif target.suffix == ".html" and site in target.parents:
                pending.append(target)
    return seen, broken


def archive_checks(browser, site, javascript):
    """An archive read from disk: every link resolves, and a reader can click through it."""
    mode = "js" if javascript else "no-js"
    if javascript:
        pages, broken = crawl(site)
        check("archive: every relative link from the index resolves to a file on disk", not broken, f"{broken[:5]}")
        check("archive: the crawl reaches every thread page", all(
            (folder / "index.html") in pages for folder in (site / "t").iterdir()), "some thread page is unreachable")
    browser.get((site / "index.html").as_uri())
    sections = browser.find_elements(By.CSS_SELECTOR, "details.tf-section")
    closed = [d for d in sections if d.get_attribute("open") is None]
    if closed:
        closed[0].find_element(By.TAG_NAME, "summary").click()
        links = closed[0].find_elements(By.CSS_SELECTOR, "a.tf-thread-link")
        check(f"{mode}: archive: a closed section opens and shows its threads",
              closed[0].get_attribute("open") is not None and links and links[0].is_displayed())
    link = browser.find_element(By.CSS_SELECTOR, "details.tf-section[open] a.tf-thread-link, ol.tf-threads a.tf-thread-link")
    title = link.text
    link.click()
    check(f"{mode}: archive: a thread link opens its page", browser.current_url.endswith("/index.html") and "/t/" in browser.current_url
          and browser.find_element(By.TAG_NAME, "h1").text == title, browser.current_url)
    # A deep thread: continue into a branch page, then back through its breadcrumb.
    browser.get(next((site / "t").glob("a-deep-chain-*/index.html")).as_uri())
    # A reader opens the folds down to the deep end (clicking each summary, outermost first).
    for _ in range(10):
        summaries = [s for s in browser.find_elements(By.CSS_SELECTOR, "details:not([open]) > summary") if s.is_displayed()]
        if not summaries:
            break
        summaries[0].click()
    more = [a for a in browser.find_elements(By.CSS_SELECTOR, ".tf-continue a") if a.is_displayed()]
    check(f"{mode}: archive: a deep branch shows 'Continue this thread'", more and "Continue this thread" in more[0].text)
    if more:
        more[0].click()
        check(f"{mode}: archive: the branch page opens with its context", browser.find_elements(By.CSS_SELECTOR, "nav.tf-context li"),
              browser.current_url)
        crumb = browser.find_element(By.CSS_SELECTOR, "nav.tf-context li a")
        target = crumb.get_attribute("href").split("#")[1]
        crumb.click()
        element = browser.find_element(By.ID, target)
        check(f"{mode}: archive: a breadcrumb leads back to that comment, shown", element.is_displayed(), browser.current_url)
    switch = browser.find_elements(By.CSS_SELECTOR, "nav.tf-orders a")
    if switch:
        name = switch[0].text
        switch[0].click()
        check(f"{mode}: archive: the order switcher opens the other order",
              browser.find_element(By.CSS_SELECTOR, 'nav.tf-orders strong[aria-current="page"]').text == name)
    browser.get((site / "index.html").as_uri())
    more = browser.find_elements(By.CSS_SELECTOR, ".tf-more-link a")
    if more:
        # A section's own pages: opened from the index even while its <details> is closed.
        href = more[0].get_attribute("href")
        browser.get(href)
        check(f"{mode}: archive: a section's page lists its threads", browser.find_elements(By.CSS_SELECTOR, "a.tf-thread-link"), href)
    pager = browser.find_elements(By.CSS_SELECTOR, "nav.tf-pager a")
    if pager:
        pager[0].click()
        check(f"{mode}: archive: the index's page links work", browser.find_elements(By.CSS_SELECTOR, "a.tf-thread-link"), browser.current_url)


def wait_for(browser, css, seconds=10):
    """Whether an element matching `css` appears within `seconds`."""
    try:
        WebDriverWait(browser, seconds).until(lambda b: b.find_elements(By.CSS_SELECTOR, css))
        return True
    except Exception:
        return False


def search_checks(browser, site, word, title, javascript):
    """The title search of an archive built with --search, from file://."""
    mode = "js" if javascript else "no-js"
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TRAP})
    browser.get((site / "index.html").as_uri())
    boxes = [b for b in browser.find_elements(By.CSS_SELECTOR, "#tf-search, input[type=search]") if b.is_displayed()]
    if not javascript:
        check("no-js: search: no search box is shown when JavaScript is off", not boxes, f"{len(boxes)} shown")
        browser.get((site / "search" / "index.html").as_uri())
        shown = [b for b in browser.find_elements(By.CSS_SELECTOR, "input") if b.is_displayed()]
        note = browser.find_element(By.TAG_NAME, "main").text
        check("no-js: search: the search page shows no box, and says search needs JavaScript", not shown and "JavaScript" in note, note)
        return
    check("js: search: the box is shown when JavaScript runs", boxes)
    field = browser.find_element(By.ID, "tf-search-input")
    field.click()
    field.send_keys(word)
    wait_for(browser, "#tf-search-results a")
    links = browser.find_elements(By.CSS_SELECTOR, "#tf-search-results a")
    status = browser.find_element(By.ID, "tf-search-status")
    check(f"js: search: typing '{word}' lists the thread titled '{title}' first", links and links[0].text == title,
          f"{[l.text for l in links][:5]}")
    check("js: search: a live region announces the count", status.get_attribute("aria-live") == "polite"
          and status.get_attribute("role") == "status" and re.match(r"^\d+ threads? match", status.text), status.text)
    # Keyboard: the down arrow moves to the first result, Enter opens it.
    field.send_keys(Keys.ARROW_DOWN)
    focused = browser.execute_script("return document.activeElement === arguments[0]", links[0])
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    try:
        WebDriverWait(browser, 10).until(lambda b: "/t/" in b.current_url)
    except Exception:
        pass
    check("js: search: the down arrow focuses the first result and Enter opens its thread",
          focused and browser.find_element(By.TAG_NAME, "h1").text == title, browser.current_url)
    # Hostile titles and authors in the index stay text.
    browser.get((site / "search" / "index.html").as_uri() + "?q=script")
    wait_for(browser, "#tf-search-results a")
    texts = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#tf-search-results a")]
    elements = browser.execute_script(
        "return Array.from(document.querySelectorAll('#tf-search-results *')).map(e => e.tagName.toLowerCase())")
    calls = browser.execute_script("return window.__calls || [];")
    check("js: search: a hostile title is listed as text: no element but the result's own, no payload runs",
          any("<script>" in t for t in texts) and set(elements) <= {"li", "a", "bdi", "span", "p"} and not calls,
          f"texts {texts[:3]}, elements {sorted(set(elements))}, calls {calls}")


def author_checks(browser, site, javascript):
    """An author link leads to their page, and its comment links land on the comments."""
    mode = "js" if javascript else "no-js"
    browser.get(next((site / "t").glob("a-deep-chain-*/index.html")).as_uri())
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true);")
    link = next(a for a in browser.find_elements(By.CSS_SELECTOR, "article a.tf-author-link") if a.is_displayed())
    name = link.text
    link.click()
    heading = browser.find_element(By.TAG_NAME, "h1").text
    check(f"{mode}: authors: a comment's author link opens their page", "/u/" in browser.current_url and heading == name,
          f"{browser.current_url}: '{heading}' for '{name}'")
    posts = browser.find_elements(By.CSS_SELECTOR, "a.tf-post-link")
    times = [t.get_attribute("datetime") for t in browser.find_elements(By.CSS_SELECTOR, ".tf-author-item time")]
    check(f"{mode}: authors: the page lists their comments newest first", posts and times == sorted(times, reverse=True), str(times))
    landed = []
    for i in range(min(len(posts), 3)):
        post = browser.find_elements(By.CSS_SELECTOR, "a.tf-post-link")[i]
        excerpt = post.text.rstrip("…").strip()
        anchor = post.get_attribute("href").split("#")[1]
        page = browser.current_url
        post.click()
        target = browser.find_element(By.ID, anchor)
        author = target.find_element(By.CSS_SELECTOR, ".tf-author").text
        body = target.find_element(By.CSS_SELECTOR, ".tf-body").text
        landed.append(target.is_displayed() and author == name and body.startswith(excerpt[:40]))
        browser.get(page)
    check(f"{mode}: authors: each comment link lands on that comment, shown, by them", landed and all(landed), str(landed))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pagefind_checks(browser, site, phrase, title):
    """A site built with --search pagefind, served on 127.0.0.1 by a short-lived test server."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(site)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The server ends with the checks, or after two minutes whatever happens.
    timer = threading.Timer(120, server.kill)
    timer.start()
    try:
        base = f"http://127.0.0.1:{port}/"
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        browser.get(base + "search/index.html")
        field = browser.find_element(By.ID, "tf-search-input")
        field.click()
        field.send_keys(phrase)
        wait_for(browser, "#tf-search-results a", 20)
        links = browser.find_elements(By.CSS_SELECTOR, "#tf-search-results a")
        errors = [e["message"] for e in browser.get_log("browser")] if hasattr(browser, "get_log") else []
        check(f"pagefind: a phrase from one comment finds its thread '{title}'", links and links[0].text == title,
              f"{[l.text for l in links][:5]}; status '{browser.find_element(By.ID, 'tf-search-status').text}'; console {errors[:3]}")
        if links:
            href = links[0].get_attribute("href")
            anchor = href.split("#")[1] if "#" in href else ""
            links[0].click()
            target = browser.find_elements(By.ID, anchor) if anchor else []
            check("pagefind: the result link lands on the comment, shown, that says it",
                  target and target[0].tag_name == "article" and target[0].is_displayed() and phrase in target[0].text, href)
        # From the index: Enter in its box opens the search page with the words, searched.
        browser.get(base + "index.html")
        field = browser.find_element(By.ID, "tf-search-input")
        field.send_keys(phrase)
        field.send_keys(Keys.ENTER)
        wait_for(browser, "#tf-search-results a", 20)
        found = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#tf-search-results a")]
        check("pagefind: Enter in the index's box opens the search page, searched", "/search/index.html?q=" in browser.current_url
              and found[:1] == [title], f"{browser.current_url}: {found[:3]}")
        browser.get(base + "index.html")
        browser.find_element(By.CSS_SELECTOR, "a.tf-thread-link").click()
        csp = browser.execute_script("return document.querySelector('meta[http-equiv=Content-Security-Policy]').content")
        check("pagefind: only the search page allows WebAssembly; thread pages keep script-src 'self'",
              "wasm-unsafe-eval" not in csp, csp)
    finally:
        timer.cancel()
        server.kill()
        server.wait()


LAYOUT = """
const all = document.querySelectorAll('details');
for (const d of all) d.open = true;
const out = [];
for (const a of document.querySelectorAll('article.tf-comment')) {
  let depth = 0;
  for (let n = a.parentElement; n; n = n.parentElement) if (n.matches('ol.tf-list:not(.tf-revealed)')) depth++;
  const li = a.closest('li.tf-item');
  const up = li.parentElement.closest('li.tf-item');
  const parent = up ? up.querySelector(':scope > details.tf-fold > article') : null;
  out.push({id: a.id, depth: depth, left: a.getBoundingClientRect().left,
            parentLeft: parent ? parent.getBoundingClientRect().left : null,
            revealed: !!a.closest('ol.tf-revealed')});
}
return {comments: out, scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth};
"""


def layout_checks(browser, url, javascript):
    """Nesting is visible: each level starts to the right of its parent, down to the cap."""
    mode = "js" if javascript else "no-js"
    for width, step, cap in ((1280, 12, 11), (390, 6, 6)):
        browser.set_window_size(width, 1000)
        browser.get(url)
        result = browser.execute_script(LAYOUT)
        nested = [c for c in result["comments"] if c["parentLeft"] is not None and c["depth"] <= cap]
        short = [c for c in nested if c["left"] - c["parentLeft"] < step]
        deepest = max((c["depth"] for c in result["comments"]), default=0)
        check(f"{mode}: at {width} px each level of {len(nested)} nested comments (down to level {min(deepest, cap)}) starts at least {step} px right of its parent",
              bool(nested) and not short and deepest >= 3,
              "; ".join(f"{c['id']} at level {c['depth']}: {c['left'] - c['parentLeft']:.1f} px" for c in short[:3]) or f"deepest level {deepest}")
        # Revealed "show more" replies line up with the replies shown above them.
        by_depth = {}
        for c in result["comments"]:
            by_depth.setdefault((c["depth"], c["parentLeft"]), set()).add(round(c["left"]))
        misaligned = [k for k, lefts in by_depth.items() if len(lefts) > 1]
        # Past the cap, levels no longer indent, and never move left of their parent.
        past = [c for c in result["comments"] if c["parentLeft"] is not None and c["depth"] > cap]
        check(f"{mode}: at {width} px the {len(past)} comments past level {cap} stay in line with or right of their parent",
              all(c["left"] >= c["parentLeft"] for c in past))
        check(f"{mode}: at {width} px revealed replies line up with their siblings", not misaligned, str(misaligned[:3]))
        if width == 390:
            check(f"{mode}: no horizontal scroll at 390 px", result["scrollWidth"] <= result["clientWidth"],
                  f"scrollWidth {result['scrollWidth']} > clientWidth {result['clientWidth']}")
    browser.set_window_size(1000, 1200)

    # A comment folds, as HN's [–] does: its body and replies hide, and the toggle says what is hidden.
    browser.get(url)
    folds = [d for d in browser.find_elements(By.CSS_SELECTOR, "details.tf-fold")
             if d.is_displayed() and d.find_elements(By.CSS_SELECTOR, ":scope > details.tf-replies")]
    if folds:
        fold = folds[0]
        summary = fold.find_element(By.CSS_SELECTOR, ":scope > summary")
        body = fold.find_element(By.CSS_SELECTOR, ":scope > article")
        replies = fold.find_element(By.CSS_SELECTOR, ":scope > details.tf-replies")
        before = body.is_displayed() and replies.is_displayed()
        summary.click()
        hidden = not body.is_displayed() and not replies.is_displayed()
        text = summary.text
        check(f"{mode}: folding a comment hides its body and replies and says how many are hidden",
              before and hidden and text.startswith("[+]") and text.endswith("hidden"),
              f"shown before {before}, hidden after {hidden}, toggle '{text}'")
        summary.click()
        check(f"{mode}: unfolding a comment shows it again", body.is_displayed() and replies.is_displayed())
    else:
        check(f"{mode}: the page has a comment with replies to fold", False, "none found")

    # Summaries say what a click does: the counts while closed, "Hide …" while open.
    browser.get(url)
    sections = [d for d in browser.find_elements(By.CSS_SELECTOR, "details.tf-replies") if d.is_displayed()]
    if sections:
        summary = sections[0].find_element(By.TAG_NAME, "summary")
        was_open = sections[0].get_attribute("open") is not None
        before = summary.text
        summary.click()
        after = summary.text
        open_text, closed_text = (before, after) if was_open else (after, before)
        check(f"{mode}: a reply summary reads differently open and closed",
              open_text != closed_text and open_text.startswith("Hide ") and not closed_text.startswith("Hide "),
              f"closed '{closed_text}', open '{open_text}'")
    else:
        check(f"{mode}: the page has a reply section", False, "none found")


def markdown_checks(browser, url, javascript):
    """Reddit spoilers reveal with CSS alone; a wide table scrolls in its own box."""
    mode = "js" if javascript else "no-js"
    browser.set_window_size(1000, 1000)
    browser.get(url)
    spoilers = browser.find_elements(By.CSS_SELECTOR, ".tf-spoiler")
    if not spoilers:
        check(f"{mode}: the page has a spoiler", False, "none found")
        return
    spoiler = spoilers[0]
    color = "return getComputedStyle(arguments[0]).color"
    label = spoiler.find_element(By.CSS_SELECTOR, ".tf-sr")
    covered = browser.execute_script(color, spoiler)
    check(f"{mode}: a spoiler's text is covered until asked for, and screen readers hear its label first",
          covered.replace(" ", "") in ("rgba(0,0,0,0)", "transparent") and label.get_attribute("textContent") == "Spoiler: "
          and browser.execute_script("return arguments[0].getBoundingClientRect().width <= 1", label),
          f"colour {covered}, label '{label.get_attribute('textContent')}'")
    ActionChains(browser).move_to_element(spoiler).perform()
    hovered = browser.execute_script(color, spoiler)
    ActionChains(browser).move_by_offset(0, 400).perform()
    spoiler.click()
    clicked = browser.execute_script(color, spoiler)
    focused = browser.execute_script("return document.activeElement === arguments[0]", spoiler)
    browser.find_element(By.TAG_NAME, "body").click()
    browser.execute_script("document.activeElement.blur()")
    # Keyboard: tab until the spoiler has focus.
    browser.get(url)
    spoiler = browser.find_elements(By.CSS_SELECTOR, ".tf-spoiler")[0]
    reached = False
    for _ in range(200):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        if browser.execute_script("return document.activeElement === arguments[0]", spoiler):
            reached = True
            break
    tabbed = browser.execute_script(color, spoiler)
    shown = lambda c: c.replace(" ", "") not in ("rgba(0,0,0,0)", "transparent")
    check(f"{mode}: a spoiler shows on hover, on a click and on keyboard focus",
          shown(hovered) and shown(clicked) and focused and reached and shown(tabbed),
          f"hover {hovered}, click {clicked} (focused {focused}), tab reached {reached}: {tabbed}")

    browser.set_window_size(390, 900)
    browser.get(url)
    sizes = browser.execute_script("""
        const t = document.querySelector('.tf-table');
        return t && {inner: t.scrollWidth, outer: t.clientWidth,
                     page: document.documentElement.scrollWidth, client: document.documentElement.clientWidth};""")
    check(f"{mode}: at 390 px a wide table scrolls inside its box, and the page does not scroll sideways",
          bool(sizes) and sizes["inner"] > sizes["outer"] and sizes["page"] <= sizes["client"], str(sizes))
    browser.set_window_size(1000, 1200)


# axe-core's rules that do not apply to these pages, each with its reason. None so far: every rule
# runs, and a rule is added here only with a written reason.
AXE_DISABLED = {}


def axe_checks(browser, url):
    """axe-core (through PyPI selenium-axe-python, which bundles it) finds no violation on the page.

    Run with JavaScript on only: axe is a script. The page without JavaScript is the same markup
    less what the optional script adds, so this run covers both."""
    from selenium_axe_python import Axe
    browser.get(url)
    axe = Axe(browser)
    axe.inject()
    browser.set_script_timeout(120)
    options = {"rules": {rule: {"enabled": False} for rule in AXE_DISABLED}}
    results = axe.run(options=json.dumps(options))
    found = [f"{v['id']} ({len(v['nodes'])}: {', '.join(str(n['target']) for n in v['nodes'][:3])})" for v in results["violations"]]
    name = url.rsplit("/", 2)[-2] + "/" + url.rsplit("/", 1)[-1]
    check(f"axe-core {results.get('testEngine', {}).get('version', '?')}: no violations on {name}", not found, "; ".join(found))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", required=True)
    parser.add_argument("--page")
    parser.add_argument("--input")
    parser.add_argument("--hostile", action="append", default=[])
    parser.add_argument("--archive")
    parser.add_argument("--layout", action="append", default=[], help="a page with real depth, for the layout checks")
    parser.add_argument("--markdown", action="append", default=[], help="a page with Reddit spoilers and a wide table")
    parser.add_argument("--search", nargs=2, metavar=("WORD", "TITLE"), help="the archive has --search: a word of one title, and that title")
    parser.add_argument("--authors", action="store_true", help="the archive has --authors")
    parser.add_argument("--axe", action="append", default=[], help="a page axe-core must find no violation on")
    parser.add_argument("--pagefind", nargs=3, metavar=("SITE", "PHRASE", "TITLE"), help="a site built with --search pagefind")
    args = parser.parse_args()
    site = Path(args.site).resolve()
    for javascript in (True, False):
        browser = driver(javascript)
        try:
            if args.page:
                page_checks(browser, (site / args.page).as_uri(), args.input, javascript)
            for page in args.hostile:
                hostile_checks(browser, (site / page).as_uri(), javascript)
            if args.archive:
                archive_checks(browser, Path(args.archive).resolve(), javascript)
            for page in args.layout:
                layout_checks(browser, (site / page).as_uri(), javascript)
            for page in args.markdown:
                markdown_checks(browser, (site / page).as_uri(), javascript)
            if args.archive and args.authors:
                author_checks(browser, Path(args.archive).resolve(), javascript)
            if args.archive and args.search:
                search_checks(browser, Path(args.archive).resolve(), args.search[0], args.search[1], javascript)
            for page in args.axe if javascript else []:
                axe_checks(browser, (site / page).as_uri())
            if args.pagefind and javascript:
                pagefind_checks(browser, Path(args.pagefind[0]).resolve(), args.pagefind[1], args.pagefind[2])
        finally:
            browser.quit()
    failed = sum(1 for _, ok in RESULTS if not ok)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
