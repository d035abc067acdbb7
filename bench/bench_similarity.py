"""Benchmark of the similarity report: what it adds to a batch of 1,000 submissions.

    .venv/bin/python bench/bench_similarity.py [--students 1000] [--end-to-end] [--keep DIR]

Builds a synthetic class of students who each wrote their own solution (a style drawn at random for the flatten,
each layer and each ReLU, helpers or not, checks, comments, names, a test cell; a fifth with a mistake), a third
of them as the exercise's notebook (starter and 10 KB self-check cell) with the solution cell filled in, and
five pairs where one student copied another's longer solution, renamed and recommented. Then
times, in this process, what ``grader grade --out`` does after grading: read and tokenise every submission,
fingerprint, index and compare (``similarity_report.prepare``), and render and write similarity.html and .csv.
With ``--end-to-end``, the class is also graded once through the CLI (a minute or two on 2 cores), then rerun
with every result up to date, with ``--similarity on`` and ``off``: the difference is what a batch pays.
"""
from __future__ import annotations

import argparse
import io
import json
import keyword
import builtins
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import batch, exercise as exercise_mod, similarity, similarity_report  # noqa: E402

SUBMISSIONS = ROOT / "tests" / "submissions"
NOTEBOOK = ROOT / "notebooks" / "vgg_classifier.ipynb"
KEEP = set(keyword.kwlist) | set(dir(builtins)) | {"np", "numpy", "vgg_classifier"}
COMMENTS = ["# my solution", "# flatten first", "# TODO tidy up", "# FC layers", "# checked on the public cases"]


def renamed(code: str, rng: random.Random) -> str:
    """``code`` with each of its own identifiers renamed (never attributes, builtins or the function's name)."""
    names: dict[str, str] = {}
    out, previous = [], ""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    for token in tokens:
        text = token.string
        if token.type == tokenize.NAME and text not in KEEP and previous != ".":
            text = names.setdefault(text, f"{text[:3]}_{rng.randrange(10_000)}")
        if token.type == tokenize.COMMENT:
            text = rng.choice(COMMENTS)
        out.append((token.type, text))
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token.string
    return tokenize.untokenize(out)


FLATTEN = ["{x} = {f}.reshape({f}.shape[0], -1)", "{x} = {f}.reshape(len({f}), -1)",
           "{x} = np.reshape({f}, ({f}.shape[0], -1))", "{x} = {f}.reshape({f}.shape[0], int(np.prod({f}.shape[1:])))",
           "{x} = np.stack([s.ravel() for s in {f}])", "{x} = np.ascontiguousarray({f}).reshape({f}.shape[0], -1)"]
AFFINE = ["{a} @ {W} + {b}", "np.dot({a}, {W}) + {b}", "np.matmul({a}, {W}) + {b}",
          "np.einsum('ij,jk->ik', {a}, {W}) + {b}", "{a}.dot({W}) + {b}", "np.tensordot({a}, {W}, axes=1) + {b}"]
RELU = ["np.maximum({h}, 0)", "np.maximum(0.0, {h})", "np.where({h} > 0, {h}, 0.0)", "np.clip({h}, 0, None)",
        "{h} * ({h} > 0)", "(({h}) + np.abs({h})) / 2"]
CHECKS = ["assert {f}.ndim == 4, 'features must be NHWC'", "if {f}.ndim != 4:\n        raise ValueError('expected NHWC')",
          "{f} = np.asarray({f}, dtype=np.float64)"]
TEST_CELL = ("rng = np.random.default_rng({seed})\nx = rng.standard_normal(({B}, 2, 2, 3))\n"
             "params = [rng.standard_normal(s) for s in [(12, {D}), ({D},), ({D}, {D}), ({D},), ({D}, 4), (4,)]]\n"
             "out = vgg_classifier(x, *params)\nprint(out.shape, out.dtype)\n")


