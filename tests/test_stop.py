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


def _wait_set(token: stop.StopToken, limit: float = 20.0) -> None:
    """Poll until ``token`` is set or ``limit`` seconds pass (a loaded machine can start a
    thread or fire a timer late: wait on the state, not a fixed time)."""
    deadline = time.monotonic() + limit
    while not token and time.monotonic() < deadline:
        time.sleep(0.005)


def test_set_from_another_thread_and_by_the_timer():
    token = stop.StopToken()
    threading.Thread(target=token.set).start()
    _wait_set(token)
    assert token.reason == "cancelled"
    timed = stop.StopToken()
    armed = time.monotonic()
    timed.arm(0.05)
    _wait_set(timed)
    assert timed.reason == "time limit" and time.monotonic() - armed >= 0.05
    # a closed timer never fires: armed beside one left alone, it is still clear once the other
    # has fired and as long again has passed
    closed, witness = stop.StopToken(), stop.StopToken()
    closed.arm(0.05)
    witness.arm(0.05)
    closed.close()
    armed = time.monotonic()
    _wait_set(witness)
    time.sleep(time.monotonic() - armed)
    assert witness.reason == "time limit" and not closed


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
