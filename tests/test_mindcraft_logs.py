"""One agent log -> outcome: every status, every message variant, the old scripts' bugs, never raising."""

from __future__ import annotations

import json
import math
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogames_lib.mindcraft import analyze_json_file, analyze_log_bytes, parse_agent_log_name
from cogames_lib.outcomes import STATUS_ORDER, CompletionStatus

S = CompletionStatus


def log_bytes(*system_messages: str, extra_turns: list[dict] | None = None) -> bytes:
    turns = [
        {"role": "system", "content": "Respond with hello world and your name"},
        {"role": "user", "content": "Jill_0: hi Andy, I have 3 wheat"},
        {"role": "assistant", "content": '!craftRecipe("bread", 1)'},
        *(extra_turns or []),
        *({"role": "system", "content": message} for message in system_messages),
    ]
    document = {
        "memory": "",
        "turns": turns,
        "self_prompting_state": 0,
        "self_prompt": None,
        "taskStart": 1742300000000,
        "last_sender": "Jill_0",
    }
    return json.dumps(document).encode()


def outcome(data: bytes, scale: float | None = None, name: str = "Andy_0_0.json") -> dict:
    return analyze_log_bytes(name, data, scale)


@pytest.mark.parametrize(
    ("message", "scale", "status", "raw"),
    [
        ("Task ended with score : 1", 1, S.SUCCESS, 1.0),
        ("Task ended with score : 0", 1, S.FAILED_SCORE_ZERO, 0.0),
        ("Task ended with score : 100", 100, S.SUCCESS, 1.0),
        ("Task ended with score : 57.14285714285714", 100, S.FAILED_PARTIAL_SCORE, 0.5714285714285714),
        ("Task ended with score : 0", 100, S.FAILED_SCORE_ZERO, 0.0),
        ("Task ended in score: 1", 1, S.SUCCESS, 1.0),  # the typo variant
        ("Task ended with score:1", 1, S.SUCCESS, 1.0),  # tolerant spacing
        ("Task successful ended with code : 2", 1, S.SUCCESS, 1.0),
        ("Task successful ended with code : undefined", 1, S.SUCCESS, 1.0),
        ("Task timeout reached ended with code : 4", 1, S.TIMED_OUT, None),
        ("Task timeout reached ended with code : undefined", 1, S.TIMED_OUT, None),
        # code 3 is today's "agents missing" path, which logs a 0: both eras give the same status
        ("No other agents found ended with code : 3", 1, S.FAILED_SCORE_ZERO, 0.0),
        ("No other agents found ended with code : undefined", 1, S.FAILED_SCORE_ZERO, 0.0),
    ],
)
def test_each_message_variant_gives_its_status(
    message: str, scale: float, status: S, raw: float | None
) -> None:
    result = outcome(log_bytes(message), scale)
    assert result["completion_status"] == status
    assert result["raw_score"] == raw
    assert result["final_system_message"] == message
    assert result["agent_log_processed"] is True
    assert result["parsing_errors"] == []


def test_no_score_line_is_no_score_logged() -> None:
    result = outcome(log_bytes("Code output:\nYou have reached Jill_0."))
    assert result["completion_status"] == S.NO_SCORE_LOGGED
    assert result["raw_score"] is None and result["final_system_message"] is None
    assert result["turn_count"] == 4 and result["agent_name"] == "Andy_0" and result["run_index"] == 0


def test_nan_score_is_no_score_with_a_note() -> None:
    result = outcome(log_bytes("Task ended with score : NaN"))
    assert result["completion_status"] == S.NO_SCORE_LOGGED
    assert result["raw_score"] is None and math.isnan(result["logged_score"])
    assert "no usable number" in result["parsing_errors"][0]


def test_legacy_timeout_overrides_a_later_success() -> None:
    data = log_bytes("Task timeout reached ended with code : 4", "Task ended with score : 1")
    assert outcome(data)["completion_status"] == S.TIMED_OUT


def test_stale_duplicate_score_takes_the_last_line() -> None:
    result = outcome(log_bytes("Task ended with score : 0", "Task ended with score : 1"))
    assert result["completion_status"] == S.SUCCESS
    assert result["score_lines_found"] == 2
    assert any("last one counts" in note for note in result["parsing_errors"])


