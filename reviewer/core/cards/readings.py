"""Word readings of the card scoring rules (card-scoring-rules.md §1-2).

§1 equality ignores spacing and punctuation (``card_words``, ``squashed``).
§2: a model token *reads* a card word when it is exact, a misreading, a
truncation, or 2-3 card words run together (``reading_mark``); each clause
is one function (``misreading``, ``truncation``, ``short_word``,
``run_together``, and ``GtIndex.stands_for`` for "each model word stands for
one card word only"). ``WordTable`` holds the readings of one answer and
``WordTable.evidence`` what one model card shows of one card.

The card side of every letter test is fixed per ground truth, so it is built
once per ground truth (``gt_index``, cached across the runs of one item) with
the readings of every token met so far; a token new to that ground truth is
compared with all its words and groups in two C scans (rapidfuzz
``process.extract``, LCSseq). Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

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


#: §2 reading marks, best first: exact, a misreading (run-together
#: readings included), a truncation; 0 is no reading.
EXACT, MISREAD, TRUNCATED = 3, 2, 1


@dataclass(slots=True)
class Evidence:
    """What one model card shows of one ground-truth card (§2).

    ``marks[j]``: ``EXACT`` when card word j is read exactly, ``MISREAD``
    when misread or run together, ``TRUNCATED`` when only its beginning is
    read (§2 truncation: related, but the word is missing, §4), 0 when not
    read. ``readings``: the (model token, card word or words, mark) behind
    the marks.
    """

    marks: list[int]
    readings: list[tuple[str, str, int]]
    content: bool
    #: card words with a recognisable reading (§3, tie 1)
    recognised: int = field(init=False)
    #: card words read exactly (§3, tie 3)
    exact: int = field(init=False)

    def __post_init__(self) -> None:
        self.recognised = len(self.marks) - self.marks.count(0)
        self.exact = self.marks.count(EXACT)

    @property
    def share(self) -> float:
        """Recognised words / card words (§3, tie 2)."""
        return self.recognised / len(self.marks) if self.marks else 0.0

    def chars(self, words: Sequence[str]) -> int:
        """Characters of the recognised card words (§3, tie 4)."""
        return sum(len(w) for w, r in zip(words, self.marks) if r)

    def describe(self) -> str:
        """The readings, as the detail of a finding shows them: ``word``
        when exact, ``token = word(s)`` for a misreading or run-together
        token (the card words it stood for), ``token cuts word short`` for a
        truncation (§2; the word is missing, §4, so it is never listed as
        read)."""
        return ", ".join(_describe_one(t, w, mark) for t, w, mark in self.readings)


def _describe_one(token: str, words: str, mark: int) -> str:
    if mark == TRUNCATED:
        return f"{token} cuts {words} short"
    return words if token == words else f"{token} = {words}"


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


def misreading(token: str, word: str, lcs: int, cfg: tuple) -> bool:
    """§2 misreading: ``lcs`` (the longest common letter subsequence of
    ``token`` and ``word``) is at least ``misread_min_letters`` (3), at
    least ``misread_share`` (half) of the word and at least that share of
    the token. The short-word clause is separate (``short_word``)."""
    min_letters, _short, _tmin, _tshare, share, _jshare = cfg
    return lcs >= min_letters and lcs >= share * len(word) and lcs >= share * len(token)


def truncation(token: str, word: str, lcs: int, cfg: tuple) -> bool:
    """§2 truncation: ``token`` reads the beginning of ``word``: shorter
    than the word, starting with its first letter, at least
    ``truncation_min_letters`` (5) letters, and at least
    ``truncation_share`` (80 %) of them found in order in the word
    (``lcs``). A truncation relates the cards (§3) but the word it cuts
    short is missing (§4)."""
    _min, _short, trunc_min, trunc_share, _share, _jshare = cfg
    lt = len(token)
    return trunc_min <= lt < len(word) and token[0] == word[0] and lcs >= trunc_share * lt


def short_word(word: str, cfg: tuple) -> bool:
    """§2: a misreading of a word of at most ``short_word_letters`` (2)
    letters is never evidence on its own (``Re`` for Be)."""
    return len(word) <= cfg[1]


def run_together(token: str, parts: tuple[str, ...], lcs: int, cfg: tuple) -> bool:
    """§2 run together: ``token`` stands for the 2-3 consecutive card words
    ``parts`` whose spaces were dropped. The misreading test applies to the
    joined words (``lcs`` is the token's common letters with them), and
    each joined word gives at least ``joined_word_share`` (half) of its
    letters to that longest common subsequence, so ``Safe`` is not a
    reading of "be safe". (A truncation of joined words always fails the
    second test for its last word, or passes the misreading test.)"""
    joined = "".join(parts)
    if token == joined:
        return True
    if not misreading(token, joined, lcs, cfg):
        return False
    return _each_word_gives(token, parts, lcs, cfg[5])


def _each_word_gives(token: str, parts: tuple[str, ...], lcs: int, share: float) -> bool:
    """Whether some longest common subsequence of ``token`` and the joined
    ``parts`` (``lcs`` letters) takes at least ``share`` of every part's
    letters. A common subsequence matches each part against a stretch of
    the token, stretches in order, so it is enough to find a split of the
    token into consecutive stretches (one per part) whose stretch-wise
    common letters add up to ``lcs``, each at least the part's share."""
    sim = LCSseq.similarity
    if any(sim(token, p) < share * len(p) for p in parts):
        return False  # a word that shares too few letters with the whole token gives too few to any stretch
    if len(parts) == 2:
        return _two_words_give(token, parts[0], parts[1], lcs, share)
    first, rest = parts[0], parts[1:]
    need = share * len(first)
    joined_rest = "".join(rest)
    for cut in range(len(token) + 1):
        a = sim(token[:cut], first)
        if a < need:
            continue
        tail = token[cut:]
        if sim(tail, joined_rest) == lcs - a and _each_word_gives(tail, rest, lcs - a, share):
            return True
    return False


def _two_words_give(token: str, w1: str, w2: str, lcs: int, share: float) -> bool:
    """``_each_word_gives`` for two words: the common letters of the token's
    head with ``w1`` grow with the cut and those of its tail with ``w2``
    shrink, so the cuts where both reach their share form one window (found
    by bisection); some cut in it must reach ``lcs``."""
    sim = LCSseq.similarity
    n = len(token)
    need1, need2 = share * len(w1), share * len(w2)
    lo, hi = 0, n + 1  # the first cut whose head gives w1 its share
    while lo < hi:
        mid = (lo + hi) // 2
        if sim(token[:mid], w1) >= need1:
            hi = mid
        else:
            lo = mid + 1
    first = lo
    lo, hi = -1, n  # the last cut whose tail gives w2 its share
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sim(token[mid:], w2) >= need2:
            lo = mid
        else:
            hi = mid - 1
    return any(sim(token[:cut], w1) + sim(token[cut:], w2) == lcs for cut in range(first, lo + 1))


@lru_cache(maxsize=262144)
def reading_mark(token: str, parts: tuple[str, ...], cfg: tuple) -> int:
    """``EXACT``, ``MISREAD``, ``TRUNCATED`` or 0: how ``token`` reads the
    card word ``parts[0]`` (one part) or the run-together words ``parts``
    (2-3 parts) (§2). ``cfg``: ``cfg_key`` of the ScoringConfig."""
    joined = "".join(parts)
    if token == joined:
        return EXACT
    return mark_of(token, parts, LCSseq.similarity(token, joined), cfg)


def mark_of(token: str, parts: tuple[str, ...], lcs: int, cfg: tuple) -> int:
    """``reading_mark`` of ``token`` and the card words ``parts`` given
    ``lcs``, the length of the token's longest common letter subsequence
    with the joined words (§2): one clause decides each mark
    (``misreading``, ``truncation``, ``short_word``, ``run_together``)."""
    if len(parts) > 1:
        if token == "".join(parts):
            return EXACT
        return MISREAD if run_together(token, parts, lcs, cfg) else 0
    word = parts[0]
    if token == word:
        return EXACT
    if short_word(word, cfg):
        return 0
    if misreading(token, word, lcs, cfg):
        return MISREAD
    if truncation(token, word, lcs, cfg):
        return TRUNCATED
    return 0


@lru_cache(maxsize=262144)
def _joined_mark(token: str, parts: tuple[str, ...], lcs: int, cfg: tuple) -> int:
    """``mark_of`` for 2-3 run-together words, cached across ground truths
    (the same words run together on many photos of one card set)."""
    return mark_of(token, parts, lcs, cfg)


def cfg_key(config: ScoringConfig) -> tuple:
    """The §2 letter thresholds of ``config`` as ``reading_mark``'s ``cfg``:
    (misread_min_letters, short_word_letters, truncation_min_letters,
    truncation_share, misread_share, joined_word_share)."""
    return (
        config.misread_min_letters,
        config.short_word_letters,
        config.truncation_min_letters,
        config.truncation_share,
        config.misread_share,
        config.joined_word_share,
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
