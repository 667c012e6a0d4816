#!/usr/bin/env bash
# The wheels the device machine lacks (python 3.12 there, no network): the shared ones
# (pydantic, sqlite-utils, ...) plus numpy (torch warns without it) and Optuna with what it needs
# (for --strategy tpe). Run here, in the repository root, once per checkout; then name .whl in the
# device call's `carry` and install with
#   python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
set -euo pipefail
mkdir -p .whl
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo /.whl/ >> .git/info/exclude; }
cp ../shared/device/wheels/*.whl .whl/
for p in numpy optuna==5.0.0 alembic sqlalchemy colorlog tqdm pyyaml mako markupsafe greenlet; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "$p"
done
du -sh .whl
