"""The card side of §1-2 for one ground truth (card-scoring-rules.md §2).

The card side of every letter test is fixed per ground truth, so it is built
once per ground truth (``gt_index``, cached across the runs of one item) with
the readings of every token met so far; a token new to that ground truth is
compared with all its words and groups in two C scans (rapidfuzz
``process.extract``, LCSseq), then with the clause tests of
reviewer.core.cards.readings. ``GtIndex.stands_for`` is §2's "each model
word stands for one card word only". Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import LCSseq

from reviewer.core.cards.readings import EXACT, MISREAD, Evidence, card_groups, mark_of, reading_mark


@lru_cache(maxsize=262144)
def _joined_mark(token: str, parts: tuple[str, ...], lcs: int, cfg: tuple) -> int:
    """``mark_of`` for 2-3 run-together words, cached across ground truths
    (the same words run together on many photos of one card set)."""
    return mark_of(token, parts, lcs, cfg)


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
    ``parts[(text, k)]``: the card words of a run-together group, k > 1
    (every split met, when two cards join different words to the same
    text);
    ``content[(text, k)]``: the group holds a content word on some card;
    ``all_words``: every single card word; ``equal_at``: §1 key (squashed
    words) -> card indices in reading order.
    """

    def __init__(self, gt_words: tuple[tuple[str, ...], ...], kmax: int, stop: frozenset[str], cfg: tuple) -> None:
        content: dict[tuple[str, int], bool] = {}
        parts: dict[tuple[str, int], list[tuple[str, ...]]] = {}
        for words in gt_words:
            for text, k, j, has_content in card_groups(words, kmax, stop):
                key = (text, k)
                seen = content.get(key)
                if seen is None:
                    content[key] = has_content
                    if k > 1:
                        parts[key] = [words[j : j + k]]
                    continue
                if has_content and not seen:
                    content[key] = True
                if k > 1 and words[j : j + k] not in parts[key]:
                    parts[key].append(words[j : j + k])
        self.parts = parts
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
        self._stands: dict[str, dict[tuple[str, int], int]] = {}
        self._allowed: dict[str, list[tuple[str, int, int]]] = {}
        self._content_keys: dict[int, tuple[tuple[str, int], ...]] = {}
        self._holders: dict[tuple[str, int], tuple[int, ...]] | None = None
        self.kmax, self.stop = kmax, stop
        singles = [j for j, (_text, k) in enumerate(self.groups) if k == 1]
        first: dict[str, list[int]] = {}
        for j in singles:
            first.setdefault(self.gstr[j][:1], []).append(j)
        #: single words by first letter (truncation candidates): letter -> (indices, texts)
        self._by_first = {c: (at, [self.gstr[j] for j in at]) for c, at in first.items()}
        # Every reading has at least ``cutoff`` common letters (so the scan of
        # read_tokens finds all of them) unless a truncation may have fewer.
        min_letters, _short, trunc_min, trunc_share, share, _jshare = cfg
        self.share = share
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
            ev = self._equal_evidence[g] = Evidence([EXACT] * len(words), [(w, w, EXACT) for w in words], True)
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

    def stands_for(self, token: str) -> dict[tuple[str, int], int]:
        """§2 "each model word stands for one card word only": {(group text,
        k): mark} of the groups ``token`` stands for in this ground truth:
        its best readings (ties kept), and, inside a best run-together
        reading, the words and shorter runs it also reads (so ``orstance``,
        best read as "your distance", still reads distance when another
        token reads your). Needs ``complete``; cached with ``readings``."""
        found = self._stands.get(token)
        if found is None:
            if token not in self.readings:
                self.read_tokens([token])
            _all, _best, top, marks = self.readings[token]
            found = {}
            for j, mark, _q in top:
                text, k = self.groups[j]
                found[text, k] = max(found.get((text, k), 0), mark)
                if k > 1:
                    for parts in self.parts[text, k]:
                        for a in range(k):
                            for b in range(a + 1, k + 1):
                                key = ("".join(parts[a:b]), b - a)
                                if b - a < k and marks.get(key, 0) >= MISREAD:
                                    found[key] = max(found.get(key, 0), marks[key])
            if len(self._stands) > _MEMO_LIMIT:
                self._stands.clear()
                self._allowed.clear()
            self._stands[token] = found
        return found

    def allowed_of(self, token: str) -> list[tuple[str, int, int]]:
        """``stands_for(token)`` as a list of (group text, k, mark), cached
        (a ``WordTable``'s ``allowed`` entry; read only)."""
        found = self._allowed.get(token)
        if found is None:
            found = self._allowed[token] = [(text, k, mark) for (text, k), mark in self.stands_for(token).items()]
        return found

    def mark(self, token: str, parts: tuple[str, ...]) -> int:
        """``reading_mark`` of ``token`` and the card words ``parts`` (a
        group of this ground truth), looked up in ``marks_of`` when it is
        complete and the group's text has one split."""
        key = ("".join(parts), len(parts))
        if self.complete and (len(parts) == 1 or len(self.parts.get(key, ())) == 1):
            return self.marks_of(token).get(key, 0)
        return reading_mark(token, parts, self.cfg)

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
                found = frozenset(w for w in self.all_words if reading_mark(token, (w,), cfg))
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

    def read_tokens(self, tokens: Sequence[str]) -> None:
        """Add the readings of ``tokens`` (new to this ground truth) to
        ``readings``: C scans per token (rapidfuzz ``process.extract``): one
        over every word and run-together group with the normalised LCSseq
        (common letters / the longer length) and a cut-off at
        ``misread_share``, below which ``misreading`` and ``run_together``
        fail; for a token of at least ``truncation_min_letters``, one over
        the longer words with its first letter with LCSseq and a cut-off at
        ``truncation_share`` of the token (``truncation``); plus exact
        lookups; then ``mark_of``'s tests on the common letters found. Readings are listed most common
        letters first, then in group order. Quality: common letters, +0.5
        when exact, +0.1 x Indel similarity, the order of §2's "each model
        word stands for one card word only"."""
        if len(self.readings) > _MEMO_LIMIT:
            self.readings.clear()
            self._stands.clear()
            self._allowed.clear()
        cfg = self.cfg
        cutoff = min(cfg[0], 3)
        share = self.share
        groups, exact_at, split = self.groups, self.exact_at, self.parts
        gstr = self.gstr
        extract, lcs_of, normalized = process.extract, LCSseq.similarity, LCSseq.normalized_similarity
        joined_mark = _joined_mark
        trunc_min, trunc_share = cfg[2], cfg[3]
        by_first = self._by_first
        for t in tokens:
            lt = len(t)
            marks: list[tuple[int, int, int]] = []  # (common letters, group, mark)
            seen: set[int] = set()
            # misreadings, of a word or of run-together words: common letters at least
            # the share of the longer of token and group (one scan over every group)
            for text, sim, j in extract(t, gstr, scorer=normalized, score_cutoff=share - 1e-9, limit=None):
                lcs = int(sim * max(lt, len(text)) + 0.5)
                if lcs < cutoff and text != t:
                    continue
                seen.add(j)
                k = groups[j][1]
                if k == 1:
                    mark = mark_of(t, (text,), lcs, cfg)
                else:
                    mark = max(joined_mark(t, p, lcs, cfg) for p in split[text, k])
                if mark:
                    marks.append((lcs, j, mark))
            if lt >= trunc_min:  # truncations: longer words with the token's first letter
                at, texts = by_first.get(t[0], ((), ()))
                for text, lcs, i in extract(t, texts, scorer=lcs_of, score_cutoff=trunc_share * lt - 1e-9, limit=None):
                    j = at[i]
                    if len(text) > lt and j not in seen:
                        seen.add(j)
                        mark = mark_of(t, (text,), int(lcs), cfg)
                        if mark:
                            marks.append((int(lcs), j, mark))
            for j in exact_at.get(t, ()):  # short words under the cut-off
                if j not in seen:
                    marks.append((lt, j, EXACT))
            marks.sort(key=lambda f: (-f[0], f[1]))  # most common letters first, then group order
            found = [
                (j, mark, lcs + (0.5 if mark == EXACT else 0.0) + 0.1 * (2.0 * lcs / (lt + len(groups[j][0]))))
                for lcs, j, mark in marks
            ]
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
