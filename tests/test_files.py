"""Atomic writes: the whole new file or the whole old one, with ordinary permissions."""

import os

import pytest

from evo.core.files import atomic_write_json, atomic_write_text


def test_atomic_write_replaces_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "a.txt"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert os.listdir(target.parent) == ["a.txt"]
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "b.json"
    atomic_write_json(target, {"ok": 1})
    with pytest.raises(TypeError):
        atomic_write_json(target, {"bad": object()})
    assert target.read_text().strip() == '{\n "ok": 1\n}'
    assert os.listdir(tmp_path) == ["b.json"]
