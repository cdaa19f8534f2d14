"""JupyterLab as a user starts it (`make lab`): the server answers on 127.0.0.1, and a notebook runs top to
bottom with its defaults through a kernel started over the server's REST API and websocket."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "cogames_lib" / "notebooks"
# one xdist worker runs the module, so JupyterLab starts once
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("workbook_lab")]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    import requests

    port, token = free_port(), secrets.token_hex(16)
    log = (tmp_path_factory.mktemp("lab") / "server.log").open("w")
    # the `make lab` command, plus a fixed port and token so the test can reach it
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "lab", "--ip", "127.0.0.1", "--no-browser",
         f"--port={port}", f"--IdentityProvider.token={token}", "--ServerApp.port_retries=0", str(NOTEBOOKS),
         *(["--allow-root"] if os.geteuid() == 0 else [])],  # CI containers run as root
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"token {token}"}
    deadline = time.monotonic() + 90
    while True:
        try:
            if requests.get(f"{base}/api/status", headers=headers, timeout=2).status_code == 200:
                break
        except requests.ConnectionError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"JupyterLab did not start; see {log.name}")
        time.sleep(0.5)
    yield base, token, headers
    try:
        requests.post(f"{base}/api/shutdown", headers=headers, timeout=10)
        process.wait(timeout=20)
    except (requests.RequestException, subprocess.TimeoutExpired):
        process.kill()
    log.close()


def test_status_and_lab_page(lab_server):
    import requests

    base, _, headers = lab_server
    status = requests.get(f"{base}/api/status", headers=headers, timeout=10).json()
    assert "started" in status and "kernels" in status
    assert requests.get(f"{base}/lab", headers=headers, timeout=10).status_code == 200
    assert requests.get(f"{base}/api/status", timeout=10).status_code == 403  # the token is required
    listing = requests.get(f"{base}/api/contents", headers=headers, timeout=10).json()
    assert {"diagnostics_sweep.ipynb", "mindcraft_outcomes.ipynb", "probe_tests.ipynb"} <= {
        item["name"] for item in listing["content"]
    }


class KernelChannel:
    """Execute code in a server-side kernel over its websocket (Jupyter message protocol 5.3, JSON)."""

    def __init__(self, base: str, token: str, kernel_id: str) -> None:
        import websocket

        url = base.replace("http://", "ws://") + f"/api/kernels/{kernel_id}/channels?token={token}"
        self.socket = websocket.create_connection(url, timeout=300)
        self.session = uuid.uuid4().hex

    def execute(self, code: str) -> list[dict]:
        """Run one cell; returns its iopub outputs; raises AssertionError with the traceback on an error."""
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "username": "test", "session": self.session, "msg_type": "execute_request",
                  "version": "5.3", "date": datetime.now(UTC).isoformat()}  # fmt: skip
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                   "allow_stdin": False, "stop_on_error": True}  # fmt: skip
        self.socket.send(json.dumps({"header": header, "parent_header": {}, "metadata": {}, "content": content,
                                     "channel": "shell", "buffers": []}))  # fmt: skip
        outputs, reply, idle = [], None, False
        while reply is None or not idle:
            message = json.loads(self.socket.recv())
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = message["msg_type"]
            if kind == "execute_reply":
                reply = message["content"]
            elif kind == "status" and message["content"]["execution_state"] == "idle":
                idle = True
            elif kind in ("stream", "display_data", "execute_result", "error"):
                outputs.append(message)
        if reply["status"] != "ok":
            raise AssertionError("\n".join(reply.get("traceback", [])) or reply.get("evalue", "cell failed"))
        return outputs

    def close(self) -> None:
        self.socket.close()


def test_notebook_runs_top_to_bottom_through_a_lab_kernel(lab_server, tmp_path):
    import requests

    base, token, headers = lab_server
    # as JupyterLab does when a notebook is opened: a session for the notebook's path starts its kernel in
    # the notebook's folder
    session = requests.post(
        f"{base}/api/sessions", headers=headers, timeout=60,
        json={"path": "mindcraft_outcomes.ipynb", "type": "notebook", "name": "", "kernel": {"name": "python3"}},
    ).json()  # fmt: skip
    channel = KernelChannel(base, token, session["kernel"]["id"])
    try:
        notebook = nbformat.read(NOTEBOOKS / "mindcraft_outcomes.ipynb", as_version=4)
        out = tmp_path / "mindcraft"
        images = 0
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            outputs = channel.execute(cell.source)
            if "parameters" in cell.metadata.get("tags", []):
                # the defaults stand (relative to notebooks/, the kernel's folder); only the output moves
                channel.execute(f"out_dir = {str(out)!r}")
            images += sum("image/png" in o["content"].get("data", {}) for o in outputs)
        findings = {f["key"]: f for f in json.loads((out / "summary.json").read_text())["findings"]}
        assert findings["task_folders"]["estimate"] > 0 and images >= 5
        assert len(requests.get(f"{base}/api/kernels", headers=headers, timeout=10).json()) >= 1
    finally:
        channel.close()
        requests.delete(f"{base}/api/sessions/{session['id']}", headers=headers, timeout=30)
