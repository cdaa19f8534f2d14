"""A real browser opens the report from file://: no failed request, nothing from the network, images
rendered, a screenshot taken. Debian's `chromium` is driven over the DevTools protocol (websocket-client,
already a dependency of jupyter_server); `make test` sets COGAMES_REQUIRE_BROWSER=1 so a missing browser is
a failure there and a skip elsewhere."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cogames_lib.report.profiles import NotebookRun, Profile
from cogames_lib.report.runner import run_report

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run")  # fmt: skip
IMAGES_STATE = "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])"

# one xdist worker runs the module, so the report and the browser are built once
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("workbook_browser")]


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    message = "chromium not found (Debian package `chromium`; `make browser` installs it)"
    if os.environ.get("COGAMES_REQUIRE_BROWSER") == "1":
        pytest.fail(message)
    pytest.skip(message)


class Browser:
    """Just enough of the Chrome DevTools protocol: navigate, watch the network, evaluate, screenshot."""

    def __init__(self, executable: str, profile_dir: Path, width: int = 1280, height: int = 1000) -> None:
        import requests
        import websocket

        self.process = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}", "--remote-debugging-port=0",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        port_file = profile_dir / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.is_file() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(port_file.read_text().splitlines()[0])
        target = requests.put(f"http://127.0.0.1:{port}/json/new?about:blank", timeout=10).json()
        self.socket = websocket.create_connection(
            target["webSocketDebuggerUrl"], timeout=30, suppress_origin=True
        )
        self.ids = itertools.count(1)
        self.events: list[dict] = []
        for method in ("Page.enable", "Network.enable", "Runtime.enable"):
            self.call(method)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def call(self, method: str, **params: object) -> dict:
        message_id = next(self.ids)
        self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == message_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not any(event.get("method") == method for event in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {method} within {timeout} s")
            self.events.append(json.loads(self.socket.recv()))

    def open(self, url: str) -> tuple[list[str], list[str]]:
        """Navigate and wait for the load event; returns (requested URLs, failures)."""
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        time.sleep(0.3)  # let late requests (fonts, lazy images) show up
        self.call("Runtime.evaluate", expression="1")  # drain events queued meanwhile
        requested = [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]
        failures = [f"{e['params'].get('errorText')} ({e['params'].get('requestId')})" for e in self.events
                    if e.get("method") == "Network.loadingFailed"]  # fmt: skip
        return requested, failures

    def evaluate(self, expression: str) -> object:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"]["value"]

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.socket.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser_report")
    profile = Profile(
        "browser",
        "fixture notebooks for the browser test",
        60,
        (NotebookRun("ok", "Working notebook", {"value": 2}), NotebookRun("fail", "Failing", {})),
    )
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
    shot = browser.screenshot(tmp_path / "index.png")
    assert shot.stat().st_size > 5000
    for page in pages:
        requested, failures = browser.open(page)
        assert failures == [], f"{page}: {failures}"
        external = [url for url in requested if not url.startswith(("file://", "data:"))]
        assert external == [], f"{page} requested {external}"
        images = browser.evaluate(IMAGES_STATE)
        assert all(complete and width > 0 and height > 0 for complete, width, height in images), images
        if page.endswith("ok.html"):
            assert images, "the working notebook's figure is missing"
            assert browser.evaluate("document.body.innerText.includes('<script>alert(1)</script>')")
        browser.screenshot(tmp_path / f"{Path(page).stem}.png")


def test_escaped_log_text_does_not_run(browser, report):
    # the fixture prints `<script>alert(1)</script>`: shown as text, never executed as a script
    browser.open((report.parent / "ok.html").resolve().as_uri())
    scripts = browser.evaluate("Array.from(document.scripts).map(s => s.textContent).join('\\n')")
    assert not re.search(r"alert\(\d\)", scripts)
