"""Docs that run: every ```bash and ```python block of README.md and docs/*.md is executed.

Each block runs in its own copy of the project (so nothing it writes lands in the repository), python blocks with
this interpreter and bash blocks with this interpreter's bin folder first on PATH (so `cogames-lib`,
`python` and `.venv/bin/...` are the venv's, and the copy's package is the one imported).

Markers, on the line(s) right before a block:
    <!-- docs-test: skip (why) -->                a block that is long on purpose, or needs a cluster
    <!-- docs-test: replace "--epochs 2000" "--epochs 2" -->   run it with tiny parameters instead
Example output is fenced as ```text, never as ```bash or ```python.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COPIED = ("cogames_lib", "data", "benchmarks", "docs", "tests", "tools")
COPIED_FILES = ("README.md", "pyproject.toml", "Makefile", "requirements.lock")
FENCE = re.compile(r"^```(\w*)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(skip|replace)\s*(.*?)\s*-->\s*$")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
BLOCK_TIMEOUT_S = 240


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    code: str
    skip: str | None  # the reason, when skipped


def parse_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a page with their markers applied (replacements done, skips noted)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opened = FENCE.match(lines[index])
        if not opened:
            index += 1
            continue
        start, language = index, opened.group(1)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == "```"), None)
        if end is None:
            raise AssertionError(f"{path.name}:{start + 1}: a code fence is never closed")
        code = "\n".join(lines[start + 1 : end]) + "\n"
        skip = None
        before = start - 1
        while before >= 0 and (found := MARKER.match(lines[before])):
            kind, argument = found.groups()
            if kind == "skip":
                skip = argument.strip("() ") or "no reason given"
            else:
                old, new = (text.replace('\\"', '"') for text in QUOTED.findall(argument))
                assert old in code, f"{path.name}:{start + 1}: replace marker's {old!r} is not in the block"
                code = code.replace(old, new)
            before -= 1
        page = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        blocks.append(Block(page, start + 1, language, code, skip))
        index = end + 1
    return blocks


BLOCKS = [block for page in PAGES for block in parse_blocks(page) if block.language in ("bash", "python")]


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    """A fresh copy per block: blocks neither see each other's outputs nor depend on their order."""
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".*_cache")
    for name in COPIED:
        shutil.copytree(ROOT / name, copy / name, ignore=ignore)
    for name in COPIED_FILES:
        shutil.copy2(ROOT / name, copy / name)
    (copy / "reports").mkdir()
    (copy / ".venv").symlink_to(Path(sys.prefix))  # docs say `.venv/bin/...` after `make` created it
    return copy


def environment(copy: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = str(copy)  # before the editable install's path: the copy's package is imported
    env["MPLBACKEND"] = "Agg"
    env.pop("COGAMES_MAPS_DIR", None)
    return env


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page}:{b.line}" for b in BLOCKS])
def test_block_runs(block: Block, project_copy: Path) -> None:
    if block.skip:
        pytest.skip(block.skip)
    if block.language == "python":
        command = [sys.executable, "-c", block.code]
    else:
        command = ["bash", "-e", "-c", block.code]  # as a user's shell runs it: `cmd | head` is fine
    done = subprocess.run(
        command,
        cwd=project_copy,
        env=environment(project_copy),
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, (
        f"{block.page}:{block.line} exited {done.returncode}\n--- stdout\n{done.stdout[-3000:]}"
        f"\n--- stderr\n{done.stderr[-3000:]}"
    )


def test_the_copy_imports_its_own_package(project_copy: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import cogames_lib; print(cogames_lib.__file__)"],
        cwd=project_copy,
        env=environment(project_copy),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(done.stdout.strip()).is_relative_to(project_copy)


def test_markers_are_parsed(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs-test: skip (needs a cluster) -->\n```bash\nssh cluster\n```\n\n"
        '<!-- docs-test: replace "--epochs 2000" "--epochs 2" -->\n```bash\ntrain --epochs 2000\n```\n'
        "```text\nexample output\n```\n",
        encoding="utf-8",
    )
    blocks = parse_blocks(page)
    assert [(b.language, b.skip) for b in blocks] == [
        ("bash", "needs a cluster"),
        ("bash", None),
        ("text", None),
    ]
    assert blocks[1].code == "train --epochs 2\n"
    page.write_text('<!-- docs-test: replace "--seeds 9" "--seeds 1" -->\n```bash\nrun\n```\n')
    with pytest.raises(AssertionError, match="is not in the block"):
        parse_blocks(page)


def test_every_page_has_blocks_that_run_or_say_why_not() -> None:
    skipped = [b for b in BLOCKS if b.skip]
    assert len(BLOCKS) > len(skipped) > 0
    assert all(b.skip != "no reason given" for b in skipped)
