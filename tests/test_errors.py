from __future__ import annotations

from cogames_lib.errors import CogamesLibError, UnknownNameError, close_matches_message


def test_close_matches_lists_short_vocabularies_whole() -> None:
    assert close_matches_message("profile", "quik", ["full", "quick"]) == (
        "unknown profile 'quik'; did you mean 'quick'? (known: full, quick)"
    )


def test_close_matches_abbreviates_long_vocabularies() -> None:
    known = [f"diagnostic_{i}" for i in range(10)]
    message = close_matches_message("diagnostic", "zzz", known)
    assert message == "unknown diagnostic 'zzz' (known: 10, e.g. diagnostic_0, diagnostic_1, diagnostic_2)"


def test_unknown_name_error_prints_its_message_without_quotes() -> None:
    error = UnknownNameError("unknown thing 'x'")
    assert isinstance(error, CogamesLibError) and isinstance(error, KeyError)
    assert str(error) == "unknown thing 'x'"
