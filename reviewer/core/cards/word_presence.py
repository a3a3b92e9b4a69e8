"""Whether a paired card's words are there (card-scoring-rules.md §4): a
matched card with wrong text is PARTIAL when a word of the card is missing
and OCR when every word is there. ``word_presence`` lists the missing words:
a word is there when the model card reads it anywhere (§2,
``read_anywhere``) or, in its place in the card's word order, holds a token
that fills it; a truncation relates the cards but leaves its word missing.
Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewer.core.cards.readings import EXACT, MISREAD, Evidence, reading_mark
from reviewer.core.cards.word_table import WordTable
from reviewer.core.models import ScoringConfig

__all__ = ["read_anywhere", "word_presence"]


def _anchors(table: WordTable, tokens: Sequence[str], words: Sequence[str], kmax: int) -> list[int | None]:
    """Order-preserving alignment of card words to model tokens that reads
    the most words (exact ones preferred): card word -> token index or None.
    A token may read up to ``kmax`` run-together words (§2). Only exact and
    misread readings of groups the token stands for (``GtIndex.stands_for``)
    anchor a word: a truncation leaves it missing (§4).
    Among equal
    alignments the dynamic programme prefers skipping a word, then skipping
    a token, then the fewest run-together words."""
    gains = _reading_gains(table, tokens, words, kmax)
    back = _alignment_moves(gains, len(words), len(tokens))
    return _trace_alignment(back, len(words), len(tokens))


def _reading_gains(
    table: WordTable, tokens: Sequence[str], words: Sequence[str], kmax: int
) -> list[list[Sequence[tuple[int, int]]]]:
    """gains[i][j]: [(k, score gain)] of token i reading words[j-k+1 .. j] (k up to ``kmax``).

    A score (words read, words read exactly) is one int: words * (len(words) + 1)
    + exact. Only exact and misread readings count, and with a complete index
    only of groups the token stands for (``GtIndex.stands_for``, §2)."""
    n = len(words)
    index, cfg = table.index, table.cfg
    # every run of a card's words is a group of its ground truth: look the marks up
    lookup = index.complete and tuple(words) in index.cards
    share = cfg[4]
    split = index.parts
    # a score (words read, words read exactly) is one int: words * base + exact
    base = n + 1
    gains: list[list[Sequence[tuple[int, int]]]] = []
    for t in tokens:
        lt = len(t)
        # the groups the token stands for (§2: one card word only), or None: plain reads
        marks = index.stands_for(t) if lookup else None
        if marks is not None and not marks:
            gains.append([()] * n)  # the token reads no group of the ground truth
            continue
        row: list[Sequence[tuple[int, int]]] = []
        for j in range(n):
            cell = []
            text = words[j]
            r = marks.get((text, 1), 0) if marks is not None else reading_mark(t, (text,), cfg)
            if r >= MISREAD:
                cell.append((1, base + (1 if r == EXACT else 0)))
            for k in range(2, kmax + 1):
                if j - k + 1 < 0:
                    break
                text = words[j - k + 1] + text
                if share * len(text) <= lt and share * lt <= len(text):
                    parts = tuple(words[j - k + 1 : j + 1])
                    if marks is None:
                        r = reading_mark(t, parts, cfg)
                    elif len(split.get((text, k), ())) == 1:
                        r = marks.get((text, k), 0)
                    else:
                        r = reading_mark(t, parts, cfg) if (text, k) in marks else 0
                    if r >= MISREAD:
                        cell.append((k, k * base + (k if r == EXACT else 0)))
            row.append(cell)
        gains.append(row)
    return gains


def _alignment_moves(gains: list[list[Sequence[tuple[int, int]]]], n: int, m: int) -> list[list[int]]:
    """The dynamic programme over ``n`` words and ``m`` tokens: back[j][i] is the best
    last move, 0 skip word j, -1 skip token i, k: token i reads k words ending at j.
    Among equal scores skipping a word wins, then skipping a token, then the fewest words."""
    score = [[0] * (m + 1) for _ in range(n + 1)]
    back = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(n + 1):
        srow, brow = score[j], back[j]
        above = score[j - 1] if j > 0 else None
        for i in range(m + 1):
            if i == 0 and j == 0:
                continue
            best, how = -1, 0
            if above is not None and above[i] > best:
                best, how = above[i], 0
            if i > 0 and srow[i - 1] > best:
                best, how = srow[i - 1], -1
            if i > 0 and j > 0:
                for k, gain in gains[i - 1][j - 1]:
                    cand = score[j - k][i - 1] + gain
                    if cand > best:
                        best, how = cand, k
            srow[i] = best
            brow[i] = how
    return back


def _trace_alignment(back: list[list[int]], n: int, m: int) -> list[int | None]:
    """Follow the moves ``back`` from the end: card word -> the token index that reads it, or None."""
    out: list[int | None] = [None] * n
    j, i = n, m
    while j > 0 or i > 0:
        how = back[j][i]
        if how == 0:
            j -= 1
        elif how < 0:
            i -= 1
        else:
            for x in range(j - how, j):
                out[x] = i - 1
            j -= how
            i -= 1
    return out


def word_presence(
    table: WordTable,
    tokens: Sequence[str],
    words: Sequence[str],
    config: ScoringConfig,
    evidence: Evidence | None = None,
) -> tuple[list[str], set[int]]:
    """§4 OCR/PARTIAL test: the card words (``words``, in card order) that
    are not there in the model card (``tokens``).

    A word is there when the model card holds a recognisable reading of it
    (§2, run-together tokens included) wherever that reading stands
    (``read_anywhere``; the words ``evidence`` reads always count), or, as
    the only test that looks at word order, when in its place in the
    card's word order the model card holds a token not used by a reading
    that is within ``length_slack`` letters of its length and is neither a
    truncation of it (a shorter beginning) nor a reading of a word of
    another card of the ground truth (``_fills``). Returns (the missing
    words in card order, a repeated word once per missing occurrence; the
    indices of the tokens that stand for a card word)."""
    if len(tokens) == len(words) and all(
        table.reads(t, (w,)) >= MISREAD or _fills(table, t, w, words, config) for t, w in zip(tokens, words)
    ):
        return [], set(range(len(tokens)))  # word for word in place: the common misread-a-word case
    present, used = read_anywhere(table, tokens, words, config, evidence)
    if all(present):
        return [], used
    anchors = _anchors(table, tokens, words, config.max_run_together)
    missing: list[str] = []
    n = len(words)
    j = 0
    while j < n:
        if anchors[j] is not None:
            j += 1
            continue
        k = j
        while k < n and anchors[k] is None:
            k += 1
        gap_words = list(range(j, k))
        prev = anchors[j - 1] if j > 0 else None
        nxt = anchors[k] if k < n else None
        if prev is not None and nxt is not None:
            slots = list(range(prev + 1, nxt))
            if len(slots) != len(gap_words):
                slots = []
        elif nxt is not None:
            slots = list(range(nxt - len(gap_words), nxt)) if nxt >= len(gap_words) else []
        elif prev is not None:
            start = prev + 1
            slots = list(range(start, start + len(gap_words))) if start + len(gap_words) <= len(tokens) else []
        else:
            slots = []  # nothing is read in order: no word has a place
        for pos, w in enumerate(gap_words):
            if present[w]:
                continue
            i = slots[pos] if slots else None
            if i is None or i in used or not _fills(table, tokens[i], words[w], words, config):
                missing.append(words[w])
            else:
                used.add(i)
        j = k
    return missing, used


def read_anywhere(
    table: WordTable,
    tokens: Sequence[str],
    words: Sequence[str],
    config: ScoringConfig,
    evidence: Evidence | None = None,
) -> tuple[list[bool], set[int]]:
    """§4 presence by reading: (``present[j]``: card word j has an exact or
    misread reading (§2, run-together tokens included) somewhere in the
    model card, the token
    indices those readings use). Word order plays no part (a reader of a
    rotated photo may give the card's lines in reverse order). The words
    ``evidence`` (the pair's §2 evidence, as its detail lists it) marks are
    there first, on the first tokens of their texts; then each remaining
    token stands for at most one word or run-together group of 2 to
    ``max_run_together`` words (§2: each model word stands for one card
    word only: a token counts for a group it stands for, ``GtIndex.stands_for``),
    exact readings first, then longer groups, then card order.
    A truncation (§2) makes the cards related, but the word it cuts short
    is missing (§4): its token stands for the word and is used, the word is
    not present."""
    n = len(words)
    present, used = _evidence_presence(tokens, n, evidence)
    if all(present):
        return present, used
    for _neg, _negk, j, i, k in _reading_candidates(table, tokens, words, config, used):
        if i in used or all(present[j : j + k]):
            continue
        used.add(i)
        present[j : j + k] = [True] * k
    return present, used


def _evidence_presence(tokens: Sequence[str], n: int, evidence: Evidence | None) -> tuple[list[bool], set[int]]:
    """The card words ``evidence`` marks as read (exact or misread) and the tokens its
    readings use (the first free token of each reading's text). Nothing without
    evidence or when its marks are not one per card word (``n``)."""
    present = [False] * n
    used: set[int] = set()
    if evidence is not None and len(evidence.marks) == n:
        free: dict[str, list[int]] = {}
        for i, t in enumerate(tokens):
            free.setdefault(t, []).append(i)
        for t, _w, _mark in evidence.readings:
            at = free.get(t)
            if at:
                used.add(at.pop(0))
        for j, mark in enumerate(evidence.marks):
            if mark >= MISREAD:
                present[j] = True
    return present, used


def _reading_candidates(
    table: WordTable, tokens: Sequence[str], words: Sequence[str], config: ScoringConfig, used: set[int]
) -> list[tuple[int, int, int, int, int]]:
    """Every reading of a group of 1 to ``max_run_together`` card words by a token not in
    ``used``, as (-mark, -k, j, i, k) sorted: exact first, then longer groups, then card
    order. A group passes the misreading share both ways (§2) and, with a complete
    index, is one the token stands for (``GtIndex.stands_for``)."""
    n = len(words)
    kmax = config.max_run_together
    share = config.misread_share
    index = table.index
    cands = []
    for i, t in enumerate(tokens):
        if i in used:
            continue
        lt = len(t)
        for j in range(n):
            group = ""
            for k in range(1, kmax + 1):
                if j + k > n:
                    break
                group += words[j + k - 1]
                if k > 1 and not (share * len(group) <= lt and share * lt <= len(group)):
                    continue  # the misreading share fails both ways (§2)
                parts = tuple(words[j : j + k])
                mark = table.reads(t, parts)
                if mark >= MISREAD and (not index.complete or (group, k) in index.stands_for(t)):
                    cands.append((-mark, -k, j, i, k))
    cands.sort()
    return cands


def _fills(table: WordTable, token: str, word: str, card: Sequence[str], config: ScoringConfig) -> bool:
    """§4 fallback: ``token`` in ``word``'s place counts as the word: within
    ``length_slack`` letters of its length, not a truncation of it (a
    shorter beginning), and no reading of any other word of the ground
    truth, on this card or another (§2: a token that reads a word stands
    for that word only). ``card``: the card's words (kept for callers)."""
    if abs(len(token) - len(word)) > config.length_slack:
        return False
    if len(token) < len(word) and word.startswith(token):
        return False  # a truncation keeps only part of the word
    return table.index.words_read_by(token) <= {word}
