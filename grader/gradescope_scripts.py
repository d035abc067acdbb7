"""The two shell scripts at the root of a Gradescope bundle (``grader gradescope``), kept apart from the Python that
writes and runs the bundle: ``setup.sh`` (once, as root, when Gradescope builds its image) and ``run_autograder``
(as root, for each submission). ``@UID@``, ``@PROBE@``, ``@ACCOUNT@`` and ``@PROBE_ACCOUNT@`` in ``SETUP_SH`` are
filled in by ``gradescope.build`` with the worker accounts' ids and names."""
from __future__ import annotations

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu): it installs what the grader
# needs, creates the unprivileged account student code runs as, and locks the bundle down.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends python3 python3-venv python3-pip bubblewrap ca-certificates >/dev/null
python3 -m venv "$HERE/.venv"
"$HERE/.venv/bin/python" -m pip install --quiet --upgrade pip
"$HERE/.venv/bin/python" -m pip install --quiet "$HERE/grader-src"
# Student code runs as uid @UID@ (and the grader's probe as @PROBE@): accounts of their own, no home, no login.
for pair in "@UID@:@ACCOUNT@" "@PROBE@:@PROBE_ACCOUNT@"; do
  uid="${pair%%:*}"; name="${pair#*:}"
  getent group "$uid" >/dev/null || groupadd --system --gid "$uid" "$name"
  id -u "$uid" >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin --uid "$uid" --gid "$uid" "$name"
done
# The bundle is root's: others may read the grader and run it, never change it; the solutions and the course
# secret are for root alone.
chown -R root:root "$HERE"
chmod -R go-w "$HERE"
chmod 700 "$HERE/solutions"
[ ! -e "$HERE/secret" ] || chmod 600 "$HERE/secret"
"$HERE/.venv/bin/grader" --version
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this as root for every submission (from /autograder/run_autograder, a copy of this file).
# It grades $AUTOGRADER_ROOT/submission/* into $AUTOGRADER_ROOT/results/results.json; AUTOGRADER_ROOT defaults to
# /autograder, so the bundle can be tried anywhere:  sudo AUTOGRADER_ROOT=/tmp/ag /tmp/ag/source/run_autograder
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -f "$HERE/bundle.json" ] || HERE="$ROOT/source"
GRADER="${GRADER_BIN:-$HERE/.venv/bin/grader}"
export PYTHONDONTWRITEBYTECODE=1  # the bundle stays as setup.sh left it
mkdir -p "$ROOT/results"
"$GRADER" gradescope-run --bundle "$HERE" --root "$ROOT"
status=$?
if [ ! -s "$ROOT/results/results.json" ]; then
  printf '{"score": 0, "output": "The autograder itself failed (exit status %s) before it could grade this submission. This is not your fault: please tell the course staff.", "stdout_visibility": "hidden"}\n' "$status" > "$ROOT/results/results.json"
fi
exit 0
"""
