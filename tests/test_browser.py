"""A real browser opens the report from file://: no failed request, nothing from the network, images
rendered, a screenshot taken. Debian's `chromium` is driven over the DevTools protocol (websocket-client,
already a dependency of jupyter_server); `make test` sets COGAMES_REQUIRE_BROWSER=1 so a missing browser is
a failure there and a skip elsewhere."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from cogames_lib.report.browser import IMAGES_STATE, OVERFLOW_PX, Browser, find_chromium
from cogames_lib.report.profiles import NotebookRun, Profile
from cogames_lib.report.runner import run_report

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"

# one xdist worker runs the module, so the report and the browser are built once
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("workbook_browser")]


def chromium_path() -> str:
    found = find_chromium()
    if found:
        return found
    message = "chromium not found (Debian package `chromium`; `make browser` installs it)"
    if os.environ.get("COGAMES_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser_report")
    profile = Profile(
        "browser",
        "fixture notebooks for the browser test",
        60,
        (NotebookRun("ok", "Working notebook", {"value": 2}), NotebookRun("fail", "Failing", {})),
    )
    # the fixture's finding names its figure, shown inline on the index as the capabilities' headlines are
    result = run_report(profile, out, notebooks_dir=FIXTURES, progress=False)
    assert [r.status for r in result.notebooks] == ["ok", "failed"]
    return result.index_path


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    executable = chromium_path()
    instance = Browser(executable, tmp_path_factory.mktemp("chromium_profile"))
    yield instance
    instance.close()


def test_index_and_every_page_open_offline_with_images(browser, report, tmp_path):
    index_url = report.resolve().as_uri()
    requested, failures = browser.open(index_url)
    assert failures == [] and requested and all(url.startswith(("file://", "data:")) for url in requested)
    assert "cogames_lib report" in browser.evaluate("document.title")
    links = browser.evaluate("Array.from(document.querySelectorAll('a')).map(a => a.href)")
    pages = sorted({link for link in links if link.endswith(".html")})
    assert [Path(p).name for p in pages] == ["fail.html", "ok.html"]
    # every page the report wrote is linked from the index, so the loop below opens every page
    assert [Path(p).name for p in pages] == sorted(
        f.name for f in report.parent.glob("*.html") if f != report
    )
    assert "The fixture drew a line up to 2." in browser.evaluate("document.body.innerText")
    assert browser.evaluate("document.querySelectorAll('.cogames-provenance').length") == 2  # one per part
    assert browser.console_errors() == []
    assert browser.evaluate(OVERFLOW_PX) <= 0, "the index scrolls sideways at 1280 px"
    index_images = browser.evaluate(IMAGES_STATE)
    assert index_images and all(_shown_whole(image) for image in index_images), index_images
    shot = browser.screenshot(tmp_path / "index.png")
    assert shot.stat().st_size > 5000
    for page in pages:
        requested, failures = browser.open(page)
        assert failures == [], f"{page}: {failures}"
        external = [url for url in requested if not url.startswith(("file://", "data:"))]
        assert external == [], f"{page} requested {external}"
        assert browser.console_errors() == [], page
        assert browser.evaluate(OVERFLOW_PX) <= 0, f"{page} scrolls sideways at 1280 px"
        images = browser.evaluate(IMAGES_STATE)
        assert all(_shown_whole(image) for image in images), (page, images)
        assert browser.evaluate("document.querySelectorAll('.cogames-provenance').length") == 1, page
        if page.endswith("ok.html"):
            assert images, "the working notebook's figure is missing"
            assert browser.evaluate("document.body.innerText.includes('<script>alert(1)</script>')")
        browser.screenshot(tmp_path / f"{Path(page).stem}.png")


def _shown_whole(image: list) -> bool:
    """Loaded, decoded (naturalWidth > 0) and not shrunk by the page (its 9 pt text stays 9 pt)."""
    complete, natural_width, natural_height, shown_width = image
    return bool(complete) and natural_width > 0 and natural_height > 0 and shown_width >= natural_width - 1


def test_escaped_log_text_does_not_run(browser, report):
    # the fixture prints `<script>alert(1)</script>`: shown as text, never executed as a script
    browser.open((report.parent / "ok.html").resolve().as_uri())
    scripts = browser.evaluate("Array.from(document.scripts).map(s => s.textContent).join('\\n')")
    assert not re.search(r"alert\(\d\)", scripts)


def test_the_checks_see_console_errors_and_sideways_overflow(browser, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        "<html><body><div style='width:3000px'>wide</div>"
        "<script>console.error('boom'); undefinedFunction();</script></body></html>"
    )
    browser.open(page.resolve().as_uri())
    errors = browser.console_errors()
    assert any("boom" in e for e in errors) and any(
        "undefinedFunction" in e or "Uncaught" in e for e in errors
    )
    assert browser.evaluate(OVERFLOW_PX) > 0
