"""Feedback on every long step: the progress display's bars and phases, on a
terminal and in a log, spm's log read for the training's phase, and what `brahmic-pua train`
shows from start to end."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import slow

import brahmic_pua.io.progress as progress
from brahmic_pua.io.progress import Phases, Progress, elapsed
from brahmic_pua.trainer import train_model
from brahmic_pua.trainer.spm_log import SpmLog, captured

DATA = Path(__file__).resolve().parents[2] / "brahmic_pua" / "data"
TE, HI = DATA / "te.sample.txt", DATA / "hi.sample.txt"
MODULE = [sys.executable, "-m", "brahmic_pua.cli.main"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _lines(text: str) -> list[str]:
    assert "\r" not in text
    return text.splitlines()


# -- phases of unknown length -----------------------------------------------------------------


def test_a_phase_in_a_log_is_plain_lines_at_an_interval_and_a_last_line() -> None:
    log = io.StringIO()
    with Phases(True, file=log, interval=0.05) as shown:
        shown.start("training SentencePiece (unigram)")
        shown.show("EM iteration 3, 5,000 pieces")
        time.sleep(0.5)
        shown.start("writing the model")
    lines = _lines(log.getvalue())
    assert lines[0] == "training SentencePiece (unigram)"
    interim = [line for line in lines if "EM iteration 3" in line]
    assert (
        interim
        and interim[0] == "training SentencePiece (unigram): 0 s, EM iteration 3, 5,000 pieces"
    )
    assert len(interim) < 12  # at the interval, not at every redraw
    assert re.fullmatch(r"training SentencePiece \(unigram\): done in \d\.\d s", lines[-3])
    assert lines[-2] == "writing the model"
    assert re.fullmatch(r"writing the model: done in \d\.\d s", lines[-1])


def test_a_phase_on_a_terminal_is_one_line_redrawn_then_left_done() -> None:
    screen = _Terminal()
    with Phases(True, file=screen) as shown:
        shown.start("starting Ray")
        shown.show("a detail")
        time.sleep(0.35)
    text = screen.getvalue().replace("\033[?25l", "").replace("\033[?25h", "")  # the cursor
    draws = text.split("\r")
    assert "starting Ray: 0 s, a detail" in text
    assert len(draws) >= 3 and len(draws) <= 12  # redrawn, at most ten times a second
    assert re.match(r"starting Ray: done in \d\.\d s", draws[-1]) and text.endswith("\n")
    assert text.count("\n") == 1


def test_a_signal_while_the_redrawing_thread_starts_is_that_signal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C inside the redrawing thread's start(): the KeyboardInterrupt, not close()'s
    "cannot join thread before it is started"."""

    def interrupted(self: threading.Thread) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), Phases(True, file=_Terminal()) as shown:
        monkeypatch.setattr(threading.Thread, "start", interrupted)
        shown.start("training SentencePiece (bpe)")


def test_a_phase_that_fails_leaves_no_done_line() -> None:
    screen, log = _Terminal(), io.StringIO()
    for file in (screen, log):
        with pytest.raises(ValueError), Phases(True, file=file) as shown:
            shown.start("compiling rules")
            raise ValueError("spm could not train")
    assert "done" not in screen.getvalue() and screen.getvalue().endswith("\n")
    assert log.getvalue() == "compiling rules\n"


def test_a_phase_shows_only_its_own_detail_and_nothing_when_disabled() -> None:
    log = io.StringIO()
    with Phases(True, file=log, interval=0.01) as shown:
        shown.start("compiling rules")
        shown.show("saving", "training SentencePiece (unigram)")  # a late line of spm's log
        time.sleep(0.15)
    assert "saving" not in log.getvalue()
    quiet = io.StringIO()
    with Phases(False, file=quiet) as off:
        off.start("training SentencePiece (unigram)")
        off.show("x")
    assert quiet.getvalue() == ""


def test_elapsed_time() -> None:
    assert [elapsed(s) for s in (0.4, 59.9, 125, 3725)] == [
        "0 s",
        "59 s",
        "2 min 05 s",
        "1 h 02 min",
    ]


# -- bars of a known length -------------------------------------------------------------------


