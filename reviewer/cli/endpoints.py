"""Commands that ask models and judges (docs/runner.md): run and judge."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reviewer.cli.common import (
    DEFAULT_KEY_ENV,
    FAIL_ON,
    JUDGE_FAIL_ON,
    JUDGE_KINDS,
    echo,
    friendly_errors,
    gate_verdicts,
    main,
    weights_option,
)
from reviewer.cli.numbers import bounded, finite, whole
from reviewer.core.judging.gates import failing_judged, judge_gate_message, judged_prompts
from reviewer.core.text import visible
from reviewer.pipeline import limits
from reviewer.storage.project.db import open_project

if TYPE_CHECKING:  # imported when used: `reviewer --help` starts without the pipeline
    from rich.progress import TaskID

    from reviewer.pipeline.batch_out import BatchOut
    from reviewer.pipeline.execute import Settings
    from reviewer.pipeline.failter_spec import SpecResult


# -- asking models and judges (docs/runner.md) ----------------------------------------------
#: The numeric options of batch files, declared in one place: hours a batch holds its requests.
BATCH_EXPIRES_H = finite(0.01, 24.0 * 366)


def _endpoint_options(func, fail_on=FAIL_ON):
    """The options every command that talks to an endpoint takes (``fail_on``: its --fail-on)."""
    options = [
        click.option(
            "--endpoint",
            metavar="URL",
            help="OpenAI-compatible API base ending in /v1 (Ollama http://localhost:11434/v1, "
            "vLLM http://localhost:8000/v1, llama.cpp server http://localhost:8080/v1). "
            "Required unless --batch-out.",
        ),
        click.option(
            "--batch-out",
            type=click.Path(dir_okay=False, path_type=Path),
            metavar="FILE.jsonl",
            help="Send nothing: write every request in the OpenAI Batch format to FILE.jsonl (split at "
            "50,000 lines or 200 MB: FILE-1.jsonl, FILE-2.jsonl...), held for the batch until --batch-expires; "
            "'reviewer import' reads the batch's output back.",
        ),
        click.option(
            "--batch-expires",
            type=BATCH_EXPIRES_H,
            default=48.0,
            show_default=True,
            metavar="HOURS",
            help="With --batch-out: hours a batch holds its requests (live runs skip them until then).",
        ),
        click.option(
            "--api-key-env",
            default=DEFAULT_KEY_ENV,
            show_default=True,
            metavar="NAME",
            help="Environment variable holding the API key (never stored or printed).",
        ),
        click.option(
            "--concurrency",
            type=bounded(limits.CONCURRENCY),
            default=4,
            show_default=True,
            help="Requests in flight at most.",
        ),
        click.option(
            "--retries",
            type=bounded(limits.RETRIES),
            default=3,
            show_default=True,
            help="Retries of a request on connection errors, timeouts, 429 and 5xx.",
        ),
        click.option(
            "--timeout",
            type=bounded(limits.TIMEOUT_S),
            default=120.0,
            show_default=True,
            help="Seconds one attempt may take in all, from connecting to the answer's last byte.",
        ),
        click.option(
            "--max-response-mb",
            type=bounded(limits.MAX_RESPONSE_MB),
            default=10.0,
            show_default=True,
            help="The largest answer read, in MB of decompressed body; a larger one is a failed attempt.",
        ),
        click.option(
            "--temperature",
            type=bounded(limits.TEMPERATURE),
            default=None,
            help="Sampling temperature (server default if left out).",
        ),
        click.option("--max-tokens", type=bounded(limits.MAX_TOKENS), default=None, help="Longest answer in tokens."),
        click.option("--seed", type=bounded(limits.SEED), default=None, help="Seed N; repetition k sends N + k - 1."),
        click.option(
            "--repetitions",
            type=bounded(limits.REPETITIONS),
            default=1,
            show_default=True,
            help="Ask each combination this many times (repetitions 1..N).",
        ),
        fail_on,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _settings(
    endpoint: str | None,
    api_key_env: str,
    concurrency: int,
    retries: int,
    timeout: float,
    max_response_mb: float,
    batch_out: Path | None = None,
):
    """The endpoint's settings; with ``batch_out`` and no endpoint, the
    answers' endpoint is 'batch:<file name>' (nothing is sent)."""
    from reviewer.clients.chat import EndpointError, check_endpoint
    from reviewer.pipeline.execute import Settings

    if endpoint is None:
        if batch_out is None:
            raise click.UsageError("give --endpoint URL (or --batch-out FILE.jsonl to write the requests)")
        base = f"batch:{batch_out.name}"
    else:
        try:
            base = check_endpoint(endpoint)
        except EndpointError as exc:
            raise click.ClickException(f"--endpoint: {exc}") from None
    return Settings(
        endpoint=base,
        key_env=api_key_env,
        concurrency=concurrency,
        retries=retries,
        timeout=timeout,
        max_response_bytes=int(max_response_mb * 1_000_000),
    )


