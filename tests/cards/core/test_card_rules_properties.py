"""Every clause of the card scoring rules (docs/scoring-rules.md §1-§4, §6) as
a hypothesis property. Each oracle is a small, slow, plainly correct reading
of its clause written here: a textbook LCS table for §2, every pairing tried
for §3, overlap areas in exact fractions for §6. No oracle calls the scorer;
the scorer is only run on the generated answers.

The properties run with at least 500 examples each, derandomised (a fixed
seed), so CI sees the same examples every time.

Most answers are built from ``POOL``: 4-letter words on disjoint letters, so
no pool word reads another (their common letters are 0) and a misread copy
(one letter replaced by y or z) reads only its own word. Junk tokens are one
or two letters (y, z): no reading, and too short to fill a word's place.
"""

from __future__ import annotations

import itertools
import json
import re
import unicodedata
from collections.abc import Sequence
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewer.core.cards.readings import EXACT, MISREAD, TRUNCATED, cfg_key, reading_mark
from reviewer.core.cards.scoring import score_run
from reviewer.core.models import AnswerSchema, BBox, BoxConvention, Card, Code, GroundTruth, Pile, Prompt, ScoringConfig

settings.register_profile(
    "card-rules",
    max_examples=500,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
RULES = settings(settings.get_profile("card-rules"))

CONFIG = ScoringConfig()
STOP = set(CONFIG.stop_words)
PILES = Prompt(name="piles", schema=AnswerSchema.PILES)
BOXED = Prompt(name="boxes", schema=AnswerSchema.CARDS, box_convention=BoxConvention.UNIT)
POOL = ["abcd", "efgh", "ijkl", "mnop", "qrst", "uvwx"]
JUNK = ["y", "z", "yz", "zy"]


# -- oracles -----------------------------------------------------------------------
def lcs(a: str, b: str) -> int:
    """Longest common subsequence by the textbook table."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def squash(text: str) -> str:
    """§1: NFKC, case folded, no punctuation, no whitespace."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if re.fullmatch(r"\w", c))


def words_of(text: str) -> list[str]:
    """The words of a text: runs of word characters after NFKC and case folding."""
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold())


def splits(token: str, k: int):
    """Every way to cut ``token`` into ``k`` consecutive (maybe empty) pieces."""
    for cuts in itertools.combinations_with_replacement(range(len(token) + 1), k - 1):
        bounds = (0, *cuts, len(token))
        yield [token[bounds[i] : bounds[i + 1]] for i in range(k)]


def oracle_reading(token: str, parts: Sequence[str]) -> str | None:
    """§2 as written: 'exact', 'misread', 'truncation' or None."""
    joined = "".join(parts)
    if token == joined:
        return "exact"
    common = lcs(token, joined)
    halves = common >= 3 and 2 * common >= len(joined) and 2 * common >= len(token)
    if len(parts) > 1:
        if not halves:
            return None
        for pieces in splits(token, len(parts)):
            got = [lcs(p, w) for p, w in zip(pieces, parts)]
            if sum(got) == common and all(2 * g >= len(w) for g, w in zip(got, parts)):
                return "misread"
        return None
    if len(joined) <= 2:
        return None
    if halves:
        return "misread"
    if 5 <= len(token) < len(joined) and token[0] == joined[0] and 5 * common >= 4 * len(token):
        return "truncation"
    return None


