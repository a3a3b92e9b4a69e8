"""What the analysts' export says about the ground-truth tables of every
annotator and the consensus (decision record "workflow-registries"): {table:
(description, {column: description})}, written as ``_tables`` and
``_columns``, and the foreign keys of those tables. docs/export-schema.md
says the same in prose."""

#: {table: (description, {column: description})}
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "gt_piles": (
        "Ground-truth piles of every annotator and the consensus.",
        {
            "item": "Item (items.item).",
            "annotator": "Annotator (consensus: the ground truth scoring uses).",
            "pile": "Pile label.",
            "region": "Pile region: JSON list of [x, y] pixels, or null.",
        },
    ),
    "gt_cards": (
        "Ground-truth cards of every annotator and the consensus.",
        {
            "item": "Item (items.item).",
            "annotator": "Annotator.",
            "pile": "Pile label.",
            "text": "Card text (empty: a card to transcribe, left out of scoring).",
            "x_min": "Box left (upright pixels; null without a box).",
            "y_min": "Box top.",
            "x_max": "Box right.",
            "y_max": "Box bottom.",
        },
    ),
}

#: {table: [(column, other table, other column)]}
FOREIGN_KEYS: dict[str, list[tuple[str, str, str]]] = {
    "gt_piles": [("item", "items", "item")],
    "gt_cards": [("item", "items", "item")],
}
