#!/usr/bin/env bash
# The wheels the device machine lacks (python 3.12 there, no network): the shared ones
# (pydantic, sqlite-utils, click, ...) plus numpy (torch warns without it), Optuna with what it needs
# (for --strategy tpe), and dask + distributed with theirs (for --gpus: their other
# requirements are there already: jinja2 and fsspec come with torch, packaging with pytest, click and
# pyyaml are in this list; urllib3 is no requirement of distributed 2026.8). Run here, in the
# repository root, once per checkout; then name .whl in the device call's `carry` and install with
#   python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
set -euo pipefail
mkdir -p .whl
# .gitignore has /.whl/; a worktree's .git is a file, so ask git where its exclude file is
git check-ignore -q .whl/x.whl || echo /.whl/ >> "$(git rev-parse --git-path info/exclude)"
cp ../shared/device/wheels/*.whl .whl/
for p in numpy optuna==5.0.0 alembic sqlalchemy colorlog tqdm pyyaml mako markupsafe greenlet \
    dask==2026.8.0 distributed==2026.8.0 cloudpickle==3.1.3 toolz==1.2.0 partd==1.4.2 locket==1.0.0 \
    msgpack==1.2.4 psutil==7.2.2 sortedcontainers==2.4.0 tblib==3.2.2 zict==3.0.0 tornado==6.6.1; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "$p"
done
du -sh .whl
