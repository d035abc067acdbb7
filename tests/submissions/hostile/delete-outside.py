"""Deletes and renames files outside its scratch space (the canary folder)."""
import os
import shutil

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    folder = INFO.get("canary", "/tmp/grader-canary")
    done = []
    for step in (lambda: os.rename(os.path.join(folder, "keep.txt"), os.path.join(folder, "moved.txt")),
                 lambda: os.remove(os.path.join(folder, "keep.txt")),
                 lambda: shutil.rmtree(folder)):
        try:
            step()
            done.append("ok")
        except OSError:
            pass
    raise RuntimeError(f"LEAK deleted {done}" if done else "contained")
