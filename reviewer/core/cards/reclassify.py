"""Which codes a card-reading finding may be reclassified as.

Decision reclassification-keeps-the-finding-shape: a finding's shape is what
the scorer paired. A card paired with a model card (OCR, PARTIAL, SPATIAL)
can be reclassified among the codes of a paired card: OCR, PARTIAL and, when
the answer's piles are scored, SPATIAL. A MISS has no model card, a HALLUC
no ground-truth card and FORMAT neither, so each can only be confirmed or
rejected: turning a MISS into a HALLUC would count the missed card as read
(card-scoring-rules.md §5: cards correct are cards *paired* with a correct
reading), and turning a paired card into a MISS or HALLUC would need two
findings (the card missed and the model card hallucinated), not one.
"""

from __future__ import annotations

from reviewer.core.models import CODE_ORDER, Code, Finding

#: The codes of a ground-truth card paired with a model card.
PAIRED_CODES: tuple[Code, ...] = (Code.OCR, Code.PARTIAL, Code.SPATIAL)


def _shape(finding: Finding) -> str:
    has_card = finding.gt_card_id is not None or bool(finding.gt_card)
    has_model = finding.model_index is not None or bool(finding.model_card)
    if has_card and has_model:
        return "paired"
    if has_card:
        return "card"
    if has_model:
        return "model"
    return "run"


def allowed_codes(finding: Finding, spatial_scored: bool) -> tuple[Code, ...]:
    """The T-P5 codes ``finding`` may take after review (its own code
    included), in key order (CODE_ORDER).

    ``spatial_scored``: the run's piles are scored (RunFacts.spatial_scored);
    only then is SPATIAL a code of a paired card. A finding with a ground-truth
    card and a model card: OCR, PARTIAL (and SPATIAL); a card alone: MISS; a
    model card alone: HALLUC; neither: FORMAT. A span or test-case finding
    (not a T-P5 code) has none here. Never raises.
    """
    if not isinstance(finding.code, Code):
        return ()
    shape = _shape(finding)
    if shape == "paired":
        codes = [Code.OCR, Code.SPATIAL, Code.PARTIAL] if spatial_scored else [Code.OCR, Code.PARTIAL]
        if finding.code not in codes:  # a paired finding the scorer or a person coded otherwise keeps its code
            codes.append(finding.code)
        return tuple(codes)
    return (finding.code,)


def refusal(finding: Finding, code: Code, spatial_scored: bool) -> str | None:
    """None when ``finding`` may be reclassified as ``code``; else one line
    for the status bar saying why not and what the keys can do instead."""
    if code in allowed_codes(finding, spatial_scored):
        return None
    current = (finding.final_code or finding.code).value
    shape = _shape(finding)
    if shape == "paired":
        if code == Code.SPATIAL:
            return f"{current} cannot become SPATIAL: this answer's piles are not scored"
        keys = ", ".join(f"{CODE_ORDER.index(c) + 1} {c.value}" for c in allowed_codes(finding, spatial_scored))
        return f"{current} cannot become {code.value}: the card is paired with a model card (keys {keys}; N rejects)"
    why = {
        "card": "it names no model card",
        "model": "it names no ground-truth card",
        "run": "it is about the whole answer",
    }[shape]
    return f"{current} cannot become {code.value}: {why}; Y confirms it, N rejects it"