def test_a_finished_bar_is_full() -> None:
    """Redraws are throttled, so the last update a bar saw can be short of its total: the bar
    that ends is drawn whole (drawn from that update it could end at 29 of 30 marks at 100%)."""
    for total, done in ((1000, 999), (30, 29), (7, 3)):
        screen = _Terminal()
        shown = Progress(True, "scanning corpus", total, file=screen)
        shown.update(done, "almost")
        shown.finish("all")
        last = screen.getvalue().rstrip("\n").split("\r")[-1]
        assert "[" + "#" * 30 + "]" in last and "100%" in last and "all" in last
    screen = _Terminal()
    unknown = Progress(True, "counting lines", None, file=screen)
    unknown.update(5, "5 lines")
    unknown.finish("9 lines")
    assert "[" + "#" * 30 + "]" in screen.getvalue().split("\r")[-1]


def test_a_bar_in_a_log_is_plain_lines_with_the_count() -> None:
    log = io.StringIO()
    shown = Progress(True, "scanning corpus", 100, file=log, interval=0.02)
    for done in range(0, 101, 25):
        shown.update(done, f"{done} MB")
        time.sleep(0.03)
    shown.finish("100 MB, 7 lines")
    lines = _lines(log.getvalue())
    assert lines[0] == "scanning corpus" and lines[-1] == "scanning corpus: 100 MB, 7 lines"
    assert "scanning corpus: 0 s, 50%, 50 MB" in lines


# -- spm's log --------------------------------------------------------------------------------

# Recorded from sentencepiece 0.2 (absl logging), te.sample.txt, and older spm's own format.
RECORDED = """\
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
I0000 00:00:1796174749.483862   29919 sentencepiece_trainer.cc:149] Starts training with :
trainer_spec {
  input: /work/main/brahmic_pua/data/te.sample.txt
  model_type: UNIGRAM
}
normalizer_spec {
  name: nmt_nfkc
}
denormalizer_spec {}

I0000 00:00:1796174749.483950   29919 trainer_interface.cc:232] Loading corpus: te.sample.txt
I0000 00:00:1796174749.484458   29919 trainer_interface.cc:446] Loaded all 1142 sentences
I0000 00:00:1796174749.484832   29919 trainer_interface.cc:466] Normalizing sentences...
I0000 00:00:1796174749.505091   29919 trainer_interface.cc:601] Alphabet size=102
I0000 00:00:1796174749.575000   29919 unigram_model_trainer.cc:514] Initialized 7284 seed pieces
I0000 00:00:1796174749.605008   29919 trainer_interface.cc:661] Tokenizing input sentences with whitespace: 1142
I0000 00:00:1796174749.722858   29919 unigram_model_trainer.cc:903] EM sub_iter=0 size=3622 obj=19.0227 num_tokens=26038 bytes/tok=9.19648
I0000 00:00:1796174749.827118   29919 unigram_model_trainer.cc:903] EM sub_iter=1 size=3342 obj=17.1544 num_tokens=26201 bytes/tok=9.13927
I0000 00:00:1796174749.900000   30001 trainer_interface.cc:446] Loaded all 1 sentences
I0000 00:00:1796174750.070964   29919 unigram_model_trainer.cc:903] EM sub_iter=0 size=2506 obj=17.3643 num_tokens=27318 bytes/tok=8.76558
E0000 00:00:1796174750.100000   29919 trainer_interface.cc:100] something went wrong
  with a second line
W0000 00:00:1796174750.200000   29919 trainer_interface.cc:120] a warning
I0000 00:00:1796174752.014712   30582 bpe_model_trainer.cc:421] Merged: freq=99 merges=100 piece=ద్య
I0000 00:00:1796174752.022177   30582 bpe_model_trainer.cc:438] Completed 195 merge steps.
I0000 00:00:1796174751.663845   29919 trainer_interface.cc:755] Saving model: u.model
bpe_model_trainer.cc(267) LOG(INFO) Added: freq=1234 size=20 all=5678 active=100 piece=▁the
Python's own line
"""  # noqa: E501 (spm's lines, verbatim)


