"""The GIL is released during a run: other Python threads keep running, and two runs in two
threads proceed at once and give the numbers each gives alone.

The speed-up of two threads over one call is measured in docs/benchmarks.md (a shared machine
makes it a poor test); here it is printed, and what is asserted waits for events, never for a
clock: a Python thread counting while sga runs would count nothing with the GIL held."""
import sys
import threading
import time

import numpy as np

import rhoflow

JOB = dict(steps=10000, trials=4, threads=1, seed=5)


def test_python_threads_run_during_a_computation():
    # With a switch interval of 10^4 s the interpreter never takes the GIL from a thread: another
    # thread runs only when the holder releases it, as the module must while its run computes.
    # The counting thread starts counting at the run's first report and the run is stopped once it
    # has counted 100; with the GIL held by the run it would never count, and the run would go on
    # to its end (10^8 steps per trial, minutes).
    started, done, counted = threading.Event(), threading.Event(), [0]

    def count():
        while not done.is_set():
            if started.is_set():
                counted[0] += 1
            time.sleep(0)  # releases the GIL, so that the run's thread can take it back

    class Enough(Exception):
        pass

    def progress(done_steps, total):
        started.set()
        if counted[0] >= 100:
            raise Enough()
    old = sys.getswitchinterval()
    sys.setswitchinterval(10**4)
    t = threading.Thread(target=count)
    t.start()
    try:
        try:
            rhoflow.sga(steps=10**8, trials=2, threads=1, progress=progress)
        except Enough:
            pass
    finally:
        done.set()
        t.join()
        sys.setswitchinterval(old)
    assert counted[0] >= 100, counted[0]


def test_two_threads_calling_sga_at_once_give_the_numbers_of_one_call():
    start = time.monotonic()
    alone = rhoflow.sga(**JOB)
    one = time.monotonic() - start
    results = [None, None]

    def work(i):
        results[i] = rhoflow.sga(**JOB)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    two = time.monotonic() - start
    for r in results:
        assert r is not None and r.rho.tobytes() == alone.rho.tobytes()
    print(f"one call {one:.2f} s, two concurrent calls {two:.2f} s (ratio {two / one:.2f}; 2 = serialised)")


def test_a_result_can_be_read_by_several_threads():
    s = rhoflow.sga(steps=300, trials=3)
    texts = []
    threads = [threading.Thread(target=lambda: texts.append(s.to_json())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(texts)) == 1 and np.isfinite(s.rho).all()
