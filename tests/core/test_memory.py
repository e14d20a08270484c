"""core.memory: the cyclic collector is paused inside the block and restored after it, errors included."""

import gc

import pytest

from core.memory import paused_gc


def test_paused_inside_and_restored_after():
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_after_an_error():
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_nested_blocks_and_a_collector_left_off():
    with paused_gc():
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still holds it off
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # off before, off after: not switched on by the block
    finally:
        gc.enable()
