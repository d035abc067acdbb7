"""SIGTERM ends a batch as Ctrl-C does (``cli.run``): a CI job that times out, a container stopped or a ``kill``
gets the class files of what finished, marked incomplete, no process of the grader left behind, and exit code 143.
Before, the grader died at once: no class file, and its cgroups and runs were left for the next start to find."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

FAST = """import numpy as np
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    x = features.reshape(features.shape[0], -1)
    h = np.maximum(x @ W1 + b1, 0)
    return np.maximum(h @ W2 + b2, 0) @ W3 + b3
"""
SLOW = "import time\ntime.sleep(60)\n" + FAST


def _tagged(pid: int) -> list[str]:
    tag = f"GRADER_PARENT={pid}".encode()
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if tag in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(entry)
        except OSError:
            pass
    return found


def test_sigterm_writes_what_finished_and_leaves_nothing(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ana", "bo", "cy", "di"):
        (folder / f"{name}.py").write_text(FAST)
    for name in ("sl1", "sl2"):
        (folder / f"{name}.py").write_text(SLOW)
    out = tmp_path / "out"
    command = [sys.executable, "-c", "from grader.cli import run; run()", "grade", str(folder), "--exercise",
               "vgg_classifier", "--no-full-scale", "--jobs", "2", "--out", str(out), "-q", "--secret", "term"]
    grader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(out.glob("students/*/result.json"))) < 4:
        time.sleep(0.1)
    time.sleep(0.5)  # the slow two are in their runs now
    grader.send_signal(signal.SIGTERM)
    _, err = grader.communicate(timeout=30)
    assert grader.returncode == 143, err[-2000:]
    assert "interrupted" in err and "marked incomplete" in err, err[-2000:]
    gradebook = (out / "gradebook.csv").read_text()
    for name in ("ana", "bo", "cy", "di", "sl1", "sl2"):
        assert name in gradebook
    assert "pending" in gradebook.lower() or "incomplete" in gradebook.lower(), gradebook
    deadline = time.monotonic() + 10
    while _tagged(grader.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _tagged(grader.pid)
