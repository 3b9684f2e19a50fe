"""The per-user key that seals confirmations: made 0600 on first use (its folder 0700),
never made by a check, and not trusted when others can read it or it is a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cockpit.sources.server.confirm_key import ConfirmKeyError, confirmation, is_confirmed, key_path, read_key


def test_a_check_makes_no_key_and_nothing_verifies_without_one(own_confirm_key: Path) -> None:
    assert key_path() == own_confirm_key
    assert not is_confirmed("launch", "abcd", "hmac1:" + "0" * 32)
    assert not own_confirm_key.exists()


def test_the_first_confirmation_makes_the_key_and_it_verifies_only_its_own_stamp(own_confirm_key: Path) -> None:
    sealed = confirmation("launch", "abcd")
    assert own_confirm_key.stat().st_mode & 0o777 == 0o600
    assert is_confirmed("launch", "abcd", sealed)
    assert not is_confirmed("launch", "abce", sealed)  # another command
    assert not is_confirmed("sweep", "abcd", sealed)  # another kind of thing
    assert not is_confirmed("launch", "abcd", "abcd")  # a bare fingerprint (an older file)


def test_a_key_others_can_read_is_not_trusted(own_confirm_key: Path) -> None:
    sealed = confirmation("log", "x")
    os.chmod(own_confirm_key, 0o644)
    assert read_key() is None and not is_confirmed("log", "x", sealed)
    with pytest.raises(ConfirmKeyError, match="others can read it"):
        confirmation("log", "x")


def test_a_planted_link_is_not_followed(own_confirm_key: Path, tmp_path: Path) -> None:
    other = tmp_path / "someone-elses-key"
    other.write_bytes(os.urandom(32))
    os.chmod(other, 0o600)
    own_confirm_key.parent.mkdir(parents=True)
    own_confirm_key.symlink_to(other)
    assert read_key() is None
    with pytest.raises(ConfirmKeyError):
        confirmation("launch", "abcd")