def test_score_quoted_in_a_user_turn_is_not_a_verdict() -> None:
    quote = [{"role": "user", "content": "Jill_0: my log said Task ended with score : 1"}]
    assert outcome(log_bytes(extra_turns=quote))["completion_status"] == S.NO_SCORE_LOGGED


def test_out_of_range_score_is_clipped_with_a_note() -> None:
    result = outcome(log_bytes("Task ended with score : 7"), scale=1)
    assert result["completion_status"] == S.SUCCESS and result["raw_score"] == 1.0
    assert "clipped" in result["parsing_errors"][0]


def test_unknown_scale_is_inferred_from_a_percentage() -> None:
    assert outcome(log_bytes("Task ended with score : 100"))["score_scale"] == 100
    assert outcome(log_bytes("Task ended with score : 1"))["score_scale"] == 1


def test_bare_list_of_turns_is_accepted() -> None:
    turns = [{"role": "user", "content": "hi"}, {"role": "system", "content": "Task ended with score : 1"}]
    result = outcome(json.dumps(turns).encode())
    assert result["completion_status"] == S.SUCCESS and result["turn_count"] == 2


def test_malformed_turns_are_skipped_and_reported() -> None:
    data = json.dumps(
        [
            1,
            None,
            {"role": "system", "content": 5},
            {"role": "system", "content": "Task ended with score : 0"},
        ]
    )
    result = outcome(data.encode())
    assert result["completion_status"] == S.FAILED_SCORE_ZERO
    assert "2 malformed turn(s)" in result["parsing_errors"][0]


@pytest.mark.parametrize(
    "content",
    ["Task ended with score : \\u0031", "Task \\u0065nded with score : 1", "Task en\\u0064ed with score : 1"],
)
def test_escaped_verdict_is_still_found(content: str) -> None:
    data = b'{"turns": [{"role": "system", "content": "' + content.encode() + b'"}]}'
    assert outcome(data)["completion_status"] == S.SUCCESS


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty file"),
        (b"   ", "not JSON"),
        (log_bytes("Task ended with score : 1")[:-40], "not JSON"),  # truncated mid-write
        (b'{"turns": "nope"}', "wrong shape"),
        (b'{"memory": "x"}', "wrong shape"),
        (b'"just a string"', "wrong shape"),
        (b"42", "wrong shape"),
        ('{"memory": "Travaillé"}'.encode("latin-1"), "not UTF-8"),
        ("Task ended with score : 1".encode("utf-16"), "not UTF-8"),
    ],
)
def test_broken_files_are_log_file_errors_with_a_reason(data: bytes, reason: str) -> None:
    result = outcome(data)
    assert result["completion_status"] == S.LOG_FILE_ERROR
    assert result["agent_log_processed"] is False
    assert result["parsing_errors"][0].startswith(reason)


def test_unreadable_path_is_a_log_file_error(tmp_path) -> None:
    assert analyze_json_file(tmp_path / "Andy_0_0.json")["completion_status"] == S.LOG_FILE_ERROR
    assert analyze_json_file(tmp_path / "Andy_0_0.json")["parsing_errors"][0].startswith("unreadable")
    assert analyze_json_file(tmp_path)["parsing_errors"][0] == "not read: a directory, not a regular file"


def test_file_and_bytes_give_the_same_outcome(tmp_path) -> None:
    data = log_bytes("Task ended with score : 57.14285714285714")
    path = tmp_path / "Bob_3_12.json"
    path.write_bytes(data)
    from_file = analyze_json_file(path, score_scale=100)
    assert from_file == analyze_log_bytes("Bob_3_12.json", data, 100)
    assert (from_file["agent_name"], from_file["run_index"]) == ("Bob_3", 12)


def test_agent_log_names() -> None:
    assert parse_agent_log_name("Andy_0_1.json") == ("Andy_0", 1)
    for name in ("Andy_0.json", "andy_x_1.json", "Andy_0_1.json.bak", "memory.json", "Andy 0_1.json"):
        assert parse_agent_log_name(name) is None


# --- regression tests: the old scripts' bugs -------------------------------------------------------


