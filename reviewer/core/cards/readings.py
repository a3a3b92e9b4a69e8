"""Word readings of the card scoring rules (card-scoring-rules.md §1-2).

§1 equality ignores spacing and punctuation (``card_words``, ``squashed``).
§2: a model token *reads* a card word when it is exact, a misreading, a
truncation, or 2-3 card words run together (``reading_mark``); each clause
is one function (``misreading``, ``truncation``, ``short_word``,
``run_together``; "each model word stands for one card word only" is
``GtIndex.stands_for`` in reviewer.core.cards.gt_index). ``Evidence`` is
what one model card shows of one card.

The card side of every letter test is built once per ground truth in
reviewer.core.cards.gt_index; the readings of one answer are
reviewer.core.cards.word_table. Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

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


@lru_cache(maxsize=65536)
def content_groups(words: tuple[str, ...], kmax: int, stop: frozenset[str]) -> frozenset:
    """The (group text, k) of a card's groups that hold a content word (§2)."""
    return frozenset((text, k) for text, k, _j, content in card_groups(words, kmax, stop) if content)


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
