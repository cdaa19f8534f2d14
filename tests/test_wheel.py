"""The wheel runs every capability from outside the clone.

The module fixture builds the wheel from a copy of the package (nothing is written into the clone),
installs it into a throwaway virtual environment and lets that environment see the already-installed
dependencies through a `.pth` line (no network, no second torch). A `.pth` line adds a folder to
`sys.path` without running the `.pth` files inside it, so the clone's editable install stays out: every
test first checks that the interpreter imports the wheel's copy. Then a short command of each capability
runs from an unrelated temporary folder, with no PYTHONPATH and no user-level Jupyter files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]  # the module fixture builds once

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "pettingzoo", "dask", "distributed", "matplotlib")
WHEEL_LIMIT_MB = 3.0


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    site_packages: Path
    workdir: Path  # an unrelated folder the commands run in
    env: dict[str, str]

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def package(self) -> Path:
        return self.site_packages / "cogames_lib"

    def run(
        self, argv: Sequence[str | os.PathLike[str]], timeout: float = 180
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(part) for part in argv],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, (
            f"{argv} exited {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
        return done

    def cli(self, *argv: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
        return self.run([self.venv / "bin" / "cogames-lib", *argv])


def _build_wheel(tmp: Path) -> Path:
    """`pip wheel` on a copy of what the wheel is made of (the clone gets no build/ or egg-info)."""
    source = tmp / "source"
    shutil.copytree(
        ROOT / "cogames_lib",
        source / "cogames_lib",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "reports", ".ipynb_checkpoints"),
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    dist = tmp / "dist"
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run(
        [*command, "-q", "-w", str(dist), str(source)], check=True, capture_output=True, timeout=300
    )
    (wheel,) = dist.glob("cogames_lib-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(tmp)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "--no-deps",
        "--no-index",
        "-q",
    ]
    subprocess.run([*install, str(wheel)], check=True, capture_output=True, timeout=300)
    query = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site_packages = Path(
        subprocess.run([python, "-c", query], check=True, capture_output=True, text=True).stdout.strip()
    )
    # the dependencies this interpreter already has, appended after the venv's own site-packages
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site_packages / "_test_dependencies.pth").write_text("".join(f"{path}\n" for path in ours))
    # nbconvert's HTML templates are data files of its own install (share/jupyter), as in any real venv
    templates = Path(sys.prefix) / "share" / "jupyter" / "nbconvert"
    (venv / "share" / "jupyter").mkdir(parents=True)
    (venv / "share" / "jupyter" / "nbconvert").symlink_to(templates, target_is_directory=True)
    workdir = tmp / "elsewhere"
    home = tmp / "home"
    workdir.mkdir()
    home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "COGAMES_", "JUPYTER"))
    }
    env.update(
        PATH=os.pathsep.join([str(venv / "bin"), env.get("PATH", "")]),
        MPLBACKEND="Agg",
        # no user-level kernels or settings: the notebooks run in this venv's own Python
        JUPYTER_DATA_DIR=str(home / "jupyter_data"),
        JUPYTER_CONFIG_DIR=str(home / "jupyter_config"),
        IPYTHONDIR=str(home / "ipython"),
    )
    return Installed(wheel, venv, site_packages, workdir, env)


def test_the_wheel_is_small_and_holds_the_assets(installed: Installed) -> None:
    size_mb = installed.wheel.stat().st_size / 1e6
    assert size_mb < WHEEL_LIMIT_MB, f"the wheel is {size_mb:.2f} MB"
    names = zipfile.ZipFile(installed.wheel).namelist()
    for asset in (
        "cogames_lib/maps/diagnostics/diagnostic_chest_near.map",
        "cogames_lib/maps/staghunt/training_hares_small.txt",
        "cogames_lib/notebooks/diagnostics_sweep.ipynb",
        "cogames_lib/notebooks/mindcraft_outcomes.ipynb",
        "cogames_lib/notebooks/probe_tests.ipynb",
        "cogames_lib/data/mindcraft_sample/README.md",
    ):
        assert asset in names, asset
    assert not [name for name in names if name.startswith(("data/", "cogames_lib/reports", "tests/"))]


def test_the_wheel_copy_is_imported_and_starts_no_heavy_stack(installed: Installed) -> None:
    code = (
        "import json, sys, cogames_lib\n"
        "from cogames_lib import paths\n"
        f"print(json.dumps([cogames_lib.__file__, str(paths.NOTEBOOKS_DIR), paths.CLONE_ROOT,"
        f" sorted(set({HEAVY!r}) & set(sys.modules))]))\n"
    )
    module_file, notebooks, clone_root, heavy = json.loads(
        installed.run([installed.python, "-c", code]).stdout
    )
    assert Path(module_file).is_relative_to(installed.package)
    assert Path(notebooks) == installed.package / "notebooks"
    assert clone_root is None
    assert heavy == []


def test_diagnostics_run(installed: Installed) -> None:
    done = installed.cli("diagnostics", "run", "chest_deposit_near", "--policy", "scripted", "--agents", "1")
    assert "SUCCESS" in done.stdout


def test_sweep(installed: Installed) -> None:
    installed.cli(
        "sweep", "--policies", "scripted", "--diagnostics", "chest_navigation1", "--agents", "1",
        "--seeds", "1", "--workers", "1", "--out", "sweep", "--no-progress",
    )  # fmt: skip
    assert (installed.workdir / "sweep" / "manifest.json").is_file()


def test_mindcraft_analyze_of_the_shipped_sample(installed: Installed) -> None:
    sample = installed.package / "data" / "mindcraft_sample"
    done = installed.cli(
        "mindcraft", "analyze", sample / "experiments", "--tasks", sample / "tasks", "--out", "mc"
    )
    assert "claude-3-5-haiku-latest" in done.stdout
    assert (installed.workdir / "mc" / "mindcraft_runs.parquet").is_file()


def test_probe_train(installed: Installed) -> None:
    installed.cli(
        "probe", "train", "--condition", "all_can_hunt", "--epochs", "2", "--probe-every", "1",
        "--checkpoints", "none", "--out", "probe", "--no-progress",
    )  # fmt: skip
    assert (installed.workdir / "probe" / "all_can_hunt" / "seed_0").is_dir()


def test_a_report_runs_a_shipped_notebook_on_the_shipped_sample(installed: Installed) -> None:
    """The report's runner, the shipped notebooks folder and sample tree, and nbconvert's export (the quick
    profile runs two more notebooks the same way; it takes minutes, so the README's command is not rerun)."""
    code = (
        "import sys\n"
        "from cogames_lib.report.profiles import MINDCRAFT_SAMPLE_RUN, Profile\n"
        "from cogames_lib.report.runner import run_report\n"
        "result = run_report(Profile('wheel', 'one notebook', 600, (MINDCRAFT_SAMPLE_RUN,)), 'report',"
        " progress=False)\n"
        "print(result.index_path)\n"
        "sys.exit(0 if result.ok else [part.message for part in result.notebooks])\n"
    )
    installed.run([installed.python, "-c", code], timeout=300)
    page = (installed.workdir / "report" / "mindcraft_outcomes.html").read_text(encoding="utf-8")
    assert "SYNTHETIC" in page


def test_repository_only_data_says_so_in_one_line(installed: Installed) -> None:
    code = "from cogames_lib.report.study_views import load_reference_study; print(load_reference_study()[1])"
    message = installed.run([installed.python, "-c", code]).stdout.strip()
    assert (
        "\n" not in message and "ships only with a clone" in message and "data/staghunt_reference/" in message
    )
    done = subprocess.run(
        [installed.venv / "bin" / "cogames-lib", "bench"],
        cwd=installed.workdir,
        env=installed.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "benchmarks/ ships only with a clone" in done.stderr


def test_cogames_maps_dir_overrides_only_the_maps_folder(tmp_path: Path) -> None:
    code = (
        "import json\n"
        "from cogames_lib import paths\n"
        "print(json.dumps([str(paths.DIAGNOSTIC_MAPS_DIR), str(paths.STAGHUNT_MAPS_DIR), str(paths.NOTEBOOKS_DIR),"
        " str(paths.shipped('maps')), str(paths.CLONE_ROOT)]))\n"
    )
    env = {**os.environ, "COGAMES_MAPS_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    diagnostics, staghunt, notebooks, shipped_maps, clone = json.loads(done.stdout)
    assert (Path(diagnostics), Path(staghunt)) == (tmp_path / "diagnostics", tmp_path / "staghunt")
    assert Path(notebooks) == ROOT / "cogames_lib" / "notebooks" and Path(clone) == ROOT
    assert Path(shipped_maps) == ROOT / "cogames_lib" / "maps"
