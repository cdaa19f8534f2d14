from __future__ import annotations

import math

import pytest

from cogames_lib.errors import DataFileError
from cogames_lib.finding import Finding, findings_from_json, findings_to_json, interval_text


def test_interval_text_with_interval_and_n() -> None:
    assert interval_text(0.5912, 0.47, 0.711, 64, "episodes") == "0.59 [0.47, 0.71] (n = 64 episodes)"


def test_interval_text_hides_an_interval_from_one_unit() -> None:
    assert interval_text(0.5, 0.1, 0.9, 1, "seeds") == "0.50 (no interval) (n = 1 seeds)"


def test_interval_text_without_bounds_or_n() -> None:
    assert interval_text(3.14159, digits=3) == "3.142"
    assert interval_text(1.0, math.nan, math.nan, 5) == "1.00 (no interval) (n = 5)"


def test_findings_round_trip_through_json_and_nan_becomes_null() -> None:
    finding = Finding(
        "staghunt", "stags", "Agents learn.", 3.19, 3.14, math.nan, 10, "seeds", "t", "a.png", "t.csv"
    )
    records = findings_to_json([finding])
    assert records[0]["high"] is None
    back = findings_from_json(records)
    assert back[0].estimate == pytest.approx(3.19) and back[0].figure == "a.png"
    assert back[0].number_text() == "3.19 (no interval) (n = 10 seeds)"


def test_malformed_record_names_position_and_field() -> None:
    with pytest.raises(DataFileError, match="finding 1 has unknown field"):
        findings_from_json(
            [
                {"capability": "a", "key": "b", "text": "c"},
                {"capability": "a", "key": "b", "text": "c", "x": 1},
            ]
        )
    with pytest.raises(DataFileError, match="finding 0 needs a text field 'text'"):
        findings_from_json([{"capability": "a", "key": "b"}])
