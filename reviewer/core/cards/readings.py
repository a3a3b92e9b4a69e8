"""Word readings of the card scoring rules (card-scoring-rules.md §1-2).

§1 equality ignores spacing and punctuation (``card_words``, ``squashed``).
§2: a model token *reads* a card word when it is exact, a misreading, a
truncation, or 2-3 card words run together (``reading_mark``); ``WordTable``
holds the readings of one answer and ``WordTable.evidence`` what one model
card shows of one card.

The card side of every letter test is fixed per ground truth, so it is built
once per ground truth (``gt_index``, cached across the runs of one item) with
the readings of every token met so far; a token new to that ground truth is
compared with all its words and groups in one C scan (rapidfuzz
``process.extract``, LCSseq). Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Sequence

from rapidfuzz import process
from rapidfuzz.distance import LCSseq

from reviewer.core.models import ScoringConfig
from reviewer.core.text import normalize


@lru_cache(maxsize=65536)
def card_words(text: str) -> tuple[str, ...]:
    """The words of a card text after §1 normalisation (NFKC, case folded,
    punctuation dropped), in reading order. ``"L-lome Safe!"`` ->
    ``("l", "lome", "safe")``."""
    return tuple(normalize(text).split())


def squashed(text: str) -> str:
    """§1 equality key: the normalised text without any whitespace, so that
    ``"To die athome"`` and ``"To die at home"`` are equal."""
    return "".join(card_words(text))


@dataclass(slots=True)
class Evidence:
    """What one model card shows of one ground-truth card (§2).

    ``marks[j]``: 2 when card word j is read exactly, 1 when recognisably
    misread, truncated or run together, 0 when not read. ``readings``: the
    (model token, card word or words) pairs behind the marks.
    """

    marks: list[int]
    readings: list[tuple[str, str]]
    content: bool
    #: card words with a recognisable reading (§3, tie 1)
    recognised: int = field(init=False)
    #: card words read exactly (§3, tie 3)
    exact: int = field(init=False)

    def __post_init__(self) -> None:
        self.recognised = len(self.marks) - self.marks.count(0)
        self.exact = self.marks.count(2)

    @property
    def share(self) -> float:
        """Recognised words / card words (§3, tie 2)."""
        return self.recognised / len(self.marks) if self.marks else 0.0

    def chars(self, words: Sequence[str]) -> int:
        """Characters of the recognised card words (§3, tie 4)."""
        return sum(len(w) for w, r in zip(words, self.marks) if r)

    def describe(self) -> str:
        """The readings as ``token=word`` (``word`` alone when exact)."""
        return ", ".join(w if t == w else f"{t}={w}" for t, w in self.readings)


@lru_cache(maxsize=4096)
def card_groups(words: tuple[str, ...], kmax: int, stop: frozenset[str]) -> tuple:
    """Every word and run-together group of 2..``kmax`` consecutive words of
    a card: ((group text, k, j, holds a content word), ...) (§2)."""
    out = []
    for j in range(len(words)):
        for k in range(1, kmax + 1):
            if j + k > len(words):
                break
            part = words[j : j + k]
            out.append(("".join(part), k, j, any(w not in stop for w in part)))
    return tuple(out)


@lru_cache(maxsize=262144)
def reading_mark(token: str, group: str, k: int, cfg: tuple) -> int:
    """2 when ``token`` reads ``group`` exactly, 1 when recognisably (a
    misreading or truncation of a word, k = 1; words run together, k > 1),
    else 0 (§2). ``cfg``: (misread_min_letters, short_word_letters,
    truncation_min_letters, truncation_share)."""
    if token == group:
        return 2
    return mark_of(token, group, k, LCSseq.similarity(token, group), cfg)


def mark_of(token: str, group: str, k: int, lcs: int, cfg: tuple) -> int:
    """``reading_mark`` of ``token`` and ``group`` given ``lcs``, the length
    of their longest common letter subsequence (§2): 2 exact, 1 a
    recognisable misreading, truncation or run-together reading, 0 none."""
    if token == group:
        return 2
    lt, lw = len(token), len(group)
    if k > 1:
        return 1 if abs(lt - lw) <= 1 and lcs >= lw - 1 and lw >= 4 else 0
    min_letters, short, trunc_min, trunc_share = cfg
    if lw <= short:
        return 0
    if lcs >= min_letters and 2 * lcs >= lw and 2 * lcs >= lt:
        return 1
    if lt >= trunc_min and lt < lw and token[0] == group[0] and lcs >= trunc_share * lt:
        return 1
    return 0


def cfg_key(config: ScoringConfig) -> tuple:
    """The §2 letter thresholds of ``config`` as ``reading_mark``'s ``cfg``."""
    return (
        config.misread_min_letters,
        config.short_word_letters,
        config.truncation_min_letters,
        config.truncation_share,
    )


