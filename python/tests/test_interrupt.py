"""Ctrl-C stops a long run promptly, as KeyboardInterrupt, leaving nothing behind; the progress
callback sees the run advance and can stop it too.

The tests wait for events, never for a clock (a busy machine makes any time bound fail): the
interruption is sent once the run has reported work done (or once an experiment's quick cell is
complete), and the run must then end with KeyboardInterrupt before it finished its work (a run
that ignored it would report all its steps done, after minutes: 10^8 steps per trial)."""
import _thread
import os
import signal
import threading

import pytest

import rhoflow

LONG = dict(steps=10**8, trials=2, threads=2)


def interrupter(how):
    """(event, fire): setting `event` makes another thread interrupt the main thread."""
    ready = threading.Event()

    def fire():
        ready.wait()
        if how == "signal":
            os.kill(os.getpid(), signal.SIGINT)
        else:
            _thread.interrupt_main()
    threading.Thread(target=fire, daemon=True).start()
    return ready


def interrupt_once_running(how):
    """A progress callback that has the main thread interrupted at its first report of work done;
    the (done, total) it saw."""
    ready, calls = interrupter(how), []

    def progress(done, total):
        calls.append((done, total))
        if done > 0:
            ready.set()
    return progress, calls


@pytest.mark.parametrize("how", ["signal", "interrupt_main"])
def test_a_long_sga_raises_keyboard_interrupt_once_interrupted(how):
    progress, calls = interrupt_once_running(how)
    with pytest.raises(KeyboardInterrupt):
        rhoflow.sga(**LONG, progress=progress)
    assert calls and calls[-1][0] < calls[-1][1], calls  # stopped by the interruption, before its end
    # The next call is not affected (the stop belonged to the interrupted run alone).
    assert rhoflow.sga(steps=100, trials=2).rho.shape[0] == 2


def test_a_long_compare_stops_too():
    progress, calls = interrupt_once_running("signal")
    with pytest.raises(KeyboardInterrupt):
        rhoflow.compare(steps=10**8, trials=4, no_study=True, progress=progress)
    assert calls and calls[-1][0] < calls[-1][1], calls


def test_an_interrupted_experiment_leaves_no_output_and_resumes(tmp_path):
    path = tmp_path / "long.toml"
    path.write_text('[[task]]\nname = "quick"\ncommand = "sga"\nsteps = 200\ntrials = 2\n'
                    '[[task]]\nname = "long"\ncommand = "sga"\nsteps = 100000000\ntrials = 2\n')
    out = tmp_path / "out"
    ready, lines = interrupter("signal"), []

    def log(line):  # "[1/2] quick/run (...)": the quick cell is complete, written and recorded
        lines.append(line)
        if line.startswith("[") and " quick/run " in line:
            ready.set()
    with pytest.raises(KeyboardInterrupt):
        rhoflow.run(path, out=out, log=log)
    assert ready.is_set(), lines
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
        raise Stop()
    with pytest.raises(Stop):  # at its first report; uninterrupted the run would take hours (the time limit)
        rhoflow.sga(**{**LONG, "steps": 10**9}, progress=stop)

    class Bar:  # what tqdm offers: total and update(n)
        total, n = None, 0

        def update(self, k):
            self.n += k
    bar = Bar()
    rhoflow.sga(small, steps=20000, trials=2, progress=bar)
    assert bar.total == 40000 and bar.n == 40000
