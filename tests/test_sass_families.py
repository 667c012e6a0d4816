"""scripts/device_anatomy.py --families (CPU only): a --sass source page's warp-state samples by opcode family, and the
opcodes each large stall sits on, read from a page recorded on the H200 (results/2026-12-03_h200_agent_suite/call6:
the causal B8 H32/8 N1024 D128 bf16 kernel with P packed among its exponentials)."""
import subprocess
import sys
import tarfile

import pytest
from recorded import RESULTS

ROOT = RESULTS.parent
SCRIPT = ROOT / "scripts" / "device_anatomy.py"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    d = tmp_path_factory.mktemp("sass")
    with tarfile.open(RESULTS / "2026-12-03_h200_agent_suite" / "call6" / "an.tar.xz") as tf:
        member = next(m for m in tf.getmembers() if m.name.endswith("_sass.csv"))
        tf.extract(member, d, filter="data")
    return d / member.name


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_families_of_a_recorded_page(page):
    p = _run("--families", page)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "6544 instructions, 21810 samples" in out
    rows = {ln.split()[0]: ln for ln in out.splitlines()[2:10]}
    shares = [float(ln.split()[1].rstrip("%")) for ln in rows.values()]
    assert set(rows) == {"wgmma", "integer/other", "sync", "float", "branch", "mufu", "memory", "shuffle"}
    assert 99.8 <= sum(shares) <= 100.2
    # the wgmma waits (WARPGROUP.DEPBAR) hold a quarter of the samples, the exponentials' results most `wait`s
    assert rows["wgmma"].split()[1] == "29.4%" and "barrier 25.0%" in rows["wgmma"]
    assert "barrier         38.7%  WARPGROUP.DEPBAR.LE 25.0%, WARPSYNC.ALL 13.5%" in out
    assert "wait            21.5%  MUFU.EX2 5.9%" in out
    committed = (RESULTS / "2026-12-03_h200_agent_suite" / "call6" / "families.txt").read_text().splitlines()
    assert committed[0].startswith("$ python3 scripts/device_anatomy.py --families") and committed[1:] == out.splitlines()


def test_opcodes_and_families():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import device_anatomy as da
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert da.opcode("@!P0 BRA `(.L_x_3)") == "BRA" and da.opcode("  MUFU.EX2 R5, R4 ") == "MUFU.EX2"
    assert da.opcode("") == ""
    assert [da.family(o) for o in ("WARPGROUP.DEPBAR.LE", "HGMMA.64x128x16.F32.BF16", "MUFU.EX2", "SYNCS.ARRIVE",
                                    "UTMALDG.2D", "FMNMX", "IMAD.MOV")] == \
        ["wgmma", "wgmma", "mufu", "sync", "memory", "float", "integer/other"]


def test_a_file_that_is_no_source_page_is_refused(tmp_path):
    bad = tmp_path / "raw.csv"
    bad.write_text('"ID","Kernel Name"\n"0","x"\n')
    p = _run("--families", bad)
    assert p.returncode == 2 and "not ncu's source page" in p.stderr
    p = _run("--families", tmp_path / "missing.csv")
    assert p.returncode == 2 and "--families takes a source page" in p.stderr