@pytest.mark.parametrize("logged", ["100", "14.285714285714286", "10", "1.5"])
def test_regression_substring_match_does_not_read_a_number_starting_with_1_as_1(logged: str) -> None:
    # Old scripts: `"Task ended with score : 1" in content` -> 100, 14.28 and 10 all counted as 1.
    result = outcome(log_bytes(f"Task ended with score : {logged}"), scale=100)
    assert result["logged_score"] == float(logged)
    expected = S.SUCCESS if logged == "100" else S.FAILED_PARTIAL_SCORE
    assert result["completion_status"] == expected


def test_regression_perfect_construction_is_success_not_partial() -> None:
    # The unmerged upstream attempt scored a perfect construction (100) as partial.
    assert outcome(log_bytes("Task ended with score : 100"), scale=100)["completion_status"] == S.SUCCESS


def test_regression_non_utf8_log_does_not_crash(tmp_path) -> None:
    path = tmp_path / "Jill_0_0.json"
    path.write_bytes(b'{"turns": [], "memory": "caf\xe9"}')
    result = analyze_json_file(path)
    assert result["completion_status"] == S.LOG_FILE_ERROR and "0xe9" in result["parsing_errors"][0]


# --- property tests: nothing ever raises, every result has a valid status ---------------------------

VALID = set(STATUS_ORDER) - {S.RUN_ERROR}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
verdict_text = st.sampled_from(
    [
        "Task ended with score : 1",
        "Task ended with score : NaN",
        "Task ended in score: 0.5",
        "Task ended with score : -3",
        "Task ended with score : 1e999",
        "Task timeout reached ended with code : 4",
        "No other agents found ended with code : undefined",
    ]
)
turn = (
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["system", "user", "assistant", "other"]),
            "content": st.text() | verdict_text,
        }
    )
    | json_values
)


