"""The workflow of an item: which of reviewer's five jobs it belongs to, so
the window shows it in that workflow's perspective (docs/window.md#perspectives).

An item is recorded with its workflow when it is imported, from what was
imported with it; a project from before that record is migrated by the same
rule (``infer``). Each of the five gives its part of the rule from its own
package (``registration`` in reviewer.core.cards, .spans, .cases and
.judging, imported once by reviewer.core's ``__init__``): the fact that
recognises its items and its place in the rule. The rule, first match wins:

1. a test case (query, context, expected behaviour): **case**;
2. golden spans or span runs (a span snapshot's, a run of the
   span-labeling prompt): **spans**;
3. a photo: **cards**;
4. an imported pair of outputs to compare (a pairwise benchmark's pair,
   with its verdicts as the file gave them): **pairwise**;
5. any other text: **judged output** (a text beside its output).

Content decides, verdicts never do: what a judge later scores
(``reviewer judge``: a Failter judge over photos, a pairwise judge over two
models' answers of a text) leaves an item where its content put it
(decision record perspective-per-workflow). A case comes first because its
checks are its own findings; spans before the photo because a span item's
runs are its content.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

#: The prompt of span-labelling runs: its runs are span runs.
SPAN_PROMPT = "span-labeling"

#: How the source of a verdict asked by ``reviewer judge`` begins ('judge <name>'):
#: such a verdict is a judge's later work, never content an item was imported with.
ASKED_SOURCE_PREFIX = "judge "


def asked_source(judge: str) -> str:
    """The source stored with a verdict ``reviewer judge`` asked of ``judge``."""
    return ASKED_SOURCE_PREFIX + judge


class Workflow(str, Enum):
    """The five workflows (CONTEXT.md): the value is what the project stores."""

    CARDS = "cards"
    SPANS = "spans"
    CASE = "case"
    JUDGED = "judged output"
    PAIRWISE = "pairwise"


@dataclass(frozen=True)
class RegisteredWorkflow:
    """A workflow beyond the five, registered from its own package
    (decision record "workflow-registries"): ``value`` is what the project
    stores as the item's workflow, ``fact`` the name of the fact that
    recognises its items (a keyword of ``infer``; storage says how the fact
    is read from a project), ``title`` how menus name it. It reads like a
    Workflow member: ``value`` and ``name``."""

    value: str
    fact: str
    title: str = ""

    @property
    def name(self) -> str:
        """The upper-case name, as a Workflow member's ('TOY' for 'toy')."""
        return self.value.upper().replace(" ", "_")


#: A workflow: one of the five, or a registered one.
AnyWorkflow = Workflow | RegisteredWorkflow

#: The registered workflows beyond the five, by value, in registration order.
REGISTERED: dict[str, RegisteredWorkflow] = {}


def register(workflow: RegisteredWorkflow) -> RegisteredWorkflow:
    """Register ``workflow`` (idempotent for the same one). ValueError when
    its value is one of the five's or another registered workflow's."""
    known = REGISTERED.get(workflow.value)
    if known == workflow:
        return workflow
    if known is not None or workflow.value in {w.value for w in Workflow}:
        raise ValueError(f"workflow '{workflow.value}' is registered already")
    REGISTERED[workflow.value] = workflow
    return workflow


def unregister(value: str) -> None:
    """Forget the registered workflow stored as ``value`` (nothing when none)."""
    REGISTERED.pop(value, None)


def workflow_order() -> tuple[Workflow, ...]:
    """The five in the order of the perspectives in menus and documentation,
    as their registrations place them (Recognition.order)."""
    return tuple(sorted(RECOGNITIONS, key=lambda w: RECOGNITIONS[w].order))


def all_workflows() -> tuple[AnyWorkflow, ...]:
    """The five in their order (workflow_order), then the registered ones in order."""
    return (*workflow_order(), *REGISTERED.values())


@dataclass(frozen=True)
class Recognition:
    """How one of the five recognises its items (decision record
    "workflow-registries"): ``fact`` names the keyword of ``infer`` that
    holds for them ('' for the workflow of any other item, the last rule);
    ``rank`` is its place in the rule, lower first; ``order`` its place in
    menus and documentation (workflow_order), lower first."""

    workflow: Workflow
    fact: str
    rank: int
    order: int = 1000


