"""score_run gives the same result in every process, whatever PYTHONHASHSEED.

Python salts the hashes of strings per process, so anything that iterates a
set (or a dict filled from one) of strings can change order between
processes. The scorer must not let such an order reach its results: the
same answer scored twice must give the same facts, model cards and findings
(code, cards, model index, detail). Each seed below scores the same runs in
its own process; the serialized results must be identical.

The runs: a few hundred synthetic ones from benchmarks/bench_scoring.py (10
cards, piles and boxes, some scored against another item's ground truth),
two runs of its golden sets whose MISS detail listed the readers in a
seed-dependent order, and three answers whose HALLUC detail named one of two
equally read cards depending on the seed (card-scoring-rules.md §3-4).
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys

from tests.helpers.paths import ROOT

SEEDS = ("0", "1", "2", "3", "4", "7", "99")

#: (ground-truth texts, model card texts): a HALLUC card reading two cards
#: equally well (§3 ties on every criterion), both matched to other cards
HALLUC_TIES = [
    (
        [
            "To come to peace with dying",
            "To not be left in the dark",
            "To be free from pain",
            "To not be in hospital at the end",
            "To not be in pain at night",
        ],
        [
            "To come to peace with clying",
            "come pain with not free",
            "To not be left in the daark",
            "To be free from pain",
            "To not be in hosptal at the end",
            "To not be in pain at nigbt",
            "not pain dark",
        ],
    ),
    (
        [
            "To have a nurse I feel comfortable with",
            "To be understood by my family",
            "To be forgiven by my family",
            "To be remembered by my family",
            "To remember personal accomplishments",
        ],
        [
            "To have a nurse I feel comfortable with",
            "To be undersstood by my family",
            "To be frgiven by my family",
            "fo be remembered by my family",
            "forgiven remembered family understood",
            "To remember personal aceomplishments",
        ],
    ),
    (
        [
            "To maintain my dignity",
            "To have fresh flowers nearby",
            "To be free from pain",
            "To have my books nearby",
            "To have a familiar face nearby",
        ],
        [
            "To maintain m dignity",
            "books pain",
            "To have fresh flowers naerby",
            "To have my books neaby",
            "have nearby books fresh face",
            "To have a familiar face mearby",
        ],
    ),
]

SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import bench_scoring as B
from reviewer.core.models import AnswerSchema, Card, GroundTruth, ScoringConfig
from reviewer.core.cards.scoring import score_run

def dump(name, rs):
    print(json.dumps({
        "name": name,
        "facts": rs.facts.model_dump(mode="json", by_alias=True),
        "cards": [c.model_dump(mode="json") for c in rs.cards],
        "findings": [[f.code.value, f.gt_card, f.gt_card_id, f.model_card, f.model_index, f.detail]
                     for f in rs.findings]}, sort_keys=True, ensure_ascii=False))

W, H = B.IMAGE_SIZE
for schema in (AnswerSchema.PILES, AnswerSchema.CARDS):
    case = B.Case("x", 10, schema, B.make_pool(10, schema, n_runs=150, n_items=15, seed=B.SEED + 5))
    jobs = case.reviewer_jobs
    for k, (output, prompt, gt, config, example) in enumerate(jobs):
        dump(f"{schema.value}/{k}", score_run(output, prompt, gt, config, width=W, height=H, example=example))
        if k % 3 == 0:  # against another item's ground truth: HALLUC and MISS
            dump(f"cross/{schema.value}/{k}", score_run(output, prompt, jobs[(k + 1) % len(jobs)][2], config,
                                                        width=W, height=H, example=example))
# the golden runs seen to depend on the seed (MISS readers listed in set order)
case = B.Case("x", 60, AnswerSchema.PILES, B.make_pool(60, AnswerSchema.PILES, n_runs=459, n_items=50))
output, prompt, gt, config, example = case.reviewer_jobs[458]
dump("golden/60/piles/458", score_run(output, prompt, gt, config, width=W, height=H, example=example))
jobs = B.Case("x", 10, AnswerSchema.PILES,
              B.make_pool(10, AnswerSchema.PILES, n_runs=240, n_items=20, seed=B.SEED + 2)).reviewer_jobs
output, prompt, _gt, config, example = jobs[238]
dump("golden/cross/10/piles/238", score_run(output, prompt, jobs[239][2], config, width=W, height=H,
                                            example=example))
prompt = B.PROMPTS[AnswerSchema.PILES]
for k, (gt_texts, model) in enumerate(json.loads(sys.argv[2])):
    gt = GroundTruth(item=f"tie{k}", cards=[Card(text=t) for t in gt_texts])
    output = "```json\n" + json.dumps({"piles": [{"label": "left", "cards": model}]}) + "\n```"
    dump(f"halluc-tie/{k}", score_run(output, prompt, gt, ScoringConfig()))
"""


def _score_all(seed: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(ROOT), json.dumps(HALLUC_TIES)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_score_run_is_the_same_under_every_hash_seed():
    procs = {seed: _score_all(seed) for seed in SEEDS}
    outputs = {}
    for seed, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        outputs[seed] = out.splitlines()
    ref_seed = SEEDS[0]
    ref = outputs[ref_seed]
    assert len(ref) > 400
    problems = []
    for seed in SEEDS[1:]:
        if outputs[seed] != ref:
            names = [json.loads(a)["name"] for a, b in zip(ref, outputs[seed]) if a != b]
            diff = "\n".join(
                difflib.unified_diff(
                    ref, outputs[seed], f"PYTHONHASHSEED={ref_seed}", f"PYTHONHASHSEED={seed}", n=0, lineterm=""
                )
            )
            problems.append(f"PYTHONHASHSEED={seed} differs from {ref_seed} in {names}:\n{diff[:1500]}")
    assert not problems, "results depend on PYTHONHASHSEED:\n" + "\n".join(problems)


def test_halluc_tie_names_the_first_card_in_ground_truth_order():
    """§3 ties on every criterion: the HALLUC detail names the tied card
    that comes first in the ground truth."""
    from reviewer.core.cards.scoring import score_run
    from reviewer.core.models import AnswerSchema, Card, GroundTruth, Prompt, ScoringConfig

    prompt = Prompt(name="p", schema=AnswerSchema.PILES, text="piles")
    expected = ["To not be left in the dark", "To be understood by my family", "To have fresh flowers nearby"]
    for (gt_texts, model), first in zip(HALLUC_TIES, expected):
        gt = GroundTruth(item="tie", cards=[Card(text=t) for t in gt_texts])
        output = "```json\n" + json.dumps({"piles": [{"label": "left", "cards": model}]}) + "\n```"
        rs = score_run(output, prompt, gt, ScoringConfig())
        halluc = [f.detail for f in rs.findings if f.code.value == "HALLUC"]
        assert any(f"of '{first}'" in d for d in halluc), halluc