def test_spm_log_read_for_the_display_and_its_errors_passed_on() -> None:
    shown: list[str] = []
    log = SpmLog(shown.append, thread=29919)
    passed = [line for line in RECORDED.splitlines() if not log.line(line)]
    assert passed == [
        "E0000 00:00:1796174750.100000   29919 trainer_interface.cc:100] something went wrong",
        "  with a second line",
        "Python's own line",
    ]
    assert shown == [
        "reading the lines",
        "1,142 lines read",
        "normalizing",
        "alphabet of 102 symbols",
        "7,284 seed pieces",
        "splitting the lines into words",
        "EM iteration 1, 3,622 pieces",
        "EM iteration 2, 3,342 pieces",
        "EM iteration 3, 2,506 pieces",
        "saving",
        "20 pieces",
    ]
    rows: list[str] = []
    words = SpmLog(rows.append, thread=29919, words=True)
    for line in RECORDED.splitlines():
        if "Loaded all 1142" in line or "Tokenizing" in line:
            words.line(line)
    # spm reads the corpus's words with their counts, not its lines
    assert rows == ["1,142 rows of words read", "summing equal words"]
    bpe: list[str] = []
    merges = SpmLog(bpe.append)  # any thread
    for line in RECORDED.splitlines()[-5:-2]:
        merges.line(line)
    assert bpe == ["100 merges", "195 merges", "saving"]


def test_fd_2_captured_and_restored(capfd: pytest.CaptureFixture[str]) -> None:
    shown: list[str] = []
    with captured(SpmLog(shown.append)) as capture:
        assert capture.active
        os.write(2, b"I0000 00:00:1.5   7 unigram_model_trainer.cc:903] EM sub_iter=0 size=50\n")
        os.write(2, b"not spm\n")
    os.write(2, b"after\n")
    err = capfd.readouterr().err
    assert shown == ["EM iteration 1, 50 pieces"]
    assert "not spm\n" in err and "after\n" in err and "EM" not in err
    with captured(None) as off:
        assert not off.active


def test_the_training_phase_shows_what_spm_is_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.02)
    train_model(
        input=str(TE),
        model_prefix=str(tmp_path / "te"),
        vocab_size=1000,
        num_threads=1,
        progress=True,
    )
    err = capfd.readouterr().err
    training = [line for line in _lines(err) if line.startswith("training SentencePiece")]
    assert any("EM iteration" in line for line in training), err
    assert "I0000" not in err and "trainer_interface" not in err


# -- the command line -------------------------------------------------------------------------


def _train(tmp_path: Path, name: str, *flags: str) -> str:
    (tmp_path / name).mkdir()
    done = subprocess.run(
        [
            *MODULE,
            "train",
            "--input",
            str(HI),
            "--model_prefix",
            str(tmp_path / name / "hi"),
            "--vocab_size",
            "1000",
            "--num_threads=1",
            *flags,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert done.stdout == ""
    return done.stderr


@slow  # trains in a process per setting
def test_train_in_a_log_shows_each_phase_in_order_and_nothing_with_progress_false(
    tmp_path: Path,
) -> None:
    lines = _lines(_train(tmp_path, "on"))
    starts = [line for line in lines if ":" not in line]
    # the scan's label says how the count's plan counts (unigram trains on lines)
    assert starts[0] == "scanning corpus (pure count in this process, spm on lines)"
    assert starts[1] == "training SentencePiece (unigram)"
    assert starts[-2:] == ["completing word starts", "writing the model"]
    assert set(starts[1:]) <= {
        "training SentencePiece (unigram)",
        "compiling rules",
        "compiling rules again, for the clusters spm kept",
        "completing word starts",
        "writing the model",
    }
    for label in starts[1:]:
        assert any(line.startswith(f"{label}: done in ") for line in lines), label
    assert lines[-1].startswith("wrote ")
    assert not any("I0000" in line or "LOG(" in line for line in lines)
    assert _train(tmp_path, "off", "--progress=false") == ""
    assert (tmp_path / "on/hi.model").read_bytes() == (tmp_path / "off/hi.model").read_bytes()


def test_train_leaves_spm_s_log_to_a_user_who_asks_for_it(tmp_path: Path) -> None:
    err = _train(tmp_path, "loud", "--minloglevel=0", "--model_type", "bpe")
    lines = _lines(err)
    assert "training SentencePiece (bpe)" in lines and "Saving model" in err
    assert not any(line.startswith("training SentencePiece (bpe): 0 s") for line in lines)
