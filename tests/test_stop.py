"""Stop tokens (nonosat.stop): set from another thread, by a timer and by an interrupt."""

from __future__ import annotations

import threading
import time

import pytest

from nonosat import interrupts, stop


def test_first_reason_is_kept_and_running_is_not_a_reason():
    token = stop.StopToken()
    assert not token and token.reason == "running"
    token.set(stop.TIME_LIMIT)
    token.set(stop.CANCELLED)
    assert token.is_set() and token.reason == "time limit" and token.flag[0] == stop.TIME_LIMIT
    with pytest.raises(ValueError):
        token.set(stop.RUNNING)


def test_set_from_another_thread_and_by_the_timer():
    token = stop.StopToken()
    threading.Thread(target=token.set).start()
    for _ in range(200):
        if token:
            break
        time.sleep(0.01)
    assert token.reason == "cancelled"
    timed = stop.StopToken()
    timed.arm(0.05)
    time.sleep(0.5)
    assert timed.reason == "time limit"
    closed = stop.StopToken()
    closed.arm(0.05)
    closed.close()
    time.sleep(0.2)
    assert not closed


def test_an_interrupt_sets_a_watching_token_only():
    watching, idle = stop.StopToken(), stop.StopToken()
    try:
        with watching.watch_interrupts():
            interrupts.request(interrupts.SIGINT)
        assert watching.reason == "interrupted"
        assert not idle
        with pytest.raises(interrupts.Interrupted):
            with idle.watch_interrupts():
                pass
    finally:
        interrupts.reset()