#: a token's readings in one ground truth: ([(group index, mark, quality)] in
#: rapidfuzz ``extract`` order, best quality, the readings of best quality,
#: {(group text, k): mark} of every group it reads)
TokenReadings = tuple[list[tuple[int, int, float]], float, list[tuple[int, int, float]], dict[tuple[str, int], int]]

#: tokens whose readings a ground truth keeps before it forgets them all
_MEMO_LIMIT = 50000


class GtIndex:
    """The card side of §1-2 for one ground truth, shared by all its runs
    (``gt_index`` caches it): the groups of its cards and the readings of
    every token met so far (``readings``).

    ``groups[j]``: (group text, k) of every word and run-together group;
    ``content[(text, k)]``: the group holds a content word on some card;
    ``all_words``: every single card word; ``equal_at``: §1 key (squashed
    words) -> card indices in reading order.
    """

    def __init__(self, gt_words: tuple[tuple[str, ...], ...], kmax: int, stop: frozenset[str], cfg: tuple) -> None:
        content: dict[tuple[str, int], bool] = {}
        for words in gt_words:
            for text, k, _j, has_content in card_groups(words, kmax, stop):
                content[(text, k)] = content.get((text, k), False) or has_content
        self.cfg = cfg
        self.groups = list(content)
        self.content = content
        self.gstr = [g for g, _ in self.groups]
        self.exact_at: dict[str, list[int]] = {}
        for j, g in enumerate(self.gstr):
            self.exact_at.setdefault(g, []).append(j)
        self.all_words = frozenset(text for text, k in self.groups if k == 1)
        self.equal_at = self.equal_keys(gt_words)
        self.gt_words = gt_words
        #: the cards' words, to test whether words are a card of this ground truth
        self.cards = frozenset(gt_words)
        self._equal_evidence: dict[int, Evidence] = {}
        self._words_read: dict[str, frozenset[str]] = {}
        self._content_keys: dict[int, tuple[tuple[str, int], ...]] = {}
        self._holders: Optional[dict[tuple[str, int], tuple[int, ...]]] = None
        self.kmax, self.stop = kmax, stop
        self._by_length: dict[int, tuple[list[int], list[str]]] = {}
        # Every reading has at least ``cutoff`` common letters (so the scan of
        # read_tokens finds all of them) unless a truncation may have fewer.
        min_letters, _short, trunc_min, trunc_share = cfg
        #: ``readings`` hold every group a token reads (see ``marks_of``)
        self.complete = trunc_share * trunc_min > min(min_letters, 3) - 1
        self.readings: dict[str, TokenReadings] = {}

    def equal_evidence(self, g: int) -> Evidence:
        """The evidence of a §1 equal reading of card ``g``: every word read
        exactly. One object per card, shared by the runs of the ground truth:
        read only."""
        ev = self._equal_evidence.get(g)
        if ev is None:
            words = self.gt_words[g]
            ev = self._equal_evidence[g] = Evidence([2] * len(words), [(w, w) for w in words], True)
        return ev

    def content_keys(self, g: int) -> tuple[tuple[str, int], ...]:
        """The (group text, k) of card ``g``'s groups that hold a content
        word (§2), in ``card_groups`` order (repeats kept); cached."""
        keys = self._content_keys.get(g)
        if keys is None:
            keys = self._content_keys[g] = tuple(
                (text, k) for text, k, _j, content in card_groups(self.gt_words[g], self.kmax, self.stop) if content
            )
        return keys

    def marks_of(self, token: str) -> dict[tuple[str, int], int]:
        """{(group text, k): mark > 0} of every group of the ground truth
        that ``token`` reads (§2 without the best-reading rule), from
        ``readings`` (the token is read first if it is new). Complete, so a
        group missing from it has mark 0, when ``complete``."""
        found = self.readings.get(token)
        if found is None:
            self.read_tokens([token])
            found = self.readings[token]
        return found[3]

    def mark(self, token: str, text: str, k: int) -> int:
        """``reading_mark`` of ``token`` and the group (``text``, ``k``) of
        this ground truth, looked up in ``marks_of`` when it is complete."""
        if self.complete:
            return self.marks_of(token).get((text, k), 0)
        return reading_mark(token, text, k, self.cfg)

    def content_holders(self) -> dict[tuple[str, int], tuple[int, ...]]:
        """{(group text, k): the cards (ascending) for which the group holds
        a content word (``content_keys``)}; built once."""
        if self._holders is None:
            holders: dict[tuple[str, int], list[int]] = {}
            for g in range(len(self.gt_words)):
                for key in self.content_keys(g):
                    at = holders.setdefault(key, [])
                    if not at or at[-1] != g:
                        at.append(g)
            self._holders = {key: tuple(at) for key, at in holders.items()}
        return self._holders

    def words_read_by(self, token: str) -> frozenset[str]:
        """The single card words of the ground truth that ``token`` reads
        (``reading_mark`` > 0, §2 without the best-reading rule); cached."""
        found = self._words_read.get(token)
        if found is None:
            if len(self._words_read) > _MEMO_LIMIT:
                self._words_read.clear()
            if self.complete:
                found = frozenset(text for text, k in self.marks_of(token) if k == 1)
            else:
                cfg = self.cfg
                found = frozenset(w for w in self.all_words if reading_mark(token, w, 1, cfg))
            self._words_read[token] = found
        return found

    @staticmethod
    def equal_keys(gt_words: Sequence[tuple[str, ...]]) -> dict[str, list[int]]:
        """§1: {squashed words: indices of the cards with them, in reading
        order}; cards without words are left out."""
        where: dict[str, list[int]] = {}
        for g, w in enumerate(gt_words):
            if w:
                where.setdefault("".join(w), []).append(g)
        return where

    def _candidates(self, length: int) -> tuple[list[int], list[str]]:
        """The groups a token of ``length`` letters can read (§2): every
        single word, and the run-together groups within one letter of its
        length (``mark_of`` gives 0 to the others), as (group indices in
        order, their texts); cached per length."""
        found = self._by_length.get(length)
        if found is None:
            at = [j for j, (text, k) in enumerate(self.groups) if k == 1 or abs(len(text) - length) <= 1]
            found = self._by_length[length] = (at, [self.gstr[j] for j in at])
        return found

    def read_tokens(self, tokens: Sequence[str]) -> None:
        """Add the readings of ``tokens`` (new to this ground truth) to
        ``readings``: one C scan per token (rapidfuzz ``process.extract``
        with LCSseq and a cut-off at the misreading floor, at most 3
        letters) over the groups it can read, plus exact lookups for the
        short words under the cut-off, then ``reading_mark``'s tests on the
        common letters found. Readings are listed most common letters
        first, then in group order. Quality: common letters, +0.5 when
        exact, +0.1 x Indel similarity, the order of §2's "each model word
        stands for one card word only"."""
        if len(self.readings) > _MEMO_LIMIT:
            self.readings.clear()
        cfg = self.cfg
        cutoff = min(cfg[0], 3)
        groups, exact_at = self.groups, self.exact_at
        for t in tokens:
            lt = len(t)
            at, texts = self._candidates(lt)
            # extract lists equal scores in choice order, and ``at`` is ascending
            hits = {
                at[i]: lcs
                for _g, lcs, i in process.extract(t, texts, scorer=LCSseq.similarity, score_cutoff=cutoff, limit=None)
            }
            for j in exact_at.get(t, ()):
                hits[j] = lt
            found = []
            for j, lcs in hits.items():
                text, k = groups[j]
                mark = mark_of(t, text, k, lcs, cfg)
                if mark:
                    found.append((j, mark, lcs + (0.5 if mark == 2 else 0.0) + 0.1 * (2.0 * lcs / (lt + len(text)))))
            best = max((f[2] for f in found), default=0.0)
            self.readings[t] = (
                found,
                best,
                [f for f in found if f[2] >= best - 1e-9],
                {groups[j]: mark for j, mark, _q in found},
            )


