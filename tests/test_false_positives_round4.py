"""Correct code written to look like what the VGG head's diagnosis learned to read in round thirteen keeps full
marks, no finding and no note.

Round thirteen (commit 0e989f2) taught ``exercises/vgg_classifier/`` to set aside answers a cache repeated and
diagnose the calls it computed (``kept.py``), to fit the graded cases alone when every square probe fails
(``gradedonly.py``), to name dropout's factor on both hidden layers as one mistake, to read a float32 result from the
probes, and to word a skip connection in a layer without ReLU as the plain skip. Each reading starts from something
correct code can also do: return equal answers (a cache), take another path for some sizes, write dropout or a
shortcut that is switched off, cast its result. The folder ``tests/submissions/false-positives-round4/`` (its README
lists the styles) holds 41 such files, six of them notebooks: caches keyed on every input's content (digests,
``lru_cache`` on bytes, a shape-keyed cache checked against copies of the inputs, the last call's answer reused only
for equal inputs, transposes memoised by ``id`` with the array held or finalised), identical images computed once,
dropout at rate 0 or behind a training flag that is off, skips times zero, float64 cast again at the end. The
hidden case 'batch-same-sizes' repeats 'batch''s sizes with other numbers right after it, so a content cache that
were taken for a shape cache would show there. All of them had full marks and no finding when this file was written
(also with the VGG16-scale case, graded once by hand); this guards the readings against growing into them.

The hunt found one misreading on the other side of the line: a cache keyed by the features alone (or the last
call's features) around a correct head passes every graded case, whose features are all its own, but returns
'fc2''s answer on probe 'fc3' and 'logits-ramp''s on the ramps that share their features; the readings of the
probes took those kept answers for values and named wrong-stage on FC1's ReLU, which the code computes right.
``kept.py`` now sets such repeats aside when two different earlier probes given the same features were repeated,
and names stale-result alone.
"""
from __future__ import annotations

import pytest

from conftest import SUBMISSIONS, grade_students
import exercise_helpers as helpers

FOLDER = SUBMISSIONS / "false-positives-round4"
VGG = sorted(p.stem for p in (FOLDER / "vgg_classifier").iterdir() if p.suffix in (".py", ".ipynb"))


#: a correct head behind a cache that ignores the weights: full marks, and the cache named as such, nothing else
FEATURES_KEYED = {
    "cache-keyed-on-features-bytes": """import numpy as np
_kept = {}
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    key = (features.shape, features.tobytes())
    if key not in _kept:
        x = features.reshape(features.shape[0], -1)
        _kept[key] = np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3
    return _kept[key].copy()
""",
    "last-features-kept": """import numpy as np
_last = [None, None]
def vgg_classifier(features, W1, b1, W2, b2, W3, b3):
    if _last[0] is not None and _last[0].shape == features.shape and np.array_equal(_last[0], features):
        return _last[1].copy()
    x = features.reshape(features.shape[0], -1)
    y = np.maximum(np.maximum(x @ W1 + b1, 0) @ W2 + b2, 0) @ W3 + b3
    _last[:] = [features.copy(), y.copy()]
    return y
""",
}


@pytest.fixture(scope="module")
def vgg_results(session):
    return grade_students(FOLDER / "vgg_classifier", session, VGG)


def test_the_folder_holds_the_styles_its_readme_lists():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    files = list((FOLDER / "vgg_classifier").iterdir())
    assert len(VGG) >= 30 and sum(p.suffix == ".ipynb" for p in files) >= 5
    for path in files:
        assert f"`{path.name}`" in readme, path.name


@pytest.mark.parametrize("name", VGG)
def test_a_correct_vgg_head_that_looks_like_a_round_thirteen_reading_keeps_full_marks(vgg_results, name):
    assert not helpers.clean_mark_faults(vgg_results[name]), helpers.clean_mark_faults(vgg_results[name])


def test_a_cache_keyed_by_the_features_alone_is_named_stale_result_not_a_wrong_stage(session, tmp_path):
    for name, source in FEATURES_KEYED.items():
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    results = grade_students(tmp_path, session, list(FEATURES_KEYED))
    for name, result in results.items():
        assert [d.id for d in result.diagnoses] == ["stale-result"], (name, [(d.id, d.evidence) for d in
                                                                             result.diagnoses])
        evidence = result.diagnoses[0].evidence
        assert "probe 'fc3'" in evidence and "probe 'fc2'" in evidence and "by the features alone" in evidence
        assert "the calls it did compute are right" in evidence
        assert result.score == result.max_score  # every graded case has features of its own
