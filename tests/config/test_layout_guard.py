"""Layout guard: every page of the demo, as a visitor, a crowd worker and a curator, at 1280 and 390 px.

The pages are found by following same-origin links from / (at most ``PER_PATTERN`` pages of one URL shape,
such as /compounds/<n>/, whatever the query), and the worker goes through a campaign's journey. A page fails on horizontal
overflow (the document wider than the window), a console error, or a 5xx answer for it or anything it
loads. A screenshot of each page goes to $LAYOUT_SCREENSHOTS (or the test's tmp_path) for a human to look at.
"""

from __future__ import annotations

import os
import re
from collections import Counter, deque
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from releases.actions import create_release
from tests.building.review_factories import make_curator, make_review_compound
from tests.probing.report_factories import make_model, make_run

pytestmark = pytest.mark.browser
WIDTHS = (1280, 390)
PER_PATTERN = 3
MAX_PAGES = 45  # per role: the demo has about 30 kinds of page
# Not pages to look at: signing out, the admin, API data and files (the API's docs page is looked at).
SKIPPED = re.compile(r"^/(accounts/logout|admin/|static/|media/|api/(?!docs/\?))|download|export|/files?/|format=")
FILE_ENDINGS = (".csv", ".json", ".jsonl", ".zip", ".parquet", ".svg", ".png", ".md", ".txt", ".tsv", ".yaml", ".pdf")
OVERFLOW = """() => {
  const width = window.innerWidth, scrollWidth = document.documentElement.scrollWidth;
  if (scrollWidth <= width + 1) return null;
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const wide = [];
  for (const el of document.body.querySelectorAll("*")) {
    const right = el.getBoundingClientRect().right, parent = el.parentElement;
    if (right > width + 1 && (!parent || parent.getBoundingClientRect().right <= width + 1)) {
      wide.push(describe(el) + " to " + Math.round(right) + " px");
    }
  }
  return "document " + scrollWidth + " px wide in a " + width + " px window: " + wide.slice(0, 4).join("; ");
}"""


def load_demo_site():
    """The demo as scripts/demo.sh makes it, minus the slow parts: variants to review, a release, a probe run."""
    quiet = {"stdout": StringIO(), "stderr": StringIO()}
    call_command("load_demo", **quiet)
    call_command("create_demo_campaigns", **quiet)
    call_command("simulate_ratings", "demo-token", "demo-type", **quiet)
    make_review_compound()
    first = create_release("1.0.0", languages=["en", "pt"], collections=["demo"], publish=True)
    create_release("1.1.0", languages=["en", "pt"], collections=["demo"], campaigns=["demo-token"], publish=True)
    make_run(first, make_model())


def pattern(url: str) -> str:
    """/compounds/12/?page=2 -> /compounds/<n>/: pages of one shape are looked at ``PER_PATTERN`` times at most."""
    return re.sub(r"\d+", "<n>", urlsplit(url).path)


def wanted(url: str, origin: str, allowed: re.Pattern) -> bool:
    parts = urlsplit(url)
    return (
        f"{parts.scheme}://{parts.netloc}" == origin
        and bool(allowed.match(parts.path))
        and not SKIPPED.search(f"{parts.path}?{parts.query}")
        and not parts.path.endswith(FILE_ENDINGS)
    )


