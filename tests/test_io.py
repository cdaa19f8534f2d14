"""cogames_lib.io: atomic writes of every format, and each rule of the out-directory policy."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cogames_lib import io, outdir
from cogames_lib.errors import ParameterError

FRAME = pd.DataFrame({"policy": ["noop", "random"], "reward": [0.0, 1.5]})


def _no_temporary_files(folder: Path) -> bool:
    return not [path for path in folder.rglob("*") if path.name.startswith(".")]


def test_every_format_round_trips_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    io.write_text(tmp_path / "a.txt", "héllo\n")
    io.write_bytes(tmp_path / "a.bin", b"\x00\x01")
    io.write_json(tmp_path / "a.json", {"b": 1, "a": [1, 2]})
    io.write_csv(tmp_path / "sub" / "a.csv", FRAME)  # parents are created
    io.write_parquet(tmp_path / "a.parquet", FRAME)
    io.write_torch(tmp_path / "a.pt", {"weights": torch.arange(3)})
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "héllo\n"
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\x01"
    assert json.loads((tmp_path / "a.json").read_text()) == {"b": 1, "a": [1, 2]}
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "sub" / "a.csv"), FRAME)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "a.parquet"), FRAME)
    assert torch.load(tmp_path / "a.pt", weights_only=True)["weights"].tolist() == [0, 1, 2]
    assert (tmp_path / "a.csv").exists() is False and _no_temporary_files(tmp_path)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("failure", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary_file(
    tmp_path: Path, failure: BaseException
) -> None:
    target = tmp_path / "table.csv"
    io.write_text(target, "old\n")

    def half_then_fail(temporary: Path) -> None:
        temporary.write_text("half a ta")
        raise failure

    with pytest.raises(type(failure)):
        io.write_with(target, half_then_fail)
    assert target.read_text() == "old\n"
    assert _no_temporary_files(tmp_path)


def test_remove_temporary_files_takes_only_what_a_killed_writer_leaves(tmp_path: Path) -> None:
    (tmp_path / ".part-1.parquet.abc123.tmp").write_text("half")
    (tmp_path / "part-1.parquet").write_text("whole")
    (tmp_path / ".hidden").write_text("not ours")
    assert io.remove_temporary_files(tmp_path) == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == [".hidden", "part-1.parquet"]


def test_a_new_folder_is_created_with_its_manifest(tmp_path: Path) -> None:
    out = outdir.prepare_out_dir(
        tmp_path / "a" / "b", job="sweep", params={"seeds": (0, 1), "where": tmp_path}
    )
    manifest = outdir.read_manifest(out)
    assert manifest is not None and manifest["job"] == "sweep"
    assert manifest["parameters"] == {"seeds": [0, 1], "where": str(tmp_path)}  # as JSON reads it back
    assert manifest["created"].endswith("Z") and "code_version" in manifest
    # an empty existing folder is as good as a new one
    (tmp_path / "empty").mkdir()
    outdir.prepare_out_dir(tmp_path / "empty", job="sweep", params={})


def test_a_folder_inside_an_input_tree_is_refused(tmp_path: Path) -> None:
    inputs = tmp_path / "experiments"
    (inputs / "run_1").mkdir(parents=True)
    for out in (inputs, inputs / "run_1" / "out"):
        with pytest.raises(ParameterError, match=r"^--out: .* is inside the input .*experiments") as error:
            outdir.prepare_out_dir(out, job="analyze", params={}, inputs=[inputs], name="--out")
        assert "\n" not in str(error.value)
    assert not (inputs / "run_1" / "out").exists() and not (inputs / outdir.MANIFEST_FILE).exists()


def test_overwriting_a_folder_that_contains_an_input_is_refused(tmp_path: Path) -> None:
    out = outdir.prepare_out_dir(tmp_path / "out", job="analyze", params={})
    (out / "logs").mkdir()
    with pytest.raises(ParameterError, match="would delete the input"):
        outdir.prepare_out_dir(out, job="analyze", params={}, inputs=[out / "logs"], overwrite=True)
    assert (out / "logs").is_dir()


def test_files_no_run_wrote_are_refused_and_never_deleted(tmp_path: Path) -> None:
    (tmp_path / "thesis.tex").write_text("precious")
    for flags in ({}, {"resume": True}, {"overwrite": True}):
        with pytest.raises(ParameterError, match=r"holds no manifest\.json"):
            outdir.prepare_out_dir(tmp_path, job="report", params={}, **flags)
    assert (tmp_path / "thesis.tex").read_text() == "precious"


def test_an_earlier_run_needs_resume_or_overwrite(tmp_path: Path) -> None:
    out = outdir.prepare_out_dir(tmp_path / "out", job="report", params={"profile": "quick"})
    (out / "index.html").write_text("earlier")
    with pytest.raises(ParameterError, match=r"holds an earlier report run .*--resume.*--overwrite"):
        outdir.prepare_out_dir(out, job="report", params={"profile": "quick"})
    outdir.prepare_out_dir(out, job="report", params={"profile": "quick"}, resume=True)
    assert (out / "index.html").read_text() == "earlier"  # resume keeps what is there


def test_resume_names_every_parameter_that_differs(tmp_path: Path) -> None:
    out = outdir.prepare_out_dir(tmp_path, job="training", params={"epochs": 10, "seeds": [0], "lr": 0.1})
    (out / "training.csv").write_text("epoch\n1\n")
    with pytest.raises(ParameterError, match=r"epochs was 10, now 20; lr was 0.1, now 0.2") as error:
        outdir.prepare_out_dir(
            tmp_path, job="training", params={"epochs": 20, "seeds": [0], "lr": 0.2}, resume=True
        )
    assert "seeds" not in str(error.value)
    # `compare` limits the check to the parameters that change results; the manifest records the new ones
    outdir.prepare_out_dir(
        tmp_path,
        job="training",
        params={"epochs": 10, "seeds": [0, 1], "lr": 0.1},
        resume=True,
        compare=["epochs"],
    )
    assert outdir.read_manifest(tmp_path)["parameters"]["seeds"] == [0, 1]


def test_another_jobs_folder_is_not_resumed(tmp_path: Path) -> None:
    outdir.prepare_out_dir(tmp_path, job="sweep", params={})
    with pytest.raises(ParameterError, match="holds the outputs of a 'sweep' run, not of a 'report' run"):
        outdir.prepare_out_dir(tmp_path, job="report", params={}, resume=True)


def test_overwrite_deletes_the_earlier_run_first(tmp_path: Path) -> None:
    out = outdir.prepare_out_dir(tmp_path / "out", job="sweep", params={"seed": 0})
    (out / "episodes").mkdir()
    (out / "episodes" / "part-1.parquet").write_text("old")
    (out / "episodes.parquet").write_text("old")
    outdir.prepare_out_dir(
        out, job="sweep", params={"seed": 1}, overwrite=True, resume=True
    )  # overwrite wins
    assert sorted(path.name for path in out.iterdir()) == [outdir.MANIFEST_FILE]
    assert outdir.read_manifest(out)["parameters"] == {"seed": 1}


def test_a_file_or_an_unwritable_place_is_a_one_line_parameter_error(tmp_path: Path) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    with pytest.raises(ParameterError, match=r"^out_dir: .*a_file' exists and is not a folder$"):
        outdir.prepare_out_dir(a_file, job="sweep", params={}, name="out_dir")
    with pytest.raises(ParameterError, match=r"^out_dir: cannot write to .*a_file/sub' \(") as error:
        outdir.prepare_out_dir(a_file / "sub", job="sweep", params={}, name="out_dir")
    assert "\n" not in str(error.value)
    assert a_file.read_text() == "x"
    with pytest.raises(ParameterError, match=r"^out_dir: cannot write to .*a_file/run"):
        io.make_dir(a_file / "run", name="out_dir")


def test_a_staged_folder_replaces_the_target_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "tree"
    with io.staged_dir(target) as staging:
        (staging / "a.txt").write_text("first")
        assert not target.exists()  # nothing visible until the block ends
    assert (target / "a.txt").read_text() == "first"
    with pytest.raises(RuntimeError), io.staged_dir(target) as staging:
        (staging / "b.txt").write_text("half")
        raise RuntimeError("build failed")
    assert sorted(p.name for p in target.iterdir()) == ["a.txt"]  # the earlier tree, untouched
    with io.staged_dir(target) as staging:
        (staging / "b.txt").write_text("second")
    assert sorted(p.name for p in target.iterdir()) == ["b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree"]  # no staging folder left behind
    (tmp_path / "file").write_text("x")
    with (
        pytest.raises(ParameterError, match=r"^out: cannot write to .*file"),
        io.staged_dir(tmp_path / "file" / "t"),
    ):
        pass


def test_write_parquet_round_trips_and_splits_float_bytes(tmp_path):
    import pandas as pd
    import pyarrow.parquet as pq

    frame = pd.DataFrame(
        {
            "q": [0.1, -2.5, 3.25, float("nan")],
            "n": [1, 2, 3, 4],
            "name": ["a", "b", "a", "c"],
            "kind": pd.Categorical(["x", "y", "x", "x"]),
        }
    )
    path = io.write_parquet(tmp_path / "t.parquet", frame)
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)
    columns = pq.ParquetFile(path).metadata.row_group(0)
    encodings = {
        columns.column(i).path_in_schema: columns.column(i).encodings for i in range(columns.num_columns)
    }
    assert "BYTE_STREAM_SPLIT" in encodings["q"] and "BYTE_STREAM_SPLIT" not in encodings["n"]
    unnamed = io.write_parquet(
        tmp_path / "u.parquet", pd.DataFrame({0: [1.5, 2.5]})
    )  # non-string names: plain
    assert pd.read_parquet(unnamed).shape == (2, 1)


def test_inline_json_keeps_the_data_and_puts_each_deep_entry_on_one_line(tmp_path: Path) -> None:
    log = [{"update": i, "loss": i / 3, "success": {"a@1": "0/1"}} for i in range(3)]
    data = {"command": "x", "seeds": [0, 1], "runs": [{"seed": 0, "log": log}], 7: True, "none": {}}
    path = io.write_json(tmp_path / "run.json", data, inline_depth=4)
    text = path.read_text()
    assert json.loads(text) == json.loads(json.dumps(data))  # int keys become strings, as json.dumps writes
    lines = text.splitlines()
    assert sum(line.strip().startswith('{"update"') for line in lines) == 3  # one line per log entry
    assert '  "seeds": [0, 1],' in lines  # a list of plain values stays on one line
    assert text.endswith("}\n") and lines[0] == "{"
