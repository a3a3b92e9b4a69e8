"""Search (Ctrl+F): one text filters the items list, the runs table and the
dispute queue. A row matches when every word of the search occurs (any
case) somewhere in its text: an item's name, its ground-truth card texts and
the text of its runs; a run's item, prompt, model, the cards it read and the
cards of its findings; a dispute's subject, item, kind, dimension, judges
and detail.

Plain functions over what the Session gives; the panels call them when
``Session.searchChanged`` fires.
"""

from __future__ import annotations

from collections.abc import Iterable


def terms(text: str) -> list[str]:
    """The words of a search text, case-folded ([] for an empty search)."""
    return text.casefold().split()


def matches(words: list[str], texts: Iterable[str | None]) -> bool:
    """Every word occurs in one of ``texts`` (True without words)."""
    if not words:
        return True
    hay = "\n".join(t for t in texts if t).casefold()
    return all(w in hay for w in words)


def run_texts(run) -> list[str]:
    """What a run is found by: item, prompt, model, the cards it read, and
    the ground-truth and model cards of its findings."""
    r = run.run
    out = [r.get("item", ""), r.get("prompt", ""), r.get("model", "")]
    out += [c.text for c in run.cards]
    out += [t for f in run.findings for t in (f.gt_card, f.model_card)]
    return out


#: Characters of a text item's text the search looks at (its list name is made of them).
TEXT_CHARS = 500


def matching_items(session, text: str) -> set[int] | None:
    """Ids of the items matching ``text`` (by name, the start of a text
    item's text, ground-truth card texts or any of their runs); None when the search is empty (everything)."""
    words = terms(text)
    if not words:
        return None
    cards = session.card_texts()
    runs: dict[int, list[str]] = {}
    for line in session.run_lines():  # RunLine.text: run_texts, case-folded
        runs.setdefault(line.item_id, []).append(line.text)
    texts = session.item_texts()
    return {
        st.id
        for st in session.items()
        if matches(words, [st.name, (texts.get(st.id) or "")[:TEXT_CHARS], *cards.get(st.id, ()), *runs.get(st.id, ())])
    }


def run_matches(words: list[str], run) -> bool:
    """A run matches the search words (see ``run_texts``)."""
    return matches(words, run_texts(run))
