"""Files and documents read back are untrusted (issue 30, H4, H11, H14): load() never reads
without bound, never hangs on a FIFO (nor freezes other threads meanwhile), says what a path is
when it is no document, and refuses a document whose parts do not fit together, naming the JSON
path, instead of returning numbers its records do not give."""
import json
import os
import threading

import numpy as np
import pytest

import rhoflow


@pytest.fixture(scope="module")
def sga_doc():
    return json.loads(rhoflow.sga(steps=100, trials=2, seed=3).to_json())


# ------------------------------------------------------------------------------ H4: paths

def test_a_device_that_never_ends_is_refused_at_the_limit():
    with pytest.raises(OSError, match=r"/dev/zero: more than 1073741824 bytes \(1 GiB\), the limit for a result"):
        rhoflow.load("/dev/zero")


def test_a_fifo_without_writer_is_refused_after_a_wait_and_other_threads_run_meanwhile(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # While load() waits for a writer, another Python thread runs (the GIL is released): it sees
    # the wait begin (the FIFO has a reader) and counts; with the GIL held it could not.
    counted, done = [0], threading.Event()

    def count():
        while not done.is_set():
            counted[0] += 1
            done.wait(0.001)
    t = threading.Thread(target=count)
    t.start()
    try:
        with pytest.raises(OSError, match="it is a FIFO with no writer"):
            rhoflow.load(fifo)
    finally:
        done.set()
        t.join()
    assert counted[0] > 1


def test_a_fifo_with_a_writer_is_read(tmp_path, sga_doc):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    text = json.dumps(sga_doc)

    def write():
        with open(fifo, "w") as f:  # blocks until load() opened it for reading
            f.write(text)
    t = threading.Thread(target=write)
    t.start()
    r = rhoflow.load(fifo)
    t.join()
    assert isinstance(r, rhoflow.SgaResult) and r.rho.shape[0] == 2


def test_a_path_with_a_nul_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"'a\\x00b' holds a NUL character"):
        rhoflow.load("a\0b")


def test_a_run_folders_table_that_is_a_fifo_does_not_hang(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[[task]]\nname = "s"\ncommand = "sga"\nsteps = 50\ntrials = 2\n')
    out = tmp_path / "out"
    rhoflow.run(exp, out=out, figures=False)
    table = out / "s" / "summary.csv"
    table.unlink()
    os.mkfifo(table)
    with pytest.raises(OSError, match="summary.csv: cannot be read: it is a FIFO with no writer"):
        rhoflow.load(out)


# ------------------------------------------------------------------------------ H11: documents

def refused(doc, match):
    with pytest.raises(ValueError, match=match):
        rhoflow.from_json(json.dumps(doc))


def test_a_trial_count_that_does_not_match_the_records_is_refused(sga_doc):
    doc = json.loads(json.dumps(sga_doc))
    doc["params"]["sga"]["trials"] = 5
    refused(doc, r"trials holds 2 trial records, but params\.sga\.trials = 5")


def test_steps_that_do_not_match_the_record_steps_are_refused(sga_doc):
    doc = json.loads(json.dumps(sga_doc))
    doc["params"]["sga"]["steps"] = 100000
    refused(doc, r"record_steps .* are not the record steps of params\.sga \(steps = 100000")


def test_an_edited_summary_is_refused_naming_its_path(sga_doc):
    doc = json.loads(json.dumps(sga_doc))
    true_mean = doc["summary"]["abs_rho_final"]["mean"]
    doc["summary"]["abs_rho_final"]["mean"] = 0.123456
    refused(doc, r"summary\.abs_rho_final\.mean = 0\.123456 is not what the trials' records give \(" +
            repr(true_mean).replace(".", r"\."))
    doc = json.loads(json.dumps(sga_doc))
    doc["rho_finals"][1] = 0.5
    refused(doc, r"rho_finals\[1\] = 0\.5 is not trials\[1\]\.rho_final")
    doc = json.loads(json.dumps(sga_doc))
    doc["trials"][0]["trial"] = 7
    refused(doc, r"trials\[0\] is trial 7 of seed 3, not trial 0")
    # The untouched document still loads, with its own numbers.
    assert rhoflow.from_json(json.dumps(sga_doc)).summary.abs_rho_final.mean == true_mean


def test_field_points_must_be_those_of_its_rho():
    doc = json.loads(rhoflow.field(rhoflow.Model(d=10, L=50, R=5), [0.0, 0.5]).to_json())
    doc["params"]["rho"] = [0.0, 0.25]
    refused(doc, r"points\[1\]\.rho = 0\.5 is not params\.rho\[1\] = 0\.25")
    doc["params"]["rho"] = [0.0]
    refused(doc, r"points holds 2 points for 1 values of params\.rho")


def test_deep_nesting_is_refused_naming_the_limit(tmp_path):
    deep = "[" * 100000 + "]" * 100000
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        rhoflow.from_json(deep)
    (tmp_path / "deep.json").write_text('{"a": ' + "[" * 65 + "]" * 65 + "}")
    with pytest.raises(ValueError, match=r"deep\.json is not a rhoflow document: at line 1, column 70: .*64 levels"):
        rhoflow.load(tmp_path / "deep.json")
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(ValueError, match="nested deeper than 64 levels"):
        rhoflow.load(run)


# ------------------------------------------------------------------------------ H14: messages

def test_json_errors_are_in_rhoflows_words_with_the_position(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"command": "sga",\n "params": }')
    with pytest.raises(ValueError) as e:
        rhoflow.load(bad)
    assert "[json.exception" not in str(e.value)
    assert f"{bad} is not valid JSON: at line 2, column" in str(e.value)
    with pytest.raises(ValueError) as e:
        rhoflow.from_json('{"command": "sga", "params": 5}')
    assert "[json.exception" not in str(e.value) and "the document is not a rhoflow result document" in str(e.value)
