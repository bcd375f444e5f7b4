"""Ctrl-C stops a long run promptly, as KeyboardInterrupt, leaving nothing behind; the progress
callback sees the run advance and can stop it too.

A long run here takes minutes uninterrupted (10^8 steps per trial), so a test that passes
shows the stop really came from the interruption, within the second the issue asks for."""
import _thread
import os
import signal
import threading
import time

import pytest

import rhoflow

LONG = dict(steps=10**8, trials=2, threads=2)


def interrupt_after(seconds, how):
    """Interrupts the main thread after `seconds`; returns a list that gets the time it did."""
    when = []

    def fire():
        when.append(time.monotonic())
        if how == "signal":
            os.kill(os.getpid(), signal.SIGINT)
        else:
            _thread.interrupt_main()
    threading.Timer(seconds, fire).start()
    return when


@pytest.mark.parametrize("how", ["signal", "interrupt_main"])
def test_a_long_sga_raises_keyboard_interrupt_within_a_second(how):
    when = interrupt_after(0.5, how)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        rhoflow.sga(**LONG)
    stopped = time.monotonic()
    assert when, "the interruption never fired"
    assert stopped - when[0] < 1.0, f"stopped {stopped - when[0]:.2f} s after the interruption"
    assert stopped - start < 5
    # The next call is not affected (the stop belonged to the interrupted run alone).
    assert rhoflow.sga(steps=100, trials=2).rho.shape[0] == 2


def test_a_long_compare_stops_too():
    when = interrupt_after(1.0, "signal")
    with pytest.raises(KeyboardInterrupt):
        rhoflow.compare(steps=10**7, trials=4, no_study=True)
    assert time.monotonic() - when[0] < 1.0


def test_an_interrupted_experiment_leaves_no_output_and_resumes(tmp_path):
    path = tmp_path / "long.toml"
    path.write_text('[[task]]\nname = "quick"\ncommand = "sga"\nsteps = 200\ntrials = 2\n'
                    '[[task]]\nname = "long"\ncommand = "sga"\nsteps = 100000000\ntrials = 2\n')
    out = tmp_path / "out"
    when = interrupt_after(1.0, "signal")
    with pytest.raises(KeyboardInterrupt):
        rhoflow.run(path, out=out)
    assert time.monotonic() - when[0] < 1.0
    assert not out.exists()                                  # OUT is complete or absent
    partial = tmp_path / ".out.partial"
    assert (partial / "quick" / "run" / "result.json").is_file()   # the finished cell is kept for a rerun
    assert not (partial / "long" / "run").exists()
    # The rerun (with a short long task) resumes the finished cell.
    path.write_text(path.read_text().replace("100000000", "300"))
    r = rhoflow.run(path, out=out)
    assert [c.resumed for c in r.cells] == [True, False] and out.is_dir() and not partial.exists()


def test_progress_callback_sees_the_steps_and_can_stop_the_run():
    calls = []
    small = rhoflow.Model(L=200, R=20)
    s = rhoflow.sga(small, steps=50000, trials=4, threads=2, progress=lambda done, total: calls.append((done, total)))
    assert len(calls) >= 2 and all(total == 200000 for _, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and calls[-1][0] == 200000
    assert s.rho.shape[0] == 4

    class Stop(Exception):
        pass

    def stop(done, total):
        if done > 0:
            raise Stop()
    start = time.monotonic()
    with pytest.raises(Stop):
        rhoflow.sga(**LONG, progress=stop)
    assert time.monotonic() - start < 5

    class Bar:  # what tqdm offers: total and update(n)
        total, n = None, 0

        def update(self, k):
            self.n += k
    bar = Bar()
    rhoflow.sga(small, steps=20000, trials=2, progress=bar)
    assert bar.total == 40000 and bar.n == 40000
