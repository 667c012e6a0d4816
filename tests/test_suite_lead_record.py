"""The suite against SDPA cuDNN with the paired timer's lead (results/2026-12-02_h200_suite_lead): the README's table
read back from the call's own record."""
import gzip
import json
from pathlib import Path

REC = Path(__file__).resolve().parents[1] / "results" / "2026-12-02_h200_suite_lead"


def _rows():
    recs = json.loads(gzip.open(REC / "call1" / "best" / "best.json.gz").read())
    return {r["shape"]: (r["best"], r["confirm"]["summary"]) for r in recs}


def test_each_confirmed_shape_as_the_readme_states_it():
    readme = (REC / "README.md").read_text()
    rows = _rows()
    assert len(rows) == 10
    above = 0
    for shape, (best, s) in rows.items():
        c = s[f"cudnn:{best}"]
        assert s[f"check:{best}"] == "pass" and c["recheck"]
        assert f"{c['margin']:.3f}" in readme and best in readme, shape
        above += c["margin"] >= 1.0
    assert above == 7
    assert "7 of the 10 confirmed shapes" in readme


def test_the_lead_made_the_halves_agree_on_nine_of_ten():
    agree = [abs(s[f"cudnn:{b}"]["ab"] - s[f"cudnn:{b}"]["ba"]) <= 0.016 for b, s in _rows().values()]
    assert sum(agree) == 9