def oracle_lies_on(a: Sequence[int], b: Sequence[int]) -> bool:
    """§6: overlap area >= half the smaller box's area (exact fractions)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return False
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return Fraction(w * h) >= Fraction(smaller, 2)


# -- answers -----------------------------------------------------------------------
def truth(texts: Sequence[str], boxes: Sequence[Sequence[int]] | None = None) -> GroundTruth:
    cards = [
        Card(
            id=i + 1,
            text=t,
            pile="p",
            bbox=BBox(x_min=b[0], y_min=b[1], x_max=b[2], y_max=b[3]) if b is not None else None,
        )
        for i, (t, b) in enumerate(zip(texts, boxes or [None] * len(texts)))
    ]
    return GroundTruth(item="t", piles=[Pile(label="p")], cards=cards)


def piles_answer(cards: Sequence[str]) -> str:
    return json.dumps({"piles": [{"label": "p", "cards": list(cards)}]})


SIDE = 64  # boxes on a 64 x 64 photo: pixel / 64 is exact in binary floating point


def boxed_answer(cards: Sequence[str], boxes: Sequence[Sequence[int] | None]) -> str:
    out = []
    for text, b in zip(cards, boxes):
        entry: dict = {"text": text}
        if b is not None:
            entry["bbox"] = dict(zip(("x_min", "y_min", "x_max", "y_max"), (v / SIDE for v in b)))
        out.append(entry)
    return json.dumps({"cards": out})


def pairs_of(score) -> dict[int, int]:
    """{gt index: model index} of the paired cards."""
    return {g: o.model_index for g, o in enumerate(score.facts.outcomes) if o.model_index is not None}


def misread(word: str, at: int, letter: str) -> str:
    return word[:at] + letter + word[at + 1 :]


@st.composite
def pool_token(draw, words: Sequence[str]) -> str:
    """A pool word of ``words`` read exactly or with one letter misread, or junk."""
    kind = draw(st.integers(0, 5))
    if kind == 0 or not words:
        return draw(st.sampled_from(JUNK))
    word = draw(st.sampled_from(list(words)))
    if kind <= 3:
        return word
    return misread(word, draw(st.integers(0, 3)), draw(st.sampled_from("yz")))


@st.composite
def pool_world(draw, max_cards: int = 4, max_model: int = 4):
    """(ground-truth texts, model texts): cards of 1-3 distinct pool words
    (no word on two cards), model cards of 1-4 tokens made of those words."""
    chosen = draw(st.permutations(POOL))[: draw(st.integers(1, len(POOL)))]
    cards: list[list[str]] = []
    rest = list(chosen)
    while rest and len(cards) < max_cards:
        n = draw(st.integers(1, min(3, len(rest))))
        cards.append(rest[:n])
        rest = rest[n:]
    model = [draw(st.lists(pool_token(chosen), min_size=1, max_size=4)) for _ in range(draw(st.integers(1, max_model)))]
    return [" ".join(c) for c in cards], [" ".join(m) for m in model]


# -- §1 ------------------------------------------------------------------------------
NOISE = st.sampled_from([" ", "  ", "-", ".", "!", ",", "'", " / ", "\t", "…"])


@st.composite
def respelled(draw, text: str) -> str:
    """``text`` with its case, punctuation and whitespace changed, and now and
    then a letter in its full-width form (NFKC maps it back)."""
    out = []
    for ch in text:
        if ch == " ":
            out.append(draw(st.sampled_from(["", " ", "  ", "-", " . ", "\n"])))
            continue
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(NOISE))
        if draw(st.booleans()):
            ch = ch.upper()
        if ch.isascii() and ch.isalpha() and draw(st.integers(0, 7)) == 0:
            ch = chr(ord(ch) + 0xFEE0)  # full-width form
        out.append(ch)
    return "".join(out)


@st.composite
def equal_world(draw):
    texts = draw(
        st.lists(
            st.lists(st.sampled_from(POOL + ["to", "be", "home", "safe"]), min_size=1, max_size=4).map(" ".join),
            min_size=1,
            max_size=4,
        )
    )
    model = [draw(respelled(t)) for t in texts]
    return texts, draw(st.permutations(model))


@RULES
@given(equal_world())
def test_s1_case_punctuation_and_whitespace_never_make_an_error(world) -> None:
    texts, model = world
    assert sorted(map(squash, texts)) == sorted(map(squash, model))  # the generator only respells
    score = score_run(piles_answer(model), PILES, truth(texts))
    assert all(o.text_ok for o in score.facts.outcomes), score.findings
    assert not [f for f in score.findings if f.code in (Code.OCR, Code.PARTIAL, Code.MISS)], score.findings


# -- §2 ------------------------------------------------------------------------------
LETTERS = st.sampled_from("abcdeilnorst")
SHORT_TEXT = st.text(LETTERS, min_size=1, max_size=9)


@st.composite
def token_and_words(draw):
    """1-3 card words and a token: random letters, or the joined words (or
    their beginning) with a few letters dropped or replaced."""
    parts = draw(st.lists(SHORT_TEXT, min_size=1, max_size=3))
    if draw(st.booleans()):
        return draw(SHORT_TEXT), parts
    token = "".join(parts)[: draw(st.integers(1, 27))]
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, max(0, len(token) - 1)))
        token = token[:at] + draw(st.sampled_from(["", "x", "q"])) + token[at + 1 :]
    return token or "x", parts


@RULES
@given(token_and_words())
def test_s2_a_reading_is_exact_misread_truncated_or_nothing(case) -> None:
    """LCS >= 3 letters and half of word and token; truncations of >= 5
    letters, 80 % in order; no misread 1-2 letter word; 2-3 joined words,
    exact or misread, each giving half its letters to the common part."""
    token, parts = case
    want = oracle_reading(token, parts)
    got = reading_mark(token, tuple(parts), cfg_key(CONFIG))
    names = {EXACT: "exact", MISREAD: "misread", TRUNCATED: "truncation", 0: None}
    assert names[got] == want, (token, parts)


@st.composite
def one_token_world(draw):
    words = draw(st.lists(st.sampled_from(["to", "be", "of"]) | SHORT_TEXT, min_size=1, max_size=4))
    token = draw(SHORT_TEXT | st.just("".join(words)) | st.sampled_from(words))
    return words, token


def _readable(token: str, words: Sequence[str]) -> list[tuple[int, int, str]]:
    """(start, k, kind) of every group of 1-3 consecutive words ``token`` reads."""
    out = []
    for j in range(len(words)):
        for k in range(1, 4):
            if j + k <= len(words):
                kind = oracle_reading(token, words[j : j + k])
                if kind:
                    out.append((j, k, kind))
    return out


@RULES
@given(one_token_world())
def test_s2_related_only_through_a_content_word(world) -> None:
    """One model word against one card: paired when every group it reads
    holds a content word, never when none does (stop words and misread 1-2
    letter words are no evidence on their own)."""
    words, token = world
    card = " ".join(words)
    score = score_run(piles_answer([token]), PILES, truth([card]))
    paired = bool(pairs_of(score))
    groups = _readable(token, words)
    content = [any(w not in STOP for w in words[j : j + k]) for j, k, _ in groups]
    if squash(token) == squash(card):
        assert paired
    elif not any(content):
        assert not paired, (token, card, score.findings)
    elif all(content):
        assert paired, (token, card, score.findings)


@RULES
@given(st.text(st.sampled_from("bcdfghjklmnpqrstvwxz"), min_size=3, max_size=10), st.integers(2, 3))
def test_s2_each_model_word_stands_for_one_card_word(word, times) -> None:
    """A card that holds one word two or three times, read by that word
    once: one occurrence is read, the others are missing."""
    score = score_run(piles_answer([word]), PILES, truth([" ".join([word] * times)]))
    (f,) = score.findings
    assert f.code == Code.PARTIAL and f.detail.endswith("missing: " + ", ".join([word] * (times - 1))), f.detail


# -- §3 ------------------------------------------------------------------------------
def oracle_criteria(model: str, card: str) -> tuple | None:
    """§3 criteria of one pair in the pool world, or None when unrelated:
    (recognised words, share, exactly read words, characters)."""
    tokens, words = words_of(model), words_of(card)
    read = {w: {oracle_reading(t, [w]) for t in tokens} - {None} for w in words}
    read = {w: kinds for w, kinds in read.items() if kinds}
    if not read:
        return None
    exact = sum("exact" in kinds for kinds in read.values())
    return (len(read), Fraction(len(read), len(words)), exact, sum(len(w) for w in read))


def oracle_best(model: Sequence[str], cards: Sequence[str], allowed=lambda m, g: True) -> tuple:
    """The best totals over every one-to-one pairing of related cards, equal
    texts paired first in reading order (§1): (pairs, Σ recognised, Σ share,
    Σ exact, Σ characters, Σ reading order)."""
    fixed: dict[int, int] = {}
    for m, text in enumerate(model):
        for g, card in enumerate(cards):
            if g not in fixed.values() and squash(text) == squash(card):
                fixed[m] = g
                break
    crit = {
        (m, g): c
        for m in range(len(model))
        for g in range(len(cards))
        if m not in fixed
        and g not in fixed.values()
        and allowed(m, g)
        and (c := oracle_criteria(model[m], cards[g])) is not None
    }
    free_m = [m for m in range(len(model)) if m not in fixed]
    best = None
    for pairing in _pairings(free_m, [g for g in range(len(cards)) if g not in fixed.values()], crit):
        both = {g: m for m, g in fixed.items()} | {g: m for m, g in pairing}
        t = totals_of(model, cards, both)
        best = t if best is None or t > best else best
    assert best is not None  # the empty pairing is always tried
    return best


def _pairings(ms: list[int], gs: list[int], crit: dict):
    if not ms:
        yield []
        return
    m, rest = ms[0], ms[1:]
    yield from _pairings(rest, gs, crit)
    for g in gs:
        if (m, g) in crit:
            for tail in _pairings(rest, [x for x in gs if x != g], crit):
                yield [(m, g), *tail]


def totals_of(model: Sequence[str], cards: Sequence[str], pairs: dict[int, int]) -> tuple:
    out = [0, 0, Fraction(0), 0, 0, 0]
    for g, m in pairs.items():
        c = oracle_criteria(model[m], cards[g]) if squash(model[m]) != squash(cards[g]) else None
        if c is None:  # an equal text reads every word exactly
            n = len(words_of(cards[g]))
            c = (n, Fraction(1), n, sum(len(w) for w in words_of(cards[g])))
        out[0] += 1
        for i in range(4):
            out[i + 1] += c[i]
        out[5] += len(model) - m
    return tuple(out)


@RULES
@given(pool_world())
def test_s3_the_matching_is_maximum_and_follows_the_tie_order(world) -> None:
    cards, model = world
    score = score_run(piles_answer(model), PILES, truth(cards))
    got = pairs_of(score)
    for g, m in got.items():  # only related cards are paired
        assert squash(model[m]) == squash(cards[g]) or oracle_criteria(model[m], cards[g]), (g, m)
    free_m = set(range(len(model))) - set(got.values())
    for m in free_m:  # never left unpaired beside an unpaired card it reads
        for g in set(range(len(cards))) - set(got):
            assert oracle_criteria(model[m], cards[g]) is None, (m, g, score.findings)
    assert totals_of(model, cards, got) == oracle_best(model, cards), (got, score.findings)


# -- §4 ------------------------------------------------------------------------------
@RULES
@given(pool_world())
def test_s4_ocr_when_every_word_is_there_partial_when_one_is_missing(world) -> None:
    cards, model = world
    score = score_run(piles_answer(model), PILES, truth(cards))
    by_card: dict[str, list] = {}
    for f in score.findings:
        if f.gt_card is not None:
            by_card.setdefault(f.gt_card, []).append(f)
    for g, m in pairs_of(score).items():
        tokens = words_of(model[m])
        missing = [w for w in words_of(cards[g]) if not any(oracle_reading(t, [w]) for t in tokens)]
        found = by_card.get(cards[g], [])
        if squash(model[m]) == squash(cards[g]):
            assert not found
        elif missing:
            (f,) = found
            assert f.code == Code.PARTIAL and f.detail.endswith("missing: " + ", ".join(missing)), f.detail
        else:
            (f,) = found
            assert f.code == Code.OCR, f.detail


LONG = ["performance", "spreadsheets", "presentations", "arrangements", "accomplishment"]


@RULES
@given(st.sampled_from(LONG), st.integers(5, 9), st.integers(-1, 8), st.sampled_from(["keep", "clean", "home"]))
def test_s4_a_truncated_word_is_missing_a_misread_beginning_is_not(word, cut, slip, other) -> None:
    token = word[:cut]
    if 1 <= slip < cut:
        token = misread(token, slip, "x")
    kind = oracle_reading(token, [word])
    score = score_run(piles_answer([f"{other} {token}"]), PILES, truth([f"{other} {word}"]))
    (f,) = score.findings
    if kind == "truncation":
        assert f.code == Code.PARTIAL and f.detail.endswith(f"missing: {word}"), f.detail
        assert f"{token} cuts {word} short" in f.detail
    elif kind == "misread":
        assert f.code == Code.OCR, f.detail
    else:
        assert f.code == Code.PARTIAL, f.detail


def _read_and_missing(detail: str) -> tuple[set[str], set[str]]:
    m = re.match(r"§4 PARTIAL: reads \d+ of \d+ words \((.*)\)(?:; §6: [^;]*)?; missing: (.*)$", detail)
    assert m, detail
    read: set[str] = set()
    for part in m.group(1).split(", ") if m.group(1) != "none" else []:
        if not part.endswith(" short"):
            read.update(part.split(" = ", 1)[-1].split())
    return read, set(m.group(2).split(", "))


WORDS = ["keep", "my", "sense", "of", "humour", "to", "be", "kept", "clean", "stay", "home", "safe", "performance"]


def _mutate(word: str, how: int) -> str:
    if how == 0 or len(word) < 3:
        return word
    if how == 1:
        return misread(word, len(word) - 2, "x")
    if how == 2:
        return word[: max(1, len(word) // 2)]  # a truncation, or no reading
    return word.upper()


@st.composite
def glued_world(draw):
    card = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5, unique=True)
    cards = draw(st.lists(card, min_size=1, max_size=3))
    model = []
    for _ in range(draw(st.integers(1, 3))):
        picks = draw(st.lists(st.tuples(st.sampled_from(WORDS), st.integers(0, 3)), min_size=1, max_size=6))
        tokens = [_mutate(w, how) for w, how in picks]
        glue = draw(st.lists(st.booleans(), min_size=len(tokens), max_size=len(tokens)))
        text = tokens[0]
        for t, g in zip(tokens[1:], glue):
            text += ("" if g else " ") + t
        model.append(text)
    return [" ".join(c) for c in cards], model


@RULES
@given(glued_world())
def test_s4_no_word_is_both_read_and_missing_and_one_code_per_card(world) -> None:
    cards, model = world
    score = score_run(piles_answer(model), PILES, truth(cards))
    per_gt: dict[int, int] = {}
    per_model: dict[int, int] = {}
    for f in score.findings:
        if f.gt_card_id is not None:
            per_gt[f.gt_card_id] = per_gt.get(f.gt_card_id, 0) + 1
        if f.model_index is not None:
            per_model[f.model_index] = per_model.get(f.model_index, 0) + 1
        if f.code == Code.PARTIAL:
            read, missing = _read_and_missing(f.detail)
            assert not read & missing, f.detail
    assert all(v == 1 for v in per_gt.values()) and all(v == 1 for v in per_model.values()), score.findings


@RULES
@given(pool_world(), st.integers(0, 200), st.sampled_from(["", "}", "]]", "```", '{"cards": [{"txt": 1}]}']))
def test_s4_at_most_one_format_finding(world, cut, tail) -> None:
    cards, model = world
    text = piles_answer(model)
    output = "Here they are:\n```json\n" + text[: len(text) - cut % max(1, len(text))] + tail
    score = score_run(output, PILES, truth(cards))
    assert sum(f.code == Code.FORMAT for f in score.findings) <= 1


# -- §6 ------------------------------------------------------------------------------
def _box(draw) -> list[int]:
    x0, y0 = draw(st.integers(0, SIDE - 4)), draw(st.integers(0, SIDE - 4))
    return [x0, y0, draw(st.integers(x0 + 2, SIDE)), draw(st.integers(y0 + 2, SIDE))]


@st.composite
def boxed_world(draw):
    cards, model = draw(pool_world())
    # the cards lie in a grid of 16 x 16 cells; a card may have no box
    cells = draw(st.permutations(range(16)))
    gt_boxes = []
    for i in range(len(cards)):
        c = cells[i]
        x, y = (c % 4) * 16, (c // 4) * 16
        gt_boxes.append(None if draw(st.integers(0, 7)) == 0 else [x + 1, y + 1, x + 15, y + 15])
    boxes = []
    for _ in model:
        kind = draw(st.integers(0, 4))
        if kind == 0:
            boxes.append(None)
        elif kind <= 2 and any(b is not None for b in gt_boxes):
            b = draw(st.sampled_from([b for b in gt_boxes if b is not None]))
            dx, dy = draw(st.integers(-10, 10)), draw(st.integers(-10, 10))
            boxes.append([max(0, b[0] + dx), max(0, b[1] + dy), min(SIDE, b[2] + dx), min(SIDE, b[3] + dy)])
        else:
            boxes.append(_box(draw))
    return cards, gt_boxes, model, boxes


def oracle_boxes_count(cards, gt_boxes, model, boxes) -> bool:
    """§6 fit: at least half of the boxed model cards that read a boxed card
    lie on a card they read."""
    readers = hits = 0
    for m, text in enumerate(model):
        if boxes[m] is None:
            continue
        read = [
            g
            for g, card in enumerate(cards)
            if gt_boxes[g] is not None and (squash(text) == squash(card) or oracle_criteria(text, card))
        ]
        if read:
            readers += 1
            hits += any(oracle_lies_on(boxes[m], gt_boxes[g]) for g in read)
    return readers > 0 and 2 * hits >= readers


@RULES
@given(boxed_world())
def test_s6_a_box_off_a_card_is_no_evidence_for_it(world) -> None:
    """With boxes, a model card is paired only with a card it lies on (or
    equals, or that has no box), and the matching is the best one under that
    restriction; when the boxes do not fit, or there are none, text alone
    decides."""
    cards, gt_boxes, model, boxes = world
    score = score_run(boxed_answer(model, boxes), BOXED, truth(cards, gt_boxes), width=SIDE, height=SIDE)
    got = pairs_of(score)
    text_alone = score_run(piles_answer(model), PILES, truth(cards))
    if not oracle_boxes_count(cards, gt_boxes, model, boxes):
        assert score.facts.box_frame is None
        assert totals_of(model, cards, got) == totals_of(model, cards, pairs_of(text_alone))
        return
    equal_only = all(any(squash(t) == squash(c) for c in cards) for t in model)
    assert score.facts.box_frame == "upright" or equal_only  # §1 pairs need no position

    def allowed(m: int, g: int) -> bool:
        return boxes[m] is None or gt_boxes[g] is None or oracle_lies_on(boxes[m], gt_boxes[g])

    for g, m in got.items():
        assert squash(model[m]) == squash(cards[g]) or allowed(m, g), (m, g)
    assert totals_of(model, cards, got) == oracle_best(model, cards, allowed), (got, score.findings)
    for f in score.findings:  # the detail says where the box lies
        if f.model_index is not None and boxes[f.model_index] is not None and f.code != Code.HALLUC:
            assert "§6: its box lies on" in f.detail, f.detail


@RULES
@given(boxed_world())
def test_s6_without_boxes_text_alone_decides(world) -> None:
    cards, gt_boxes, model, boxes = world
    text_alone = pairs_of(score_run(piles_answer(model), PILES, truth(cards)))
    unboxed = boxed_answer(model, [None] * len(model))
    no_model_boxes = score_run(unboxed, BOXED, truth(cards, gt_boxes), width=SIDE, height=SIDE)
    assert pairs_of(no_model_boxes) == text_alone and no_model_boxes.facts.box_frame is None
    no_card_boxes = score_run(boxed_answer(model, boxes), BOXED, truth(cards), width=SIDE, height=SIDE)
    assert pairs_of(no_card_boxes) == text_alone and no_card_boxes.facts.box_frame is None
