"""core.memory: the cyclic collector is paused inside the block and restored after it, errors included;
``settle`` takes what is alive out of later collections, and reference counting still frees it."""

import gc
import weakref

import pytest

from core.memory import paused_gc, settle


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


class Record:
    """An object of the kind a parsed release is made of (tracked by the collector, weak-referenceable)."""

    def __init__(self, value: int) -> None:
        self.value = value


def test_settle_leaves_what_is_alive_out_of_collections_and_refcounting_still_frees_it():
    try:
        records = [Record(i) for i in range(2000)]
        before = gc.get_freeze_count()
        settle()
        assert gc.get_freeze_count() >= before + len(records)  # every one of them, in the permanent generation
        alive = weakref.ref(records[0])
        del records
        assert alive() is None  # freed by reference counting at once, frozen or not: no collection needed
    finally:
        gc.unfreeze()
