"""A headless Chromium driven over the DevTools protocol: open a report page from file://, see what it
requested, what it logged to the console, how wide it is, and take a screenshot.

Developer tooling, not part of the library: used by the browser test and by `make docs-screenshot` (which
regenerates docs/report_index.png from a report). Debian's `chromium` package; `websocket-client` and `requests` come with jupyter_server.

    python -m tools.browser reports/latest/index.html docs/report_index.png
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cogames_lib.errors import ParameterError

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run")  # fmt: skip
# Per image: loaded, decoded size (0 = broken) and the width it is shown at (smaller: the page shrank it,
# and with it the figure's 9 pt text).
IMAGES_STATE = "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.width])"
# How far the page is wider than the window (0: no horizontal scroll bar).
OVERFLOW_PX = "document.documentElement.scrollWidth - window.innerWidth"


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


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
        for method in ("Page.enable", "Network.enable", "Runtime.enable", "Log.enable"):
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

    def console_errors(self) -> list[str]:
        """Errors the page logged since the last `open`: uncaught exceptions, console.error, and the
        browser's own error entries (a blocked or broken resource)."""
        errors = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                errors.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                errors.append(
                    " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params["args"])
                )
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(params["entry"].get("text", ""))
        return errors

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


def screenshot_page(html: str | Path, png: str | Path, width: int = 1280, height: int = 1000) -> Path:
    """Open `html` offline in headless Chromium and write a PNG of the window to `png` (temp, then rename)."""
    page = Path(html)
    if not page.is_file():
        raise ParameterError(f"{str(page)!r} is not a file (make a report first: make report)")
    executable = find_chromium()
    if executable is None:
        raise ParameterError("chromium not found (Debian package `chromium`; `make browser` installs it)")
    target = Path(png)
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(executable, Path(profile), width=width, height=height)
        try:
            browser.open(page.resolve().as_uri())
            temporary = target.with_name(f".{target.name}.tmp")
            browser.screenshot(temporary)
            temporary.replace(target)
        finally:
            browser.close()
    return target


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m tools.browser PAGE.html OUT.png")
    try:
        print(screenshot_page(sys.argv[1], sys.argv[2]))
    except ParameterError as error:
        sys.exit(f"error: {error}")
