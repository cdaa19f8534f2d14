"""Output folders: the one out-directory policy, and the manifest that records each run in its folder.

`prepare_out_dir`: a run writes into a folder that is new, empty, or holds an earlier run of the same job.
The folder's `manifest.json` records the parameters, the code version and the creation time, so a later
call can tell "continue that run" (`resume`, parameters must match) from "another run is here" (refused
unless `overwrite`). A folder inside an input tree is always refused: inputs are never modified. Files no
run of ours wrote (no manifest) are never deleted. Every file is written through `cogames_lib.io` (atomic).

Never silently stale: a resumed folder's manifest keeps when the reused results were computed
(`resumed_from`: the earlier run's dates and code version), callers that reuse results can demand the same
code version (`same_code`), and `record_results` notes how many results a run computed and how many it
took from disk, so a report can say "resumed 240 of 256 episodes computed on <date>".
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cogames_lib.errors import ParameterError
from cogames_lib.io import as_json, empty_dir, read_json_object, write_json
from cogames_lib.paths import CLONE_ROOT

MANIFEST_FILE = "manifest.json"


def code_version(root: str | os.PathLike[str] | None = CLONE_ROOT) -> str | None:
    """The short git commit of `root` (default: the clone this package runs from), or None outside a git
    checkout or in an installed wheel (whose site-packages may sit inside some other project's repository)."""
    if root is None:
        return None
    try:
        completed = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (completed.stdout.strip() or None) if completed.returncode == 0 else None


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def read_manifest(out_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The manifest of a folder a run wrote, or None if it has none."""
    return read_json_object(Path(out_dir) / MANIFEST_FILE)


def prepare_out_dir(
    out_dir: str | os.PathLike[str],
    *,
    job: str,
    params: Mapping[str, Any],
    inputs: Iterable[str | os.PathLike[str]] = (),
    resume: bool = False,
    overwrite: bool = False,
    compare: Iterable[str] | None = None,
    name: str = "out",
    same_code: bool = False,
) -> Path:
    """Check and create an output folder, then record this run in its `manifest.json`; returns the folder.

    `job` names what writes the folder ("sweep", "report", ...): a folder of another job is never resumed.
    - a folder inside an input tree (or equal to one) is refused;
    - a missing or empty folder is created;
    - a folder with an earlier run's manifest: `resume` continues it when the recorded parameters named in
      `compare` (default: all of `params`) are equal to these, else the error names the ones that differ;
      `overwrite` deletes its contents first (and wins over `resume`); neither is refused;
    - a non-empty folder without a manifest holds files no run of ours wrote: refused, never deleted.
    `name` is the parameter the messages name (e.g. "--out"). Every refusal is a one-line `ParameterError`.
    `same_code`: resume only a run made by this code version (for callers that reuse earlier results: a
    sweep's episodes, trained runs, a report), so results of older code never pose as this code's.
    """
    try:
        return _prepare(
            Path(out_dir).expanduser(), job, params, inputs, resume, overwrite, compare, name, same_code
        )
    except OSError as error:  # e.g. a parent that is a file, no permission, a full disk
        raise ParameterError(
            f"{name}: cannot write to {str(out_dir)!r} ({error.strerror or error})"
        ) from None


def _prepare(
    folder: Path,
    job: str,
    params: Mapping[str, Any],
    inputs: Iterable[str | os.PathLike[str]],
    resume: bool,
    overwrite: bool,
    compare: Iterable[str] | None,
    name: str,
    same_code: bool,
) -> Path:
    resolved = folder.resolve()
    for source in inputs:
        source_path = Path(source).expanduser().resolve()
        if _inside(resolved, source_path):
            raise ParameterError(
                f"{name}: {str(folder)!r} is inside the input {str(source)!r}; inputs are never written to, "
                "choose a folder outside it"
            )
        if overwrite and _inside(source_path, resolved):
            raise ParameterError(
                f"{name}: overwriting {str(folder)!r} would delete the input {str(source)!r} inside it"
            )
    if folder.exists() and not folder.is_dir():
        raise ParameterError(f"{name}: {str(folder)!r} exists and is not a folder")
    recorded = as_json(dict(params))
    current_code = code_version()
    earlier = None
    if folder.is_dir() and any(folder.iterdir()):
        earlier = _check_earlier_run(
            folder, job, recorded, resume, overwrite, compare, name, current_code if same_code else None
        )
    folder.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "job": job,
        "parameters": recorded,
        "code_version": current_code,
        "created": now_utc(),
    }
    if earlier is not None:
        manifest["resumed_from"] = _resumed_from(earlier)
    write_json(folder / MANIFEST_FILE, manifest)
    return folder


def is_new_out_dir(out_dir: str | os.PathLike[str]) -> bool:
    """True when the folder is missing or empty: a run that fails before it writes any result may then
    `discard_out_dir` it, leaving nothing behind."""
    folder = Path(out_dir).expanduser()
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


def discard_out_dir(out_dir: str | os.PathLike[str], existed: bool) -> None:
    """Undo `prepare_out_dir` for a new folder whose run failed before writing a result (a wrong scheduler
    address, Ctrl-C during start-up): its manifest and empty sub-folders go, and the folder itself unless it
    `existed` (empty) before. Call only when `is_new_out_dir` was true before `prepare_out_dir`."""
    folder = Path(out_dir).expanduser()
    if not folder.is_dir():
        return
    if existed:
        empty_dir(folder)
    else:
        shutil.rmtree(folder)


def now_utc() -> str:
    """The time stamp of manifests: UTC, to the second, ISO 8601 (`2026-11-25T00:47:33Z`)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _resumed_from(earlier: dict[str, Any]) -> dict[str, Any]:
    """When and by which code the results of a resumed folder were computed: from the first run of the
    folder (an earlier resume carries it forward) to the last one before this."""
    before = earlier.get("resumed_from") or {}
    return {
        "first": before.get("first") or earlier.get("created"),
        "last": earlier.get("created"),
        "code_version": earlier.get("code_version"),
    }


def record_results(out_dir: str | os.PathLike[str], *, unit: str, computed: int, reused: int) -> None:
    """Note in the folder's manifest how many results (`unit`: "episodes", "runs") this run computed and how
    many it reused from disk; `reuse_summary` turns it into words."""
    folder = Path(out_dir)
    manifest = read_manifest(folder) or {}
    manifest["results"] = {
        "unit": unit,
        "computed": int(computed),
        "reused": int(reused),
        "finished": now_utc(),
    }
    write_json(folder / MANIFEST_FILE, manifest)


def reuse_summary(manifest: Mapping[str, Any]) -> str | None:
    """One line on what a run computed and what it reused, from a manifest `record_results` completed:
    "resumed 240 of 256 episodes computed 2026-11-24 10:00 UTC (code abc1234); 16 computed now", or
    "256 episodes computed now"; None when the run recorded no results."""
    results = manifest.get("results")
    if not isinstance(results, Mapping):
        return None
    unit, computed, reused = results.get("unit", "results"), int(results["computed"]), int(results["reused"])
    total = computed + reused
    if not reused:
        return f"{total} {unit} computed now"
    earlier = manifest.get("resumed_from") or {}
    first, last = _readable_time(earlier.get("first")), _readable_time(earlier.get("last"))
    when = first if first == last else f"between {first} and {last}"
    code = f" (code {earlier['code_version']})" if earlier.get("code_version") else ""
    return f"resumed {reused} of {total} {unit} computed {when}{code}; {computed} computed now"


def _readable_time(stamp: Any) -> str:
    text = str(stamp or "an unknown date")
    return text.replace("T", " ").replace("Z", " UTC") if text.endswith("Z") else text


def _check_earlier_run(
    folder: Path,
    job: str,
    params: dict[str, Any],
    resume: bool,
    overwrite: bool,
    compare: Iterable[str] | None,
    name: str,
    required_code: str | None,
) -> dict[str, Any] | None:
    """Refuse what may not happen to an earlier run; returns its manifest when it is resumed (None when it
    is overwritten)."""
    manifest = read_manifest(folder)
    if manifest is None:
        raise ParameterError(
            f"{name}: {str(folder)!r} is not empty and holds no {MANIFEST_FILE}, so no cogames-lib run wrote "
            "it; choose a new or empty folder (its files are never deleted)"
        )
    if overwrite:
        empty_dir(folder)
        return None
    earlier = manifest.get("parameters", {})
    if manifest.get("job") != job:
        raise ParameterError(
            f"{name}: {str(folder)!r} holds the outputs of a {manifest.get('job')!r} run, not of a {job!r} run; "
            "choose another folder (or --overwrite / overwrite=True to replace it)"
        )
    if not resume:
        raise ParameterError(
            f"{name}: {str(folder)!r} holds an earlier {job} run (created {manifest.get('created', '?')}); "
            "resume it (--resume / resume=True) or replace it (--overwrite / overwrite=True)"
        )
    keys = list(params) if compare is None else list(compare)
    differ = [key for key in keys if earlier.get(key) != params.get(key)]
    if differ:
        shown = "; ".join(f"{key} was {earlier.get(key)!r}, now {params.get(key)!r}" for key in differ)
        raise ParameterError(
            f"{name}: cannot resume the run in {str(folder)!r}, its parameters differ ({shown}); "
            "use --overwrite or another folder"
        )
    earlier_code = manifest.get("code_version")
    if required_code is not None and earlier_code is not None and earlier_code != required_code:
        raise ParameterError(
            f"{name}: cannot resume the run in {str(folder)!r}: its results were computed by code {earlier_code}, "
            f"this is {required_code}; recompute them (--fresh / --overwrite / overwrite=True) or use another folder"
        )
    return manifest