def _check(result: dict) -> None:
    assert result["completion_status"] in VALID
    assert result["raw_score"] is None or 0.0 <= result["raw_score"] <= 1.0
    assert (result["completion_status"] == S.LOG_FILE_ERROR) == (not result["agent_log_processed"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_property_arbitrary_bytes_never_raise(data: bytes) -> None:
    _check(outcome(data))


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_property_arbitrary_json_never_raises(document) -> None:
    _check(outcome(json.dumps(document).encode()))


@settings(max_examples=200, deadline=None)
@given(st.lists(turn, max_size=12), st.sampled_from([None, 1.0, 100.0]), st.booleans())
def test_property_arbitrary_turns_never_raise(turns, scale, wrapped) -> None:
    document = {"turns": turns} if wrapped else turns
    _check(outcome(json.dumps(document).encode(), scale))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"role": st.sampled_from(["system", "user"]), "content": st.text(max_size=20) | verdict_text}
        ),
        max_size=6,
    ),
    st.lists(st.booleans(), min_size=1, max_size=64),
)
def test_property_escaped_letters_never_hide_a_verdict(turns, escape_mask) -> None:
    text = json.dumps(turns)  # only strings and punctuation, so any e/n/d may be \u-escaped
    letters = iter(escape_mask * (len(text) // len(escape_mask) + 1))
    escaped = "".join(f"\\u{ord(c):04x}" if c in "end" and next(letters) else c for c in text)
    data = escaped.encode()
    reference = reference_outcome(data)
    assert outcome(data) == reference or (
        math.isnan(reference["logged_score"])
        and outcome(data)["completion_status"] == reference["completion_status"]
    )


def test_a_fifo_named_like_a_log_does_not_hang(tmp_path) -> None:
    import os

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / "Andy_0_0.json")
    result = analyze_json_file(tmp_path / "Andy_0_0.json")
    assert result["completion_status"] == S.LOG_FILE_ERROR
    assert result["parsing_errors"] == ["not read: a FIFO, not a regular file"]


def test_lone_surrogate_escapes_fall_back_to_the_standard_library() -> None:
    # msgspec refuses `\ud83d` (half of a broken emoji); Python's json reads it: the log must still count
    import msgspec

    data = log_bytes("Task ended with score : 1", extra_turns=[{"role": "user", "content": "x"}])
    data = data.replace(b'"x"', b'"broken emoji \\ud83d here"')
    with pytest.raises(msgspec.DecodeError):
        msgspec.json.decode(data)
    result = outcome(data)
    assert result["completion_status"] == S.SUCCESS and result["task_start_ms"] == 1742300000000


def reference_outcome(data: bytes, scale: float | None = None) -> dict:
    """The outcome as the standard library alone reads the log (msgspec switched off)."""
    from cogames_lib.mindcraft import logs

    with mock.patch.object(logs, "_fast_read", lambda *arguments: None):
        return outcome(data, scale)


def test_msgspec_and_the_standard_library_agree_on_a_normal_log() -> None:
    from cogames_lib.mindcraft import logs

    for data in (log_bytes("Task ended with score : 57.14285714285714"), log_bytes()):
        assert logs._fast_read(data) is not None  # the fast reader judged it
        fast = outcome(data, 100)
        assert fast == reference_outcome(data, 100)
        assert fast["task_start_ms"] == 1742300000000 and fast["turn_count"] >= 3


def test_a_long_conversation_log_is_read_fast_and_alike() -> None:
    import random

    from cogames_lib.mindcraft import logs
    from tools.mindcraft_sample.logs import make_conversation_log

    for verdict in (("score", 1), None):  # whole LLM conversations, as the benchmark's realistic tree holds
        data = make_conversation_log(
            "Andy_0", "Jill_0", "bread", random.Random(3), verdict, 60_000, 1742300000000
        )
        assert len(data) > 50_000 and not data.isascii() and logs._fast_read(data) is not None
        assert outcome(data) == reference_outcome(data)
    assert outcome(data)["completion_status"] == S.NO_SCORE_LOGGED and outcome(data)["turn_count"] > 20


@pytest.mark.parametrize(
    ("replacement", "reason"),
    [
        (b'"caf\xe9"', "not UTF-8: byte 0xe9"),  # Latin-1 in a field the fast reader skips
        (b'"\xc0\xaf"', "not UTF-8: byte 0xc0"),  # overlong encoding of '/'
        (b'"\xed\xa0\xbd"', "not UTF-8: byte 0xed"),  # a surrogate encoded as UTF-8
        (b'"\xf4\x90\x80\x80"', "not UTF-8: byte 0xf4"),  # beyond U+10FFFF
        (b"NaN", None),  # valid for Python's json, refused by msgspec
        (b'"\\ud83d"', None),  # a lone surrogate escape, likewise
    ],
)
def test_what_the_fast_reader_cannot_judge_is_judged_by_the_standard_library(replacement, reason) -> None:
    # msgspec does not check UTF-8 and refuses what Python's json accepts: neither may change a status
    data = log_bytes("Task ended with score : 1").replace(b'"memory": ""', b'"memory": ' + replacement)
    result = outcome(data)
    assert result == reference_outcome(data)
    if reason is None:
        assert result["completion_status"] == S.SUCCESS
    else:
        assert result["completion_status"] == S.LOG_FILE_ERROR and result["parsing_errors"][0].startswith(
            reason
        )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(turn, max_size=8),
    st.booleans(),
    # a taskStart beyond 64 bits: msgspec reads it as an int, like the stdlib
    st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.floats(), st.booleans()),
    st.integers(min_value=0, max_value=400),
    st.sampled_from([b"", b"\xff", b"\xc0\xaf", b"\xef\xbb\xbf", b"}", b"\\ud83d", b"NaN", b","]),
)
def test_property_the_fast_readers_agree_with_the_standard_library(turns, wrapped, start, cut, junk) -> None:
    # any log, cut anywhere and with odd bytes spliced in: the same outcome whichever reader read it
    document = {"memory": "m", "turns": turns, "taskStart": start} if wrapped else turns
    data = json.dumps(document, allow_nan=True).encode()
    position = min(cut, len(data))
    for variant in (data, data[:position], data[:position] + junk + data[position:]):
        if not variant:
            continue
        expected = repr(reference_outcome(variant))  # repr: a logged NaN equals itself
        assert repr(outcome(variant)) == expected


def test_size_cap_refuses_a_large_file_without_reading_it(tmp_path) -> None:
    path = tmp_path / "Andy_0_0.json"
    with open(path, "wb") as handle:  # sparse: 1 GB on paper, nothing on disk
        handle.truncate(1 << 30)
    result = analyze_json_file(path, max_bytes=1 << 20)
    assert result["completion_status"] == S.LOG_FILE_ERROR
    assert "over the 1,048,576-byte cap" in result["parsing_errors"][0]
