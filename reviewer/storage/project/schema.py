"""Schema migrations of the project database (sqlite-utils Migrations).

Add a new function to change the schema; never edit an applied one. A project
with a migration this list lacks was written by a newer reviewer.
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils.migrations import Migrations

MIGRATIONS = Migrations("reviewer")

_INITIAL = [
    """CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)""",
    """CREATE TABLE items (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL DEFAULT 'photo',
        path TEXT,
        sha256 TEXT,
        width INTEGER,
        height INTEGER,
        orientation INTEGER NOT NULL DEFAULT 1,
        text TEXT,
        added_at TEXT NOT NULL)""",
    """CREATE TABLE prompts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        text TEXT NOT NULL DEFAULT '',
        schema TEXT NOT NULL DEFAULT 'free',
        box_convention TEXT,
        schema_source TEXT NOT NULL DEFAULT 'auto')""",
    """CREATE TABLE piles (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        region TEXT,
        position INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE cards (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        pile_id INTEGER REFERENCES piles(id) ON DELETE SET NULL,
        text TEXT NOT NULL,
        x_min REAL, y_min REAL, x_max REAL, y_max REAL,
        position INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        prompt_id INTEGER NOT NULL REFERENCES prompts(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        repetition INTEGER NOT NULL DEFAULT 1,
        output TEXT NOT NULL,
        output_sha256 TEXT NOT NULL,
        timestamp TEXT,
        source TEXT,
        imported_at TEXT NOT NULL,
        UNIQUE (item_id, prompt_id, model, repetition))""",
    """CREATE TABLE run_scores (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        config_version TEXT NOT NULL,
        strict INTEGER NOT NULL DEFAULT 0,
        facts TEXT NOT NULL,
        cards TEXT NOT NULL,
        scored_at TEXT NOT NULL)""",
    """CREATE TABLE findings (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        code TEXT NOT NULL,
        final_code TEXT,
        status TEXT NOT NULL DEFAULT 'proposed',
        source TEXT NOT NULL DEFAULT 'auto',
        gt_card_id INTEGER REFERENCES cards(id) ON DELETE SET NULL,
        gt_card TEXT,
        model_index INTEGER,
        model_card TEXT,
        detail TEXT NOT NULL DEFAULT '',
        reason TEXT,
        reviewer TEXT,
        decided_at TEXT,
        config_version TEXT,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE scoring_config (
        version TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        table_name TEXT NOT NULL,
        row_id TEXT,
        before TEXT,
        after TEXT)""",
    "CREATE INDEX idx_cards_item ON cards(item_id)",
    "CREATE INDEX idx_piles_item ON piles(item_id)",
    "CREATE INDEX idx_runs_item ON runs(item_id)",
    "CREATE INDEX idx_findings_run ON findings(run_id)",
    "CREATE INDEX idx_audit_table_row ON audit(table_name, row_id)",
]


@MIGRATIONS(name="0001_initial")
def m0001_initial(db: sqlite_utils.Database) -> None:
    """Items, prompts, ground truth (piles, cards), runs, scores, findings,
    scoring configs, audit."""
    for statement in _INITIAL:
        db.execute(statement)


_JUDGING = [
    """CREATE TABLE item_references (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        source TEXT,
        UNIQUE (item_id, source))""",
    """CREATE TABLE verdicts (
        id INTEGER PRIMARY KEY,
        subject TEXT NOT NULL,
        run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
        other_run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
        judge TEXT NOT NULL,
        judge_model TEXT,
        prompt_version TEXT,
        method TEXT NOT NULL,
        scale TEXT NOT NULL,
        scores TEXT NOT NULL,
        flags TEXT NOT NULL DEFAULT '{}',
        issues_found TEXT NOT NULL DEFAULT '[]',
        rationale TEXT NOT NULL DEFAULT '',
        raw TEXT NOT NULL DEFAULT '',
        answer_order TEXT,
        repetition INTEGER NOT NULL DEFAULT 1,
        source TEXT,
        imported_at TEXT NOT NULL,
        UNIQUE (subject, judge, method, answer_order, repetition))""",
    """CREATE TABLE subject_metrics (
        subject TEXT PRIMARY KEY,
        metrics TEXT NOT NULL,
        source TEXT)""",
    """CREATE TABLE disputes (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        dimension TEXT NOT NULL,
        verdict_ids TEXT NOT NULL,
        severity REAL NOT NULL DEFAULT 0,
        detail TEXT NOT NULL DEFAULT '',
        found_at TEXT NOT NULL,
        UNIQUE (kind, subject, dimension))""",
    """CREATE TABLE adjudications (
        id INTEGER PRIMARY KEY,
        subject TEXT NOT NULL,
        dimension TEXT NOT NULL,
        value TEXT,
        rationale TEXT NOT NULL DEFAULT '',
        reviewer TEXT NOT NULL,
        decided_at TEXT NOT NULL,
        sided_with TEXT,
        dispute_id INTEGER REFERENCES disputes(id) ON DELETE SET NULL,
        UNIQUE (subject, dimension))""",
    "CREATE INDEX idx_verdicts_subject ON verdicts(subject)",
    "CREATE INDEX idx_verdicts_run ON verdicts(run_id)",
]


@MIGRATIONS(name="0002_judging")
def m0002_judging(db: sqlite_utils.Database) -> None:
    """Judge verdicts, reference answers, structural metrics per subject,
    disputes and adjudications (docs/judging.md)."""
    for statement in _JUDGING:
        db.execute(statement)


@MIGRATIONS(name="0003_previews")
def m0003_previews(db: sqlite_utils.Database) -> None:
    """Reduced JPEG previews of large photos, keyed by the photo's sha256, so
    a photo appears at once when selected (the full decode follows)."""
    db.execute("""CREATE TABLE previews (
        sha256 TEXT PRIMARY KEY,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        jpeg BLOB NOT NULL)""")


@MIGRATIONS(name="0004_judge_findings")
def m0004_judge_findings(db: sqlite_utils.Database) -> None:
    """Findings from a judge's error lists (span labeling): the verdict they
    came from and their structured details."""
    db.execute("ALTER TABLE findings ADD COLUMN verdict_id INTEGER REFERENCES verdicts(id) ON DELETE CASCADE")
    db.execute("ALTER TABLE findings ADD COLUMN attrs TEXT NOT NULL DEFAULT '{}'")
    db.execute("CREATE INDEX idx_findings_verdict ON findings(verdict_id)")


@MIGRATIONS(name="0005_reliability")
def m0005_reliability(db: sqlite_utils.Database) -> None:
    """Indexes for the duplicate checks of imports (a run is item, prompt,
    model and repetition; without a repetition the same output is the same
    run), and ``items.image_note``: what import found wrong with a photo
    (truncated, too large to decode) in one line, for the window to show."""
    db.execute("ALTER TABLE items ADD COLUMN image_note TEXT")
    db.execute("CREATE INDEX idx_runs_output ON runs(item_id, prompt_id, model, output_sha256)")
    db.execute("CREATE INDEX idx_runs_source ON runs(item_id, prompt_id, source)")


@MIGRATIONS(name="0006_calls")
def m0006_calls(db: sqlite_utils.Database) -> None:
    """Calls to model and judge endpoints (docs/runner.md): per answer or verdict
    the facts of the call (finish reason, truncated, tokens, latency, the
    model name the server reported, the request parameters, attempts), and
    failed attempts (status 'failed', with the error and what was asked).
    The endpoint is stored without user:password; the key never."""
    db.execute("""CREATE TABLE calls (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
        verdict_id INTEGER REFERENCES verdicts(id) ON DELETE CASCADE,
        item TEXT,
        prompt TEXT,
        model TEXT,
        repetition INTEGER,
        judge TEXT,
        subject TEXT,
        answer_order TEXT,
        endpoint TEXT,
        server_model TEXT,
        finish_reason TEXT,
        truncated INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        total_tokens INTEGER,
        latency_ms REAL,
        attempts INTEGER NOT NULL DEFAULT 1,
        params TEXT NOT NULL DEFAULT '{}',
        error TEXT,
        called_at TEXT NOT NULL)""")
    db.execute("CREATE INDEX idx_calls_run ON calls(run_id)")
    db.execute("CREATE INDEX idx_calls_verdict ON calls(verdict_id)")
    db.execute("CREATE INDEX idx_calls_status ON calls(status, kind)")


@MIGRATIONS(name="0008_cases")
def m0008_cases(db: sqlite_utils.Database) -> None:
    """Test cases (docs/test-cases.md): the query, context, expected behaviour and
    metadata of a text item that is a test case, and per run of a case the
    outcome of every check of the rule metrics (the fired ones are findings)
    with the version of the metric set that made them."""
    db.execute("""CREATE TABLE cases (
        item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
        case_id TEXT NOT NULL UNIQUE,
        dataset TEXT NOT NULL,
        query TEXT NOT NULL,
        context TEXT NOT NULL DEFAULT '{}',
        expected TEXT NOT NULL DEFAULT '{}',
        metadata TEXT NOT NULL DEFAULT '{}',
        category TEXT,
        source TEXT,
        imported_at TEXT NOT NULL)""")
    db.execute("CREATE INDEX idx_cases_dataset ON cases(dataset)")
    db.execute("""CREATE TABLE case_run_scores (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        metrics_version TEXT NOT NULL,
        outcomes TEXT NOT NULL,
        scored_at TEXT NOT NULL)""")


@MIGRATIONS(name="0007_spans")
def m0007_spans(db: sqlite_utils.Database) -> None:
    """Span labeling (docs/spans.md): imported judge snapshots (named by file
    stem; the file's JSON kept so summaries are recomputed from its
    results), the runs each snapshot's results became, golden-set files
    (metadata and prompt order, for export in their own format) and golden
    spans: hand-labelled spans of an item's labelled text (keyed by the
    text's sha256; offsets in UTF-16 code units)."""
    db.execute("""CREATE TABLE span_snapshots (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        source TEXT,
        sha256 TEXT NOT NULL,
        timestamp TEXT,
        judge_model TEXT,
        extraction_model TEXT,
        data TEXT NOT NULL,
        imported_at TEXT NOT NULL)""")
    db.execute("""CREATE TABLE span_snapshot_runs (
        snapshot_id INTEGER NOT NULL REFERENCES span_snapshots(id) ON DELETE CASCADE,
        prompt_key TEXT NOT NULL,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        PRIMARY KEY (snapshot_id, prompt_key))""")
    db.execute("""CREATE TABLE golden_sets (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        metadata TEXT NOT NULL DEFAULT '{}',
        prompts TEXT NOT NULL DEFAULT '[]',
        imported_at TEXT NOT NULL)""")
    db.execute("""CREATE TABLE golden_spans (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        text_sha256 TEXT NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        role TEXT NOT NULL,
        text TEXT NOT NULL DEFAULT '',
        extra TEXT NOT NULL DEFAULT '{}',
        position INTEGER NOT NULL DEFAULT 0,
        created_by TEXT,
        created_at TEXT NOT NULL)""")
    db.execute("CREATE INDEX idx_golden_spans_item ON golden_spans(item_id, text_sha256)")


@MIGRATIONS(name="0009_annotators")
def m0009_annotators(db: sqlite_utils.Database) -> None:
    """Several annotators (decision: consensus-ground-truth): each pile and card belongs to an
    ``annotator`` (a reviewer name); '' is the consensus, the ground truth
    scoring uses, so ground truth stored before this migration is the
    consensus. Ground-truth disputes and their adjudications use the
    disputes and adjudications tables of the judges."""
    db.execute("ALTER TABLE piles ADD COLUMN annotator TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE cards ADD COLUMN annotator TEXT NOT NULL DEFAULT ''")
    db.execute("CREATE INDEX idx_cards_item_annotator ON cards(item_id, annotator)")
    db.execute("CREATE INDEX idx_piles_item_annotator ON piles(item_id, annotator)")


@MIGRATIONS(name="0010_findings_status")
def m0010_findings_status(db: sqlite_utils.Database) -> None:
    """A covering index of findings by run and status: the window's review
    counts (one aggregate over every finding when a project opens) read the
    index alone (decision: big-projects-stay-interactive)."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_findings_run_status ON findings(run_id, status)")


#: The stored metrics of a run are a cache of run_metrics over its facts and
#: findings: any change to a run's findings empties it (these triggers), so a
#: reader recomputes exactly the runs whose findings changed since.
_METRICS_STALE = (
    "UPDATE run_scores SET auto_metrics = NULL, reviewed_metrics = NULL "
    "WHERE run_id = {run} AND auto_metrics IS NOT NULL;"
)


@MIGRATIONS(name="0011_run_metrics")
def m0011_run_metrics(db: sqlite_utils.Database) -> None:
    """The automatic and reviewed metrics of each scored run (RunMetrics as
    JSON), written when the run is scored, so that report, export and the
    window's verdicts read them instead of recomputing every run (decision: stored-metrics-never-stale).
    NULL: not known (scored before this migration, or a finding of the run
    changed since: the triggers below), recomputed on reading."""
    # which runs are scored with which config, read from an index (opening a project of 100,000
    # runs asks whether any run is stale: the table's rows hold the facts, kilobytes each)
    db.execute("CREATE INDEX idx_run_scores_config ON run_scores(config_version, strict)")
    db.execute("ALTER TABLE run_scores ADD COLUMN auto_metrics TEXT")
    db.execute("ALTER TABLE run_scores ADD COLUMN reviewed_metrics TEXT")
    db.execute(
        "CREATE TRIGGER findings_metrics_insert AFTER INSERT ON findings BEGIN "
        + _METRICS_STALE.format(run="NEW.run_id")
        + " END"
    )
    db.execute(
        "CREATE TRIGGER findings_metrics_update AFTER UPDATE ON findings BEGIN "
        + _METRICS_STALE.format(run="NEW.run_id")
        + _METRICS_STALE.format(run="OLD.run_id")
        + " END"
    )
    db.execute(
        "CREATE TRIGGER findings_metrics_delete AFTER DELETE ON findings BEGIN "
        + _METRICS_STALE.format(run="OLD.run_id")
        + " END"
    )


@MIGRATIONS(name="0012_run_reservations")
def m0012_run_reservations(db: sqlite_utils.Database) -> None:
    """Reservations of requests and the sources of imports.

    ``reservations``: a request a run is about to send (``key``: what it
    asks, e.g. 'answer|item id|prompt id|model|repetition'), claimed by one
    run (``owner``: a token of the run; ``pid``, ``started`` (its start
    time, so a reused pid is told apart) and ``host`` of its process)
    in a short transaction before it is sent, so two runs at once never ask
    the same thing; removed when the run ends. A reservation whose process
    is gone (a kill) is taken over (reviewer.storage.repo.reservations).

    ``import_sources``: every file or folder imported (absolute path), so an
    export never writes into what the project was imported from
    (reviewer.storage.files.safe_write)."""
    db.execute("""CREATE TABLE reservations (
        key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started TEXT NOT NULL DEFAULT '',
        host TEXT NOT NULL,
        claimed_at TEXT NOT NULL)""")
    db.execute("CREATE INDEX idx_reservations_owner ON reservations(owner)")
    db.execute("""CREATE TABLE import_sources (
        path TEXT PRIMARY KEY,
        format TEXT,
        imported_at TEXT NOT NULL)""")


@MIGRATIONS(name="0013_call_retries")
def m0013_call_retries(db: sqlite_utils.Database) -> None:
    """What Failter's front matter records of a trial and the calls table
    lacked: the errors of the attempts that were retried (JSON list of
    messages, oldest first), the whole time of the call with its retries
    and waits (ms), and a cost the source reported (Failter's
    ``estimated-cost``). NULL / '[]' when not known."""
    db.execute("ALTER TABLE calls ADD COLUMN retry_errors TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE calls ADD COLUMN total_ms REAL")
    db.execute("ALTER TABLE calls ADD COLUMN cost REAL")


@MIGRATIONS(name="0021_human_labels")
def m0021_human_labels(db: sqlite_utils.Database) -> None:
    """Label first (reviewer.core.judging.label_first): human labels with
    their first label and final value (JSON), times, reviewer, queue
    ('label-first' or 'dispute'), the judge shown and the rubric version;
    each labelled subject's split and pairwise order, set once; the fair
    queue per judge and dimension (stratum and rank set once)."""
    db.execute("""CREATE TABLE human_labels (
        id INTEGER PRIMARY KEY,
        subject TEXT NOT NULL,
        dimension TEXT NOT NULL,
        reviewer TEXT NOT NULL,
        queue TEXT NOT NULL DEFAULT 'label-first',
        judge TEXT,
        rubric_version TEXT,
        answer_order TEXT,
        first_value TEXT,
        first_at TEXT NOT NULL,
        final_value TEXT,
        final_at TEXT,
        UNIQUE (subject, dimension, reviewer, queue))""")
    db.execute("""CREATE TABLE label_subjects (
        subject TEXT PRIMARY KEY,
        split TEXT NOT NULL,
        answer_order TEXT,
        seed INTEGER NOT NULL,
        assigned_at TEXT NOT NULL)""")
    db.execute("""CREATE TABLE label_queue (
        judge TEXT NOT NULL,
        dimension TEXT NOT NULL,
        subject TEXT NOT NULL,
        stratum TEXT NOT NULL,
        rank TEXT NOT NULL,
        drawn_at TEXT NOT NULL,
        PRIMARY KEY (judge, dimension, subject))""")


@MIGRATIONS(name="0022_verdict_confidences")
def m0022_verdict_confidences(db: sqlite_utils.Database) -> None:
    """A judge's confidence in each dimension of a verdict, with its source:
    'logprob' (exp of the logprob of the token carrying the value, from the
    endpoint), 'stated' (the judge's reply says it) or 'imported' (the file
    gave it). One row per verdict, dimension and source; 0..1."""
    db.execute("""CREATE TABLE verdict_confidences (
        verdict_id INTEGER NOT NULL REFERENCES verdicts(id) ON DELETE CASCADE,
        dimension TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN ('logprob', 'stated', 'imported')),
        confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
        PRIMARY KEY (verdict_id, dimension, source))""")


@MIGRATIONS(name="0023_item_workflows")
def m0023_item_workflows(db: sqlite_utils.Database) -> None:
    """Each item's workflow (reviewer.core.workflows: cards, spans, case,
    judged output, pairwise), recorded at import; items of an older project
    get the one their contents say (reviewer.storage.workflows)."""
    from reviewer.storage.workflows import record_missing

    db.execute("ALTER TABLE items ADD COLUMN workflow TEXT")
    record_missing(db)


@MIGRATIONS(name="0024_workflows_by_content")
def m0024_workflows_by_content(db: sqlite_utils.Database) -> None:
    """Content decides an item's workflow, verdicts never do (decision record
    perspective-per-workflow): the photos 0023 recorded as judged output or
    pairwise because a judge had scored them become cards again, and the
    texts it recorded as judged output while they hold an imported pair
    become pairwise (reviewer.storage.workflows.correct_verdict_moves)."""
    from reviewer.storage.workflows import correct_verdict_moves

    correct_verdict_moves(db)


@MIGRATIONS(name="0025_label_inclusion")
def m0025_label_inclusion(db: sqlite_utils.Database) -> None:
    """The active label-first order's draw (reviewer.core.judging.active_order):
    per judge, dimension and subject of its queue, the inclusion probability
    pi and whether the seeded draw took the subject; set once, never changed.
    A label of a drawn subject weighs 1 / pi in alignment."""
    db.execute("""CREATE TABLE label_inclusion (
        judge TEXT NOT NULL,
        dimension TEXT NOT NULL,
        subject TEXT NOT NULL,
        inclusion REAL NOT NULL CHECK (inclusion > 0 AND inclusion <= 1),
        drawn INTEGER NOT NULL CHECK (drawn IN (0, 1)),
        seed INTEGER NOT NULL,
        drawn_at TEXT NOT NULL,
        PRIMARY KEY (judge, dimension, subject))""")


@MIGRATIONS(name="0026_batch_reservations")
def m0026_batch_reservations(db: sqlite_utils.Database) -> None:
    """Requests written to a batch file (reviewer.storage.repo.batches), held for
    the batch until they are answered, cancelled or expire.

    ``batch_reservations``: one row per request (``custom_id``: the batch
    line's id, the request's reservation key), the batch file's name, what
    the request stands for (JSON, to store its answer as a live run would),
    when it was written and when the hold expires (UTC ISO 8601), its
    ``state`` ('waiting', 'answered', 'failed') and when it was settled.
    ``batch_lines``: the id of every output line read, so importing the
    same output twice adds nothing."""
    db.execute("""CREATE TABLE batch_reservations (
        custom_id TEXT PRIMARY KEY,
        file TEXT NOT NULL,
        request TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'answered', 'failed')),
        settled_at TEXT)""")
    db.execute("CREATE INDEX idx_batch_reservations_file ON batch_reservations(file)")
    db.execute("""CREATE TABLE batch_lines (
        line_id TEXT PRIMARY KEY,
        custom_id TEXT NOT NULL,
        imported_at TEXT NOT NULL)""")


@MIGRATIONS(name="0027_item_metadata")
def m0027_item_metadata(db: sqlite_utils.Database) -> None:
    """Each item's metadata from its source (reviewer.storage.repo.item_metadata):
    a JSON object of text, number or boolean values ('subset', 'category',
    'difficulty', 'section', ...), '{}' when the source has none; the
    figures of alignment, agreement and calibration are sliced by a key of
    it (--by FIELD). Items of an older project get '{}'."""
    db.execute("ALTER TABLE items ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}'")


@MIGRATIONS(name="0028_test_split_reads")
def m0028_test_split_reads(db: sqlite_utils.Database) -> None:
    """Each read of the test split that could tune a judge on it
    (reviewer.storage.judging.test_reuse): a `reviewer gate` run or a
    calibration fit ('gate', 'fit') of a judge, dimension and rubric
    version, and each new hash split ('resplit', no judge), which restarts
    the count. Written once, never changed."""
    db.execute("""CREATE TABLE test_split_reads (
        id INTEGER PRIMARY KEY,
        action TEXT NOT NULL CHECK (action IN ('gate', 'fit', 'resplit')),
        judge TEXT,
        dimension TEXT,
        rubric_version TEXT NOT NULL DEFAULT '',
        split_seed INTEGER,
        at TEXT NOT NULL)""")


@MIGRATIONS(name="0029_calibration_maps")
def m0029_calibration_maps(db: sqlite_utils.Database) -> None:
    """Calibration maps fitted on the dev split (reviewer.storage.judging.calibration_fit):
    per judge, dimension, confidence source and rubric version, the latest
    fit's method, its parameters (JSON), the dev verdicts it rests on, the
    split seed and when it was fitted."""
    db.execute("""CREATE TABLE calibration_maps (
        judge TEXT NOT NULL,
        dimension TEXT NOT NULL,
        source TEXT NOT NULL,
        rubric_version TEXT NOT NULL DEFAULT '',
        method TEXT NOT NULL CHECK (method IN ('temperature', 'platt', 'isotonic')),
        params TEXT NOT NULL,
        n INTEGER NOT NULL,
        split_seed INTEGER NOT NULL,
        fitted_at TEXT NOT NULL,
        PRIMARY KEY (judge, dimension, source, rubric_version))""")


@MIGRATIONS(name="0030_inspect_letters")
def m0030_inspect_letters(db: sqlite_utils.Database) -> None:
    """inspect_ai's letters on the C/I/P scale in a project imported before
    it existed (decision record "inspect-letters-migrated"): the inspect
    verdicts on pass/fail (C/I) and on 0-100 (C/P/I) that today's import
    puts on C/I/P move to it, with the people's values of their subjects
    ('pass' 100, 'fail' 0); read back exactly from each verdict's source
    and raw value (reviewer.storage.project.inspect_letters)."""
    from reviewer.storage.project.inspect_letters import inspect_letters_to_cip

    inspect_letters_to_cip(db)


@MIGRATIONS(name="0031_sparse_card_indexes")
def m0031_sparse_card_indexes(db: sqlite_utils.Database) -> None:
    """Indexes of what is rare, so opening a big project does not scan every
    card for it (decision record "big-projects-stay-interactive"): the
    consensus cards with no text yet (cards to transcribe) by item, and the
    cards and piles of named annotators by annotator. SQLite uses a partial
    index when the query repeats its condition (reviewer.storage.repo.items,
    reviewer.storage.annotators.ground_truth). No row changes."""
    db.execute("CREATE INDEX idx_cards_blank ON cards(item_id) WHERE annotator = '' AND trim(text) = ''")
    db.execute("CREATE INDEX idx_cards_named ON cards(annotator) WHERE annotator != ''")
    db.execute("CREATE INDEX idx_piles_named ON piles(annotator) WHERE annotator != ''")