def _batch(batch_out: Path | None, batch_expires: float):
    """The batch file to write (--batch-out), or None: ask live."""
    if batch_out is None:
        return None
    from reviewer.pipeline.batch_out import BatchOut

    return BatchOut(batch_out, expires_h=batch_expires)


def _batch_written(p, batch, summary) -> str:
    """Write the batch file(s) and say what was written and held."""
    from reviewer.pipeline.batch_out import batch_line

    batch.write(p)
    return batch_line(batch, summary)


class _Progress:
    """A progress bar with ETA on a terminal (rich, on stderr), else a
    plain line at every tenth of the way."""

    task: TaskID | None

    def __init__(self, what: str):
        self.what, self.bar, self.task, self.shown = what, None, None, -1
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn(what),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )

    def __enter__(self):
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, done: int, total: int, summary) -> None:
        if self.bar is not None:
            if self.task is None:
                self.task = self.bar.add_task(self.what, total=total)
            self.bar.update(self.task, completed=done)
            return
        tenth = done * 10 // max(total, 1)
        if tenth != self.shown:
            self.shown = tenth
            click.echo(f"{self.what}: {done}/{total} ({summary.failed} failed)", err=True)


def _finish(summary, what: str) -> None:
    """Print the summary and the failures; exit 1 when any failed."""
    echo(f"{what}: {summary.line()}")
    for label, error in summary.errors[:20]:
        echo(f"failed: {label}: {error}", err=True)
    if len(summary.errors) > 20:
        echo(f"... and {len(summary.errors) - 20} more failures ('reviewer report' lists them)", err=True)
    if summary.failed:
        echo(
            f"Error: {summary.failed} request(s) failed after their retries; run the same command again to retry them",
            err=True,
        )
        sys.exit(1)


