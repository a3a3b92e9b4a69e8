"""The readings of one answer (card-scoring-rules.md §2): ``WordTable``
holds every model token's readings of the ground truth (from its
``GtIndex``) and ``WordTable.evidence`` what one model card shows of one
card. Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from reviewer.core.cards.gt_index import GtIndex, gt_index
from reviewer.core.cards.readings import Evidence, cfg_key, reading_mark
from reviewer.core.models import ScoringConfig


@lru_cache(maxsize=65536)
def _group_positions(words: tuple[str, ...], kmax: int) -> dict[tuple[str, int], list[int]]:
    """{(group text, k): [start positions]} of a card's groups (read only)."""
    where: dict[tuple[str, int], list[int]] = {}
    for j in range(len(words)):
        for k in range(1, kmax + 1):
            if j + k > len(words):
                break
            where.setdefault(("".join(words[j : j + k]), k), []).append(j)
    return where


class WordTable:
    """Readings of one answer (§2): every model token against every
    ground-truth word and run-together group of 2-3 consecutive words (from
    the ground truth's ``GtIndex``, which reads the tokens it has not met
    yet).

    ``allowed[token]`` lists the (group, k, mark) a token may stand for
    ("each model word stands for one card word only": its best readings in
    the ground truth, ``GtIndex.stands_for``). ``reads`` answers the plain
    §2 test for one token and word.
    """

    def __init__(
        self,
        tokens: Sequence[str],
        gt_words: Sequence[tuple[str, ...]],
        config: ScoringConfig,
        index: GtIndex | None = None,
    ) -> None:
        self.config = config
        if index is None:
            index = gt_index(tuple(gt_words), config.max_run_together, frozenset(config.stop_words), cfg_key(config))
        #: the ground truth's card side (``gt_index`` of ``gt_words`` and ``config``)
        self.index = index
        self.stop, self.cfg = index.stop, index.cfg
        self.groups, self.content = self.index.groups, self.index.content
        #: every single word of the ground truth
        self.all_words = self.index.all_words
        self.tokens = list(dict.fromkeys(tokens))
        self.allowed: dict[str, list[tuple[str, int, int]]] = {}
        if self.tokens and self.groups:
            self._compute()

    def _compute(self) -> None:
        """§2 "each model word stands for one card word only": each token
        is allowed the groups it stands for in the ground truth
        (``GtIndex.stands_for``: its best readings, and the words inside a
        best run-together reading). Which other tokens of the answer read
        the same word plays no part: a misreading on one card is evidence
        even where another model card reads the word exactly."""
        memo = self.index.readings
        tokens = self.tokens
        new = [t for t in tokens if t not in memo]
        if new:
            self.index.read_tokens(new)
        groups = self.groups
        allowed = self.allowed
        complete = self.index.complete
        for t in tokens:
            _found, _best, top, _marks = memo[t]
            if not top:
                continue
            if complete:
                allowed[t] = self.index.allowed_of(t)
            else:
                allowed[t] = [(groups[j][0], groups[j][1], mark) for j, mark, _q in top]

    def reads(self, token: str, parts: tuple[str, ...]) -> int:
        """``EXACT`` / ``MISREAD`` / ``TRUNCATED`` / 0: how ``token`` reads
        the card word ``parts[0]`` or the run-together words ``parts`` (§2,
        without the best-reading rule)."""
        if ("".join(parts), len(parts)) in self.content:  # a group of the ground truth
            return self.index.mark(token, parts)
        return reading_mark(token, parts, self.cfg)

    def evidence(self, tokens: Sequence[str], words: tuple[str, ...]) -> Evidence:
        """§2 evidence of a model card (``tokens``) for a card (``words``):
        each model token stands for one card word (or 2-3 run-together
        words), exact readings first, then longer groups."""
        where = _group_positions(words, self.config.max_run_together)
        allowed = self.allowed
        cands = []
        for i, t in enumerate(tokens):
            readings = allowed.get(t)
            if readings:
                for g, k, mark in readings:
                    at = where.get((g, k))
                    if at:
                        for j in at:
                            cands.append((-mark, -k, -len(g), i, j, k))
        cands.sort()
        used_t: set[int] = set()
        marks = [0] * len(words)
        placed: list[tuple[int, str, str, int]] = []
        for neg_r, _, _, i, j, k in cands:
            if i in used_t or (marks[j] if k == 1 else any(marks[j : j + k])):
                continue
            used_t.add(i)
            if k == 1:
                marks[j] = -neg_r
                placed.append((j, tokens[i], words[j], -neg_r))
            else:
                marks[j : j + k] = [-neg_r] * k
                placed.append((j, tokens[i], " ".join(words[j : j + k]), -neg_r))
        placed.sort()
        pairs = [(t, w, mark) for _, t, w, mark in placed]
        stop = self.stop
        content = any(r and w not in stop for w, r in zip(words, marks))
        return Evidence(marks, pairs, content)