@lru_cache(maxsize=1024)
def gt_index(gt_words: tuple[tuple[str, ...], ...], kmax: int, stop: frozenset[str], cfg: tuple) -> GtIndex:
    """The ``GtIndex`` of one ground truth (its cards' words), cached across
    its runs."""
    return GtIndex(gt_words, kmax, stop, cfg)


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


@lru_cache(maxsize=65536)
def content_groups(words: tuple[str, ...], kmax: int, stop: frozenset[str]) -> frozenset:
    """The (group text, k) of a card's groups that hold a content word (§2)."""
    return frozenset((text, k) for text, k, _j, content in card_groups(words, kmax, stop) if content)


class WordTable:
    """Readings of one answer (§2): every model token against every
    ground-truth word and run-together group of 2-3 consecutive words (from
    the ground truth's ``GtIndex``, which reads the tokens it has not met
    yet).

    ``allowed[token]`` lists the (group, k, mark) a token may stand for: a
    reading that is both the token's best in the ground truth and the
    group's best in the answer ("each model word stands for one card word
    only"). ``reads`` answers the plain §2 test for one token and word.
    """

    def __init__(
        self,
        tokens: Sequence[str],
        gt_words: Sequence[tuple[str, ...]],
        config: ScoringConfig,
        index: Optional[GtIndex] = None,
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
        """The best-reading gates: a token's best readings (``GtIndex``)
        that are also the best reading of their group among this answer's
        tokens."""
        memo = self.index.readings
        tokens = self.tokens
        new = [t for t in tokens if t not in memo]
        if new:
            self.index.read_tokens(new)
        per_token = [(t, memo[t]) for t in tokens]
        best_w: dict[int, float] = {}
        for _t, (found, _best, _top, _marks) in per_token:
            for j, _mark, quality in found:
                if quality > best_w.get(j, 0.0):
                    best_w[j] = quality
        groups = self.groups
        allowed = self.allowed
        for t, (_found, _best, top, _marks) in per_token:
            for j, mark, quality in top:
                if quality >= best_w[j] - 1e-9:
                    text, k = groups[j]
                    if t in allowed:
                        allowed[t].append((text, k, mark))
                    else:
                        allowed[t] = [(text, k, mark)]

    def reads(self, token: str, word: str, k: int = 1) -> int:
        """2/1/0: ``token`` is an exact / recognisable / no reading of the
        card word (or run-together group of ``k`` words) ``word`` (§2,
        without the best-reading rule)."""
        if (word, k) in self.content:  # a group of the ground truth
            return self.index.mark(token, word, k)
        return reading_mark(token, word, k, self.cfg)

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
        placed: list[tuple[int, str, str]] = []
        for neg_r, _, _, i, j, k in cands:
            if i in used_t or (marks[j] if k == 1 else any(marks[j : j + k])):
                continue
            used_t.add(i)
            if k == 1:
                marks[j] = -neg_r
                placed.append((j, tokens[i], words[j]))
            else:
                marks[j : j + k] = [-neg_r] * k
                placed.append((j, tokens[i], " ".join(words[j : j + k])))
        placed.sort()
        pairs = [(t, w) for _, t, w in placed]
        stop = self.stop
        content = any(r and w not in stop for w, r in zip(words, marks))
        return Evidence(marks, pairs, content)