@main.command("run")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("spec", required=False, type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--model", "models", multiple=True, metavar="NAME", help="Model to ask (repeat for several).")
@click.option("--prompt", "prompt_names", multiple=True, metavar="NAME", help="Only this prompt (repeatable).")
@click.option("--item", "item_names", multiple=True, metavar="NAME", help="Only this item (repeatable).")
@click.option(
    "--max-side",
    type=whole(16, 10000),
    default=1536,
    show_default=True,
    help="Longest side of a photo sent, in pixels (upright, downscaled).",
)
@click.option(
    "--dual", is_flag=True, help="Failter spec: judge with both judges where there is a ground truth (Path B)."
)
@click.option(
    "--prices",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Failter spec: per-token prices (JSON or YAML {model: {input, output}}) for Avg_Cost.",
)
@click.option(
    "--weights",
    default="0.5:0.5",
    show_default=True,
    callback=lambda c, p, v: weights_option(c, p, v),
    metavar="RULES:GT",
    help="Failter spec: weights of the two judges in Avg_Score.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Failter spec: replace its output_file and artifacts even when they are not Failter's files "
    "or lie in the inputs.",
)
@_endpoint_options
@friendly_errors
def run_cmd(
    project: Path,
    spec: Path | None,
    models: tuple[str, ...],
    prompt_names: tuple[str, ...],
    item_names: tuple[str, ...],
    max_side: int,
    dual: bool,
    prices: Path | None,
    weights: tuple[float, float],
    force: bool,
    endpoint: str | None,
    batch_out: Path | None,
    batch_expires: float,
    api_key_env: str,
    concurrency: int,
    retries: int,
    timeout: float,
    max_response_mb: float,
    temperature: float | None,
    max_tokens: int | None,
    seed: int | None,
    repetitions: int,
    fail_on: str | None,
) -> None:
    """Ask models every item x prompt of PROJECT (repetitions 1..N) and store
    each answer as a run, scored at once. Resumable: what is stored is never
    asked again. With SPEC (a Failter v2 spec.yml): trials, judging, the
    Failter report (table on stderr) and Failter's artifacts and JSON report
    (on stdout and in output_file) as one idempotent pipeline; --model,
    --prompt and --retries override the spec's models, templates and
    retries."""
    settings = _settings(endpoint, api_key_env, concurrency, retries, timeout, max_response_mb, batch_out)
    batch = _batch(batch_out, batch_expires)
    if spec is not None:
        if item_names or repetitions != 1:
            raise click.UsageError(
                "--item and --repetitions do not apply to a Failter spec (it asks every input "
                "once); --model, --prompt, --retries, --timeout and --concurrency override the spec"
            )
        context = click.get_current_context()
        given = context.get_parameter_source("retries") == click.core.ParameterSource.COMMANDLINE
        spec_options = dict(
            dual=dual,
            weights=weights,
            prices=prices,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            retries=retries if given else None,
            models=models,
            templates=prompt_names,
            force=force,
            batch=batch,
            given=tuple(
                k
                for k in ("timeout", "concurrency")
                if context.get_parameter_source(k) == click.core.ParameterSource.COMMANDLINE
            ),
        )
        _run_failter_spec(project, spec, settings, spec_options, fail_on)
        return
    if not models:
        raise click.UsageError("give --model NAME (or a Failter spec.yml)")
    run_options = dict(
        prompts=prompt_names,
        items=item_names,
        repetitions=repetitions,
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        max_side=max_side,
    )
    _ask_models(project, settings, batch, models, run_options, fail_on)


def _run_failter_spec(project: Path, spec: Path, settings: Settings, spec_options: dict, fail_on: str | None) -> None:
    """``run`` with a Failter spec: run it (pipeline.failter_spec.run_spec with
    ``spec_options``) on the project, created when new, then report (``_report_spec``).
    A bad spec or an unwritable output is one clear error."""
    from reviewer.pipeline.failter_spec import SpecError, run_spec
    from reviewer.storage.cards.scores import verdicts

    p = open_project(project, create=True)
    try:
        with _Progress("failter") as progress:
            result = run_spec(
                p, spec, settings, progress=progress, notice=lambda line: echo(line, err=True), **spec_options
            )
        vs = verdicts(p)
    except SpecError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write the artifacts or output_file: {exc}") from None
    finally:
        p.close()
    _report_spec(result, vs, fail_on)


def _report_spec(result: SpecResult, vs: list, fail_on: str | None) -> None:
    """Say what a Failter spec's run did: the next step when its requests went to a batch
    file; else, as Failter, the JSON report on stdout and the table, the trials' and
    judging's summaries and the artifacts on stderr. Exits 1 when a request failed,
    then applies the ``--fail-on`` gate to the verdicts ``vs``."""
    if result.step:  # requests written to a batch file: no report yet
        echo(result.step)
        return
    # as Failter: the JSON report on stdout, the rest (the table, progress, summaries) on stderr
    echo(result.report, nl=False, err=True)
    echo("", err=True)
    for name, summary in (("trials", result.trials), ("judging", result.judging)):
        echo(f"{name}: {summary.line()}", err=True)
    if result.artifacts_written:
        echo(f"artifacts: {result.artifacts_written} file(s) written", err=True)
    echo(result.usage)
    failed = result.trials.failed + result.judging.failed
    if failed:
        echo(
            f"Error: {failed} request(s) failed after their retries; run the same command again to retry them",
            err=True,
        )
        sys.exit(1)
    gate_verdicts(vs, fail_on)


def _ask_models(
    project: Path,
    settings: Settings,
    batch: BatchOut | None,
    models: tuple[str, ...],
    run_options: dict,
    fail_on: str | None,
) -> None:
    """``run`` without a spec: ask each model in turn (pipeline.ask.run_models with
    ``run_options``), a line per model; with a batch file, say what it holds. Then the
    count of new runs, the failures (exit 1) and the ``--fail-on`` gate on these models' verdicts."""
    from reviewer.pipeline.ask import RunOptions, run_models
    from reviewer.storage.cards.scores import verdicts

    p = open_project(project)
    try:
        total = None
        new_runs: list[int] = []
        for model in models:
            options = RunOptions(model=model, **run_options)
            try:
                with _Progress(f"{model}") as progress:
                    summary, added = run_models(p, settings, options, progress=progress, batch=batch)
            except ValueError as exc:
                raise click.ClickException(str(exc)) from None
            except KeyboardInterrupt:
                echo("interrupted: the answers received are stored; run the same command again to continue", err=True)
                sys.exit(130)
            new_runs += added
            if batch is None:
                echo(f"{model}: {summary.line()}")
            total = summary if total is None else total.add(summary)
        if batch is not None:
            echo(_batch_written(p, batch, total))
            return
        vs = [v for v in verdicts(p) if v.model in models] if fail_on else []
    finally:
        p.close()
    echo(f"{len(new_runs)} new runs scored")
    if total is not None and total.failed:
        _finish(total, "total")
    gate_verdicts(vs, fail_on)


@main.command("judge")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", required=True, metavar="NAME", help="The judge model.")
@click.option(
    "--judge",
    "kind",
    required=True,
    type=click.Choice(JUDGE_KINDS),
    help="failter (rules-based), failter-gt (ground truth where there is one: Path A; --dual: Path B), "
    "tarot-rubric, span, pairwise.",
)
@click.option("--dual", is_flag=True, help="failter-gt: both judges where there is a ground truth (Path B).")
@click.option("--prompt", "prompt_names", multiple=True, metavar="NAME", help="Only runs of this prompt.")
@click.option("--item", "item_names", multiple=True, metavar="NAME", help="Only runs of this item.")
@click.option("--run-model", "run_model_names", multiple=True, metavar="NAME", help="Only runs of this model.")
@click.option(
    "--top-logprobs",
    type=whole(0, 20),
    default=1,
    show_default=True,
    help="Ask for logprobs with this many alternatives a token; each value's token probability is "
    "stored as the verdict's confidence (endpoints that refuse logprobs are asked without).",
)
@click.option("--no-logprobs", is_flag=True, help="Do not ask for logprobs, and store none a server sends anyway.")
@click.option(
    "--ask-confidence",
    is_flag=True,
    help="Ask the judge to state its confidence (0-1) in each verdict; stored as a stated confidence.",
)
@functools.partial(_endpoint_options, fail_on=JUDGE_FAIL_ON)
@friendly_errors
def judge_cmd(
    project: Path,
    model: str,
    kind: str,
    dual: bool,
    prompt_names: tuple[str, ...],
    item_names: tuple[str, ...],
    run_model_names: tuple[str, ...],
    top_logprobs: int,
    no_logprobs: bool,
    ask_confidence: bool,
    endpoint: str | None,
    batch_out: Path | None,
    batch_expires: float,
    api_key_env: str,
    concurrency: int,
    retries: int,
    timeout: float,
    max_response_mb: float,
    temperature: float | None,
    max_tokens: int | None,
    seed: int | None,
    repetitions: int,
    fail_on: str | None,
) -> None:
    """Ask a judge model about the runs of PROJECT and store its verdicts
    beside imported ones (disputes, agreement and calibration use them at
    once). Resumable: a stored verdict is never asked again. With
    --fail-on, exit 1 when a judged prompt's average verdict is at or
    below the level, naming them."""
    from reviewer.pipeline.judge import JudgeOptions, judge_runs, judged

    settings = _settings(endpoint, api_key_env, concurrency, retries, timeout, max_response_mb, batch_out)
    batch = _batch(batch_out, batch_expires)
    options = JudgeOptions(
        kind=kind,
        model=model,
        dual=dual,
        prompts=prompt_names,
        items=item_names,
        run_models=run_model_names,
        repetitions=repetitions,
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        top_logprobs=None if no_logprobs else top_logprobs,
        ask_confidence=ask_confidence,
    )
    p = open_project(project)
    try:
        try:
            with _Progress(f"{kind} ({model})") as progress:
                summary = judge_runs(p, settings, options, progress=progress, batch=batch)
            if batch is not None:
                echo(_batch_written(p, batch, summary))
                return
        except KeyboardInterrupt:
            echo("interrupted: the verdicts received are stored; run the same command again to continue", err=True)
            sys.exit(130)
        judged_rows = judged(p, options) if fail_on else []
    finally:
        p.close()
    if not summary.planned:
        echo(f"nothing to judge: no runs for the {kind} judge (check --prompt / --item)")
    _finish(summary, f"{kind} judge {model}")
    if fail_on:
        if kind == "pairwise":
            echo("note: --fail-on does not gate pairwise verdicts (no average)", err=True)
        bad = failing_judged(judged_prompts(judged_rows), fail_on)
        if bad:
            click.echo(f"Error: {visible(judge_gate_message(bad, fail_on))}", err=True)
            sys.exit(1)


@main.command("batches")
@click.argument("project", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "--cancel",
    "cancel_file",
    metavar="FILE",
    help="Release the waiting requests of this batch file (its name or path): live runs may ask them again.",
)
@friendly_errors
def batches_cmd(project: Path, cancel_file: str | None) -> None:
    """List the batch files written from PROJECT (--batch-out) with their
    requests waiting, answered and failed and when they expire; with
    --cancel FILE, release that file's waiting requests."""
    from reviewer.storage.repo import batches

    p = open_project(project)
    try:
        if cancel_file is not None:
            name = cancel_file.replace("\\", "/").rsplit("/", 1)[-1]
            if not any(f.file in (cancel_file, name) for f in batches.batch_files(p)):
                raise click.ClickException(
                    f"no batch file {cancel_file} in {project} ('reviewer batches P' lists them)"
                )
            n = batches.cancel(p, cancel_file)
            echo(f"{n} waiting request(s) of {cancel_file} released; live runs may ask them again")
            return
        files = batches.batch_files(p)
    finally:
        p.close()
    if not files:
        echo("no batch files")
        return
    for f in files:
        state = "expired" if f.expired else "expires"
        echo(f"{f.file}: waiting {f.waiting}, answered {f.answered}, failed {f.failed}; {state} {f.expires_at}")
