"""Overwrites and adds files in a folder outside its scratch space (the canary, standing in for the output folder)."""
import os

INFO = {}


def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    folder = INFO.get("canary", "/tmp/grader-canary")
    done = []
    for action in ("overwrite", "create", "append"):
        try:
            if action == "overwrite":
                with open(os.path.join(folder, "keep.txt"), "w") as handle:
                    handle.write("forged")
            elif action == "create":
                with open(os.path.join(folder, "result.json"), "w") as handle:
                    handle.write('{"score": 100}')
            else:
                with open(os.path.join(folder, "keep.txt"), "a") as handle:
                    handle.write("more")
            done.append(action)
        except OSError:
            pass
    raise RuntimeError(f"LEAK wrote {done}" if done else "contained")