def student_code(rng: random.Random) -> str:
    """One student's own solution: a style, names and comments drawn at random (a fifth have a mistake)."""
    name = lambda: rng.choice(["x", "h", "a", "z", "out", "act", "hidden", "y", "t", "cur", "v"]) + rng.choice(["", "1", "_", "0"])
    f = rng.choice(["features", "feats", "inp", "fmap", "X"])
    params = ["W1", "b1", "W2", "b2", "W3", "b3"]
    x = name()
    lines = []
    if rng.random() < 0.5:
        lines.append(rng.choice(CHECKS).format(f=f))
    lines.append(rng.choice(FLATTEN).format(x=x, f=f))
    helpers = rng.random() < 0.4
    defs = []
    if helpers:
        relu, dense = rng.choice(["relu", "_relu", "rectify"]), rng.choice(["dense", "fc", "affine", "linear"])
        defs.append(f"def {relu}(v):\n    return {rng.choice(RELU).format(h='v')}\n")
        defs.append(f"def {dense}(a, W, b):\n    return {rng.choice(AFFINE).format(a='a', W='W', b='b')}\n")
        rng.shuffle(defs)
    mistake = rng.random() < 0.2
    current = x
    for layer in range(3):
        W, b = params[2 * layer], params[2 * layer + 1]
        target = name()
        if helpers:
            expr = f"{dense}({current}, {W}, {b})"
            expr = f"{relu}({expr})" if layer < 2 or mistake else expr
        else:
            expr = rng.choice(AFFINE).format(a=current, W=W, b=b)
            if layer < 2 and not (mistake and layer == 1):
                lines.append(f"{target} = {expr}")
                expr = rng.choice(RELU).format(h=target)
        if rng.random() < 0.3:
            lines.append(rng.choice(COMMENTS))
        lines.append(f"{target} = {expr}")
        current = target
    lines.append(f"return {current}")
    body = "\n".join("    " + line.replace("\n", "\n    ") if "\n" in line else "    " + line for line in lines)
    head = f"def vgg_classifier({f}, W1, b1, W2, b2, W3, b3):\n"
    if rng.random() < 0.5:
        head += '    """' + rng.choice(["VGG head.", "Three FC layers.", "Forward pass."]) + '"""\n'
    code = "import numpy as np\n\n\n" + "\n\n".join(defs + [head + body + "\n"])
    if rng.random() < 0.3:
        code += "\n\n" + TEST_CELL.format(seed=rng.randrange(100), B=rng.randrange(1, 5), D=rng.randrange(3, 9))
    return code


def build_class(folder: Path, students: int, seed: int = 7) -> int:
    """``students`` submissions: each its own, a third as the exercise's notebook, and five disguised copies."""
    template = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    copies = 5
    longest = sorted(SUBMISSIONS.glob("correct/*.py"), key=lambda p: -p.stat().st_size)[:copies]
    for n in range(students - 2 * copies):
        code = student_code(rng)
        if n % 3 == 0:
            notebook = json.loads(json.dumps(template))
            for cell in notebook["cells"]:
                if cell.get("id") == "solution":
                    cell["source"] = code
            (folder / f"s{n:04d}.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
        else:
            (folder / f"s{n:04d}.py").write_text(code, encoding="utf-8")
    for n, style in enumerate(longest):  # five pairs: one student's code and a renamed, recommented copy
        text = style.read_text(encoding="utf-8", errors="replace")
        (folder / f"copy{n}-a.py").write_text(text, encoding="utf-8")
        (folder / f"copy{n}-b.py").write_text(renamed(text, rng), encoding="utf-8")
    return sum(1 for _ in folder.iterdir())


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1000)
    parser.add_argument("--end-to-end", action="store_true", help="also grade the class and time reruns")
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="grader-similarity-"))
    try:
        total = build_class(work / "class", args.students)
        exercise = exercise_mod.load("vgg_classifier")
        options = argparse.Namespace(similarity="on", similarity_against=[], similarity_common=0.1)
        started = time.perf_counter()
        plan = batch.discover([work / "class"])
        analysis, problems = similarity_report.prepare(options, plan, exercise)
        analysed = time.perf_counter() - started
        assert analysis is not None, problems
        started = time.perf_counter()
        written = similarity_report.write(analysis, work / "out", exercise.id)
        rendered = time.perf_counter() - started
        assert not written, written
        compared = len(similarity.candidates(analysis.documents, analysis.settings))
        tokens = sum(len(d.ids) for d in analysis.documents)
        rows = [
            ("submissions (a third notebooks with the 10 KB self-check cell)", f"{total}"),
            ("tokens compared", f"{tokens:,}"),
            ("pairs compared in full (of all possible)", f"{compared:,} of {total * (total - 1) // 2:,}"),
            ("pairs flagged", f"{len(analysis.pairs)}"),
            ("read, tokenise, fingerprint, index, compare (one core)", f"{analysed:.2f} s"),
            ("render and write similarity.html and .csv", f"{rendered:.2f} s"),
        ]
        if args.end_to_end:
            command = [sys.executable, "-m", "grader", "grade", str(work / "class"), "--exercise", "vgg_classifier",
                       "--no-full-scale", "-q", "--out", str(work / "graded")]
            rows.append(("grade the class once (--similarity off)", f"{timed(command + ['--similarity', 'off']):.1f} s"))
            off = min(timed(command + ["--similarity", "off"]) for _ in range(2))
            on = min(timed(command) for _ in range(2))
            rows += [("rerun, every result up to date, --similarity off", f"{off:.2f} s"),
                     ("rerun, every result up to date, --similarity on", f"{on:.2f} s"),
                     ("what the similarity report adds to a batch", f"{on - off:.2f} s")]
        width = max(len(r[0]) for r in rows)
        print(f"| {'measure':<{width}} | value |")
        print(f"|{'-' * (width + 2)}|-------|")
        for name, value in rows:
            print(f"| {name:<{width}} | {value} |")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
