"""Reads the grader's environment, command line and memory through /proc (its parent and any process)."""
import os

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    found = [f"own {k}" for k in os.environ if "SECRET" in k]
    pids = {os.getppid()}
    try:
        pids |= {int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()}
    except OSError:
        pass
    for pid in sorted(pids):
        for what in ("environ", "cmdline", "mem"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as handle:
                    data = handle.read(200) if what != "mem" else b"opened"
            except (OSError, ValueError, OverflowError):
                continue
            if data and (pid == os.getppid() or what != "cmdline"):
                found.append(f"{what} of {pid}: {data[:60]!r}")
    if found:
        raise RuntimeError("LEAK " + " | ".join(found)[:400])
    raise RuntimeError("contained")
