# Quick start: `make grade` grades the bundled example class; `make test` runs the test suite.
# Both create the virtual environment they need.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SUBMISSIONS ?= exercises/vgg_classifier/examples
OUT ?= reports
EXERCISE ?= vgg_classifier
GRADE_FLAGS ?=
# `make grade-assignment`: the bundled class of assignment fc-layers (exercises/course.toml), four exercises per notebook
ASSIGNMENT ?= fc-layers
ASSIGNMENT_SUBMISSIONS ?= exercises/course_examples/$(ASSIGNMENT)
ASSIGNMENT_OUT ?= reports-$(ASSIGNMENT)

.PHONY: install grade grade-assignment test bench bench-peers notebooks wheel clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m compileall -q -x '/(course_)?examples/' grader exercises solutions >/dev/null  # the templates never write bytecode (-B); the example classes are submissions, not code to cache
	touch $(STAMP)

grade: $(STAMP)
	$(BIN)/grader grade $(SUBMISSIONS) --exercise $(EXERCISE) --out $(OUT) $(GRADE_FLAGS)
	@echo "Also in $(OUT): gradebook.csv, junit.xml; each student's reports: $(OUT)/students/<id>/"

grade-assignment: $(STAMP)
	$(BIN)/grader grade $(ASSIGNMENT_SUBMISSIONS) --assignment $(ASSIGNMENT) --out $(ASSIGNMENT_OUT) $(GRADE_FLAGS)
	@echo "Also in $(ASSIGNMENT_OUT): gradebook.csv (a column per exercise); each student's reports: $(ASSIGNMENT_OUT)/students/<id>/"

test: $(STAMP)
	$(BIN)/python -m pytest -q

notebooks: $(STAMP)
	$(BIN)/grader notebook --exercise $(EXERCISE) --out notebooks
	$(BIN)/grader notebook --assignment $(ASSIGNMENT) --out notebooks

bench: $(STAMP)
	$(BIN)/python bench/bench.py $(BENCH_FLAGS)
	$(BIN)/python bench/bench_similarity.py

# The wheel students install (dist/): built from what the checkout holds now (setuptools' leftovers in build/ would
# ship a file deleted since), and refused if it holds the course's solutions
wheel: $(STAMP)
	rm -rf build/lib build/bdist.* *.egg-info dist/grader-*.whl
	$(BIN)/python -m pip wheel . --no-deps --no-build-isolation --quiet -w dist
	$(BIN)/python -c "import sys, zipfile, glob; names = [n for w in glob.glob('dist/grader-*.whl') for n in zipfile.ZipFile(w).namelist()]; bad = [n for n in names if n.startswith('solutions/') or '/solutions/' in n]; sys.exit('the wheel holds solutions: ' + ', '.join(bad)) if bad else print('dist/: ' + ', '.join(glob.glob('dist/grader-*.whl')))"

# nbgrader (pinned, in its own venv under build/peers) and the grader on the same notebooks, timed in one run
bench-peers: $(STAMP)
	$(BIN)/python bench/peers.py $(PEERS_FLAGS)

clean:
	rm -rf $(VENV) $(OUT) $(ASSIGNMENT_OUT) .pytest_cache build dist *.egg-info
