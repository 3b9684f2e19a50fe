"""A terminal that goes away (its pty closed) never blocks the app's output: Textual's writer
thread dies on the first EIO and its 30-slot queue then blocks every later frame, so the exit
and the demo's cleanup never ran (CI: cockpit alive 20 s after its tmux pane was killed)."""

from __future__ import annotations

import os
import threading

from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread

from cockpit.ui.terminal_driver import _GoneAwareFile


def _frames_after_hangup(file: object, count: int) -> threading.Thread:
    writer = WriterThread(file)  # type: ignore[arg-type]
    writer.start()

    def frames() -> None:
        for _ in range(count):
            writer.write("\x1b[H" + "x" * 200)
        writer.stop()

    producer = threading.Thread(target=frames, daemon=True)
    producer.start()
    return producer


def test_frames_written_to_a_hung_up_pty_never_block_and_the_hangup_is_said_once():
    master, slave = os.openpty()
    tty = os.fdopen(slave, "w")
    os.close(master)  # the terminal emulator went away: writes on the slave fail with EIO
    said: list[str] = []
    file = _GoneAwareFile(tty, lambda: said.append("gone"))
    producer = _frames_after_hangup(file, MAX_QUEUED_WRITES * 10)
    producer.join(timeout=10)
    assert not producer.is_alive(), "the app's frames blocked on a dead writer thread"
    assert said == ["gone"]
    assert file.gone


def test_a_live_pty_gets_every_frame_and_no_hangup():
    master, slave = os.openpty()
    tty = os.fdopen(slave, "w")
    said: list[str] = []
    received = bytearray()
    done = threading.Event()

    def read_all() -> None:
        while len(received) < 5 * 203:
            received.extend(os.read(master, 4096))
        done.set()

    threading.Thread(target=read_all, daemon=True).start()
    producer = _frames_after_hangup(_GoneAwareFile(tty, lambda: said.append("gone")), 5)
    producer.join(timeout=10)
    assert done.wait(10)
    assert said == []
    assert received.count(b"x" * 200) == 5
    os.close(master)