#: The five's parts of the rule, by workflow, as their packages register them.
RECOGNITIONS: dict[Workflow, Recognition] = {}


def recognise(recognition: Recognition) -> Recognition:
    """Register one of the five's part of ``infer``'s rule (replacing an
    earlier one of the same workflow)."""
    RECOGNITIONS[recognition.workflow] = recognition
    return recognition


def infer(*, photo: bool, case: bool = False, spans: bool = False, pair: bool = False, **facts: bool) -> AnyWorkflow:
    """The workflow of an item from what was imported with it (the rule in
    the module docstring): ``case`` it is a test case; ``spans`` it has
    golden spans or span runs; ``photo`` it is a photo; ``pair`` it holds
    an imported pair of outputs to compare. ``facts``: the registered
    workflows' facts ({fact: held}); a registered workflow whose fact holds
    comes first (its fact is its own content), in registration order, then
    the five's parts of the rule (RECOGNITIONS) in rank order. No verdict
    is a fact here. LookupError when no part of the rule matches (the five's
    registrations were not imported)."""
    for registered in REGISTERED.values():
        if facts.get(registered.fact):
            return registered
    held = {**facts, "photo": photo, "case": case, "spans": spans, "pair": pair}
    for part in sorted(RECOGNITIONS.values(), key=lambda r: r.rank):
        if not part.fact or held.get(part.fact):
            return part.workflow
    raise LookupError("no workflow recognises the item: the workflows' registrations are not imported")


def parse(value: object) -> AnyWorkflow | None:
    """The Workflow stored as ``value`` ('cards', 'spans', ...; a registered
    workflow's value gives it), or None for None or a value this version
    does not know (a newer reviewer's)."""
    try:
        return Workflow(value) if value is not None else None
    except ValueError:
        return REGISTERED.get(value) if isinstance(value, str) else None


def first_words(text: str | None, fallback: str, words: int = 8, chars: int = 60) -> str:
    """How a text item is named in lists: the first ``words`` words of its
    ``text`` on one line, at most ``chars`` characters (an ellipsis when
    cut), Markdown markers ('#', '>', '-', '*') left out; ``fallback`` (its
    id) when the text has no words."""
    tokens = [t for t in (text or "").split() if t.strip("#>*-")]
    flat = " ".join(tokens[:words])
    if not flat:
        return fallback
    whole = " ".join(tokens)
    if len(flat) > chars:
        return flat[: chars - 1].rstrip() + "…"
    return flat + ("…" if len(whole) > len(flat) else "")


def distinct_titles(items: Sequence[tuple[str, str | None]], words: int = 8, chars: int = 60) -> list[str]:
    """How text items are told apart in lists: for each (id, text), its id
    (the dataset's name and the item's number, as imported) and then the
    first words of its text *after* the longest run of leading words it
    shares with any sibling of another text ('Question: How can I…' and
    'Question: Should I…' read 'How can I…' and 'Should I…'; PandaLM's shared
    instruction gives way to each item's input). Items with the same text
    (PandaLM asks each prompt of ten pairs) show the same words and differ
    by their id; a text that is all shared opening, or has no words, shows
    its own first words, or its id alone. Titles still equal get ' (2)',
    ' (3)' in order. O(n log n): the longest shared run is found among
    neighbours in sorted order of the distinct texts."""
    tokens = [tuple(t for t in (text or "").split() if t.strip("#>*-")) for _, text in items]
    distinct = sorted(set(tokens))
    shared = dict.fromkeys(distinct, 0)
    for a, b in zip(distinct, distinct[1:]):
        n = 0
        for x, y in zip(a, b):
            if x != y:
                break
            n += 1
        shared[a], shared[b] = max(shared[a], n), max(shared[b], n)
    titles: list[str] = []
    seen: dict[str, int] = {}
    for (name, _), toks in zip(items, tokens):
        rest = first_words(" ".join(toks[shared[toks] :]), "", words, chars) or first_words(
            " ".join(toks), "", words, chars
        )
        title = f"{name} · {rest}" if rest else name
        seen[title] = seen.get(title, 0) + 1
        titles.append(title if seen[title] == 1 else f"{title} ({seen[title]})")
    return titles