class Guard:
    """Visits pages in one browser context and writes down what is wrong with each."""

    def __init__(self, context, origin: str, shots: Path, role: str, width: int):
        self.page = context.new_page()
        self.origin, self.shots, self.role, self.width = origin, shots, role, width
        self.problems: list[str] = []
        self.events: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.events.append(f"console error: {m.text}"))
        self.page.on("pageerror", lambda error: self.events.append(f"script error: {error}"))
        self.page.on(
            "response", lambda r: r.status >= 500 and self.events.append(f"server error {r.status} for {r.url}")
        )

    def check(self, label: str) -> None:
        """The page as it is now: overflow, the events since the last check, a screenshot."""
        self.page.wait_for_load_state("load")
        where = f"{self.role} at {self.width} px, {label}"
        if overflow := self.page.evaluate(OVERFLOW):
            self.problems.append(f"{where}: {overflow}")
        self.problems += [f"{where}: {event}" for event in self.events]
        self.events.clear()
        name = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-") or "home"
        self.page.screenshot(path=str(self.shots / f"{self.role}-{self.width}-{name[:120]}.png"), full_page=True)

    def visit(self, url: str) -> list[str]:
        """Open ``url``, check it, and return the links it offers."""
        response = self.page.goto(url)
        label = url.removeprefix(self.origin)
        if response is not None and response.status >= 500:
            self.events.append(f"answered {response.status}")
        self.check(label)
        return self.page.eval_on_selector_all("a[href]", "els => els.filter(e => !e.download).map(e => e.href)")

    def crawl(self, start: str, allowed: re.Pattern) -> list[str]:
        """Breadth first from ``start``: the pages visited, in order."""
        queue, seen, shapes, visited = deque([start]), {start}, Counter(), []
        while queue and len(visited) < MAX_PAGES:
            url = queue.popleft()
            visited.append(url)
            for link in self.visit(url):
                link = link.split("#", 1)[0]
                if link in seen or not wanted(link, self.origin, allowed) or shapes[pattern(link)] >= PER_PATTERN:
                    continue
                seen.add(link)
                shapes[pattern(link)] += 1
                queue.append(link)
        return visited


def worker_journey(guard: Guard, origin: str, worker: str) -> None:
    """A crowd worker's pages: consent, instructions, practice items with their feedback, then what follows."""
    page = guard.page
    guard.visit(f"{origin}/annotate/demo-token/start/?PROLIFIC_PID={worker}&STUDY_ID=demo&SESSION_ID=1")
    page.locator("input[name=agree]").check()
    page.locator("form button[type=submit]").first.click()
    guard.check("instructions")
    page.get_by_role("link", name=re.compile(r"^Start (the practice items|rating)")).click()
    guard.check("practice item")
    page.locator("details#instructions > summary").click()  # the instructions unfold inside the item
    guard.check("practice item with instructions")
    # Answer 5 everywhere: right for the first practice item, wrong for the second, so the worker sees the
    # feedback after each and then either the rated items or the end of the practice.
    for answered in range(1, 4):
        if not page.locator("#rate-form").count():
            break
        page.locator('fieldset[data-question] input[value="5"]').evaluate_all("els => els.forEach(e => e.click())")
        page.locator("#submit-rating").click()
        guard.check(f"after answer {answered}")
        if page.get_by_role("link", name="Continue").count():
            page.get_by_role("link", name="Continue").click()
            guard.check(f"after feedback {answered}")


@pytest.mark.usefixtures("transactional_db")
def test_no_page_of_the_demo_overflows_logs_an_error_or_fails(
    live_server, chromium_launch_options, tmp_path, monkeypatch
):
    from django.db import connections
    from playwright.sync_api import sync_playwright

    load_demo_site()
    curator = Client()
    curator.force_login(make_curator("carol"))
    session = {"name": settings.SESSION_COOKIE_NAME, "value": curator.cookies[settings.SESSION_COOKIE_NAME].value}
    shots = Path(os.environ.get("LAYOUT_SCREENSHOTS") or tmp_path / "layout")
    shots.mkdir(parents=True, exist_ok=True)
    origin = live_server.url
    problems: list[str] = []
    visited: Counter = Counter()
    # Playwright's sync API runs an event loop in this thread; Django's ORM would otherwise refuse to run.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**chromium_launch_options)
        try:
            for width in WIDTHS:
                viewport = {"width": width, "height": 900}
                for role in ("anonymous", "curator"):
                    context = browser.new_context(viewport=viewport)
                    if role == "curator":
                        context.add_cookies([session | {"url": origin}])
                    guard = Guard(context, origin, shots, role, width)
                    visited[role] += len(guard.crawl(f"{origin}/", re.compile(r"^/(?!annotate/)")))
                    problems += guard.problems
                    context.close()
                context = browser.new_context(viewport=viewport)
                guard = Guard(context, origin, shots, "worker", width)
                worker_journey(guard, origin, f"layout-worker-{width}")
                problems += guard.problems
                context.close()
        finally:
            browser.close()
            connections.close_all()
    # The crawl reached the site, not just the front page (as a visitor: releases, API docs; as a curator: the rest).
    assert visited["anonymous"] >= 5 and visited["curator"] >= 20, visited
    assert not problems, f"{len(problems)} problems (screenshots in {shots}):\n" + "\n".join(problems)
