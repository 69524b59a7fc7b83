"""The Markdown documentation quotes only numbers the committed records give, and links that resolve.

A result number quoted in a README or paper notes carries, right after it, an HTML comment (invisible
when rendered) saying which record gives it::

    Linear 90.65<!-- rec: results/askrff/table1/table1.csv | dataset=spambase; method=linear | mean -->

``rec: PATHS | FILTER | EXPR``:

- ``PATHS``: one or more repository-relative glob patterns, separated by spaces, of CSV files read as
  one table (e.g. every ``trials.csv`` of a run tree);
- ``FILTER``: ``column=value`` (or ``column!=value``) terms separated by ``;``, all of which a row must
  meet; values compare as numbers when both parse as numbers (``k=16`` matches ``16.0``); empty: all rows;
- ``EXPR``: ``column`` (the one matching row's value; more or fewer rows is an error),
  ``mean(column)``, ``sd(column)`` (sample sd), ``min(column)``, ``max(column)``, ``sum(column)``
  or ``count`` (matching rows), optionally followed by ``* factor`` (e.g. ``* 100`` for a percentage).

The quoted number agrees when it is the record rounded to the digits quoted: |quoted - record| <=
half a unit of the quoted number's last digit. Coverage: a section whose heading begins with
"Findings" quotes only marked decimal numbers, and a ``mean ± sd`` pair is marked on both sides
wherever it appears, so that a result cannot be quoted by hand there; the papers' notes are held
further, everywhere (below).

Beyond the Markdown, the same markers are checked in the config files' comments (``configs/**/*.yaml``),
and a stricter reach holds every decimal number to a marker (:func:`unmarked_numbers`; section and
equation numbers aside): the prose the verdict layer writes (``reason``, ``cause`` and ``u_ours_rule``
of every ``results/<paper>/verdicts.csv``, every ``deviations.csv``) and every string of the verdict
modules (``rfbench/papers/*/verdicts.py``; their code literals aside, where a parameter is written, e.g.
```sigma x (1 -+ 0.001)```): there a result is read from a record or not quoted at all.

The papers' notes (:data:`STRICT_NOTES`: ``results/<paper>/README.md`` and ``results/README.md``), the
documentation of the components (``docs/*.md``), the benchmarks' log (``benchmarks/README.md``) and the
docstrings and comments of the package (:data:`SOURCES`: ``rfbench/**/*.py``) and the comments of the
config files (:data:`CONFIGS`) are held to it too (:func:`unmarked_results`), everywhere, by a rule that tells a result
from what is not one:

- a protocol parameter (a sigma, ``M/d``, a C grid, a seed, a version) is written as code (```σ = 1.5```,
  ```M/d = 1, 2, 4```), as the setting it is; code spans and blocks are not read;
- a cost carries its unit of time or size right after it (``s``, ``ms``, ``ns``, ``µs``, ``min``, ``h``,
  ``hours``, ``core-hours``, ``core-h``, ``CPU-s``, ``CPU-min``, ``CPU-hours``, ``MB``, ``MiB``, ``GB``,
  ``GiB``), a range of costs included (``0.15-2.2 s``): no record holds it;
- a dated measurement section, whose heading begins with "Cost" or "Times" and carries its ISO date
  (``## Times (measured 2026-11-26, ...)``), holds measurements taken outside the records (times,
  loads, reruns' differences) each beside its command; it is not read up to the next heading of its
  level or above (every benchmark's measurements stand in one, its command in the heading);
- section, table and equation numbers are names.

Any other decimal number there is a result and carries its marker.

The same Markdown files are link-checked: every relative link and image resolves inside the repository (its
``#anchor`` to a heading of the target), no link is absolute, every ``rfbench/...`` path and
``rfbench.`` module named in code spans exists, and every ``make <target>`` is a Makefile target.
"""

from __future__ import annotations

import ast
import csv
import importlib
import inspect
import io
import math
import re
import shutil
import statistics
import subprocess
import tokenize
from pathlib import Path

import pytest

from rfbench.engine import campaign, records

ROOT = Path(__file__).resolve().parents[1]

#: The documentation checked: the top README, each paper's notes, and the other READMEs and docs.
DOCS = sorted({ROOT / "README.md", *ROOT.glob("results/**/README.md"), *ROOT.glob("benchmarks/README.md"),
               *ROOT.glob("datasets/README.md"), *ROOT.glob("docs/*.md")})

#: Config files, whose comments may quote a record (checked like the Markdown's markers).
CONFIGS = sorted(ROOT.glob("configs/**/*.yaml"))
#: Where every decimal number must be a marked record: the verdict layer's prose (CSV columns) and modules.
PROSE_CSVS = {**{p: ("reason", "cause", "u_ours_rule") for p in sorted(ROOT.glob("results/*/verdicts.csv"))},
              **{p: ("deviation", "reason") for p in sorted(ROOT.glob("results/**/deviations.csv"))}}
VERDICT_MODULES = sorted(ROOT.glob("rfbench/papers/*/verdicts.py"))
#: The package's modules, whose docstrings and comments may quote a measurement.
SOURCES = sorted(ROOT.glob("rfbench/**/*.py"))

NUMBER = r"[+\-−]?\d[\d,]*(?:\.\d+)?(?:e[+\-−]?\d+)?"
MARKER = re.compile(r"<!--\s*rec:(?P<spec>.*?)-->", re.S)
QUOTED = re.compile(rf"(?P<num>{NUMBER})(?:\s*%)?\s*<!--\s*rec:(?P<spec>.*?)-->", re.S)
CODE_BLOCK = re.compile(r"^(?:```.*?^```|(?: {4}[^\n]*\n?)+)", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]+`")
AGGREGATE = re.compile(r"^(?P<fn>mean|sd|min|max|sum)\((?P<col>[^)]+)\)$")


def _relpath(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _as_float(text: str) -> float | None:
    try:
        return float(text.replace("−", "-").replace(",", ""))
    except ValueError:
        return None


def _rows(patterns: str) -> list[dict[str, str]]:
    """Every row of every CSV the glob patterns name, stored plain or gzipped (a run's ``trials.csv`` may be
    ``trials.csv.gz``: read through the records' one reader), comment lines skipped."""
    files = sorted({f for p in patterns.split() for f in records.record_paths(ROOT, p)})
    if not files:
        raise AssertionError(f"no record file matches {patterns!r}")
    rows = []
    for file in files:
        lines = io.StringIO(records.read_text(file), newline="")  # as open(file, newline="") reads it
        rows += list(csv.DictReader(line for line in lines if not line.startswith("#")))
    return rows


def _matches(row: dict[str, str], term: str) -> bool:
    negate = "!=" in term
    column, value = (s.strip() for s in term.split("!=" if negate else "=", 1))
    if column not in row:
        raise AssertionError(f"filter {term!r}: no column {column!r}; columns: {sorted(row)}")
    cell, a, b = row[column].strip(), _as_float(row[column].strip()), _as_float(value)
    equal = (a == b) if a is not None and b is not None else cell == value
    return equal != negate


def record_value(spec: str) -> float:
    """Evaluate one ``rec:`` marker's ``PATHS | FILTER | EXPR`` on the committed records."""
    try:
        patterns, filters, expr = (part.strip() for part in spec.split("|"))
    except ValueError:
        raise AssertionError(f"marker {spec!r} is not 'PATHS | FILTER | EXPR'") from None
    rows = [r for r in _rows(patterns) if all(_matches(r, t) for t in filters.split(";") if t.strip())]
    expr, _, factor = expr.partition("*")
    scale = float(factor) if factor.strip() else 1.0
    expr = expr.strip()
    if expr == "count":
        return len(rows) * scale
    agg = AGGREGATE.match(expr)
    column = agg["col"].strip() if agg else expr
    values = [float(r[column]) for r in rows]
    if not agg:
        assert len(values) == 1, f"{spec!r} selects {len(values)} rows, not one"
        return values[0] * scale
    assert values, f"{spec!r} selects no row"
    fn = {"mean": statistics.fmean, "sd": statistics.stdev, "min": min, "max": max, "sum": math.fsum}
    return fn[agg["fn"]](values) * scale


def half_unit(quoted: str) -> float:
    """Half a unit of the last digit written: 90.65 -> 0.005, 1.056e-06 -> 5e-10, 69,151 -> 0.5."""
    mantissa, _, exponent = quoted.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent.replace("−", "-")) if exponent else 0))


def _prose(text: str) -> str:
    """The text without code blocks and code spans (commands and names, not quoted results)."""
    return CODE_SPAN.sub("``", CODE_BLOCK.sub("", text))


def _comments(text: str) -> str:
    """The comments of a YAML file (what follows a ``#``), one per line."""
    return "\n".join(line.split("#", 1)[1] for line in text.splitlines() if "#" in line)


def prose_texts(path: Path) -> list[str]:
    """The prose of a file of the strict reach: the named columns of a CSV, or the strings of a module."""
    if path.suffix == ".csv":
        with open(path, newline="") as fh:
            return [row[c] for row in csv.DictReader(fh) for c in PROSE_CSVS.get(path, ()) if row.get(c)]
    return [CODE_SPAN.sub("``", node.value) for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


#: A literal of reStructuredText (a docstring's code): ``x``.
LITERAL = re.compile(r"``[^\n]+?``")
#: A docstring's parameters and examples: numpydoc's ``default=1.0``, a doctest up to its blank line.
DEFAULT = re.compile(r"\bdefault\s*[=:]\s*\S+")
DOCTEST = re.compile(r"^\s*>>>.*?(?:\n\s*\n|\Z)", re.S | re.M)


def source_texts(path: Path) -> list[str]:
    """The docstrings (of the module, its classes and functions, and its attributes' string statements), each
    dedented, and the comments of a Python module, their literals and code spans out: where its prose may
    quote a measurement (an indented block, code or a formula, stays a code block)."""
    text = path.read_text()
    strings = [inspect.cleandoc(node.value.value) for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Expr)
               and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)]
    comments = [token.string.lstrip("#") for token in tokenize.generate_tokens(io.StringIO(text).readline)
                if token.type == tokenize.COMMENT]
    return [CODE_SPAN.sub("(code)", LITERAL.sub("(code)", DEFAULT.sub("default=(code)", DOCTEST.sub("\n", t))))
            for t in [*strings, *comments]]


def _texts(path: Path) -> list[str]:
    """What of ``path`` may quote a record: Markdown prose, config comments, the strict reach's texts, a
    module's docstrings and comments."""
    if path.suffix == ".md":
        return [_prose(path.read_text())]
    if path.suffix == ".yaml":
        return [_comments(path.read_text())]
    if path in SOURCES:
        return source_texts(path)
    return prose_texts(path)


MARKED = [*DOCS, *CONFIGS, *PROSE_CSVS, *VERDICT_MODULES, *SOURCES]


def _quotes() -> list[tuple[str, str, str]]:
    return [(_relpath(doc), m["num"], m["spec"]) for doc in MARKED for text in _texts(doc)
            for m in QUOTED.finditer(text)]


def test_every_marker_follows_a_number():
    for doc in MARKED:
        text = "\n".join(_texts(doc))
        assert len(MARKER.findall(text)) == len(QUOTED.findall(text)), \
            f"{_relpath(doc)}: a rec: marker does not directly follow a number"


@pytest.mark.parametrize("doc, quoted, spec", _quotes(), ids=lambda v: v if len(v) < 40 else None)
def test_quoted_number_is_the_record(doc, quoted, spec):
    value = record_value(spec)
    assert abs(_as_float(quoted) - value) <= half_unit(quoted) * (1 + 1e-9), \
        f"{doc}: quotes {quoted}, but the record gives {value!r} ({spec.strip()})"


def _findings_sections(text: str) -> list[str]:
    sections, keep = [], None
    for line in text.splitlines():
        heading = re.match(r"^(#+)\s+(.*)", line)
        if heading:
            keep = [] if heading[2].startswith("Findings") else None
            if keep is not None:
                sections.append(keep)
        elif keep is not None:
            keep.append(line)
    return ["\n".join(s) for s in sections]


#: A decimal number no marker follows (a full stop after it ends a sentence, not the number).
UNMARKED_DECIMAL = re.compile(r"(?<![\w.])(?P<num>[+\-−]?\d+\.\d+(?:e[+\-−]?\d+)?)(?!\d|\.\d|[eE])"
                              r"(?!\s*%?\s*<!--\s*rec:)")
#: A section, equation or theorem number is a name, not a quoted result, and so is a range of them ("Sec.
#: 5.1-5.4") and, after a plural ("Theorems 2.1, 2.2 and 3.1"), a list (a singular's "Table 1, 0.75" keeps 0.75).
REFERENCE = re.compile(r"\b(?:(?:Theorems|Sections|Eqs\.)\s+\d+(?:\.\d+)*(?:(?:,\s*|,?\s+and\s+)\d+(?:\.\d+)*)*"
                       r"|(?:Theorem|Sec\.|[Ss]ection|Figs?\.|[Ee]qs?\.|Tables?|App\.)\s+\d+(?:\.\d+)*)"
                       r"(?:-\d+(?:\.\d+)*)?")
PAIR = re.compile(rf"{NUMBER}(?:\s*%)?(?P<left>\s*<!--\s*rec:.*?-->)?\s*±\s*{NUMBER}"
                  r"(?P<right>\s*%?\s*<!--\s*rec:)?", re.S)


def unmarked_numbers(text: str) -> list[str]:
    """The decimal numbers of ``text`` that no ``rec:`` marker follows (section, figure, equation numbers aside)."""
    return [m["num"] for m in UNMARKED_DECIMAL.finditer(REFERENCE.sub("", MARKER.sub("<!-- rec: -->", text)))]


#: The notes held to the strict rule: every paper's, so a new paper's notes are held from the start, the
#: components' documentation and the benchmarks' log.
STRICT_NOTES = [ROOT / "results" / "README.md", *sorted(ROOT.glob("results/*/README.md")),
                *sorted(ROOT.glob("docs/*.md")), ROOT / "benchmarks" / "README.md"]
#: A unit of time or size right after a number: a cost, which no record holds.
COST_UNIT = re.compile(rf"(?:\s*[-–]\s*{NUMBER})?\s*(?:s|ms|ns|µs|min|h|hours?|core-hours?|core-h|CPU-s|CPU-min"
                       r"|CPU-hours?|MB|MiB|GB|GiB)(?![\w-])")
#: The heading of a dated measurement section: "Cost" or "Times", with its ISO date.
MEASURED = re.compile(r"^#+\s+(?:Cost|Times)\b.*\b\d{4}-\d{2}-\d{2}\b")


def _outside_measurements(text: str) -> str:
    """The text without its dated measurement sections (each up to the next heading of its level or above)."""
    lines, skipped = [], None  # skipped: the level of the measurement section being left out
    for line in text.splitlines():
        heading = re.match(r"^(#+)\s", line)
        if heading and (skipped is None or len(heading[1]) <= skipped):
            skipped = len(heading[1]) if MEASURED.match(line) else None
        if skipped is None:
            lines.append(line)
    return "\n".join(lines)


def unmarked_results(text: str) -> list[str]:
    """The decimal numbers of a notes file that no marker follows and that no rule of the docstring
    makes a parameter (code), a cost (a unit), a dated measurement or a name (section numbers)."""
    prose = REFERENCE.sub("", MARKER.sub("<!-- rec: -->", _outside_measurements(_prose(text))))
    return [m["num"] for m in UNMARKED_DECIMAL.finditer(prose) if not COST_UNIT.match(prose, m.end())]


@pytest.mark.parametrize("doc", STRICT_NOTES, ids=_relpath)
def test_notes_quote_only_marked_results(doc):
    unmarked = unmarked_results(doc.read_text())
    assert not unmarked, f"{_relpath(doc)}: unmarked result numbers {unmarked} (mark them, or see the docstring)"


def test_a_planted_number_in_the_notes_is_caught():
    """Parameters in code, costs with a unit and a dated measurement section pass; a bare result fails."""
    text = ("## What runs\nAt `σ = 1.5` ours gives 90.77, 3.5 s a trial, 2.1 MB; Sec. 4.2 says so.\n"
            "## Times (measured 2026-11-26, `make x`)\nload 3.5 to 4.9, ratio 0.62\n"
            "## Findings\nthe paper's 0.0376\n")
    assert unmarked_results(text) == ["90.77", "0.0376"]
    assert unmarked_results(text.replace("90.77", "90.77 %<!-- rec: a | | b -->")) == ["0.0376"]
    assert unmarked_results("Theorems 2.1, 2.2 and 3.1 give 0.75; Table 1, 0.25.") == ["0.75", "0.25"]
    assert unmarked_results("(Sec. 5.1-5.4, e.g. ...)") == []


@pytest.mark.parametrize("path", SOURCES, ids=_relpath)
def test_docstrings_and_comments_quote_only_marked_results(path):
    for text in source_texts(path):
        unmarked = unmarked_results(text)
        assert not unmarked, f"{_relpath(path)}: unmarked result numbers {unmarked} in {text!r} (mark them with the " \
                             "record that gives them, write a parameter as code, or see the docstring)"


@pytest.mark.parametrize("path", CONFIGS, ids=_relpath)
def test_config_comments_quote_only_marked_results(path):
    unmarked = unmarked_results(_comments(path.read_text()))
    assert not unmarked, f"{_relpath(path)}: unmarked result numbers {unmarked} in its comments (mark them with " \
                         "the record that gives them, write a parameter as code, or see the docstring)"


def test_a_planted_result_in_a_config_comment_is_caught(tmp_path):
    config = tmp_path / "x.yaml"
    config.write_text("# Li's linear 60.59 % fits 10 classes; at `gamma = 0.1`, 3.5 s a trial\nname: x  # 0.25\n")
    assert unmarked_results(_comments(config.read_text())) == ["60.59", "0.25"]


def test_a_planted_measurement_in_a_docstring_or_a_benchmark_log_is_caught(tmp_path, monkeypatch):
    """A module quoting a measurement by hand, in its docstring or a comment, fails; written as code (a
    parameter), with a unit (a cost) or marked with the record that gives it, it passes. A benchmark log's
    number outside a dated section fails; inside one (its subsections too), it passes."""
    module = tmp_path / "blas.py"
    module.write_text('"""Haswell gives 1.056e-06, at ``sigma = 1.5``, in 0.38-0.5 ns.\n\n'
                      '    sigma : float, default=1.0\n    >>> f(2.5)\n    0.75\n"""\nX = 1  # SkylakeX: 1.095e-06\n')
    monkeypatch.setitem(globals(), "SOURCES", [module])  # read as the package's modules are
    assert [unmarked_results(t) for t in source_texts(module)] == [["1.056e-06"], ["1.095e-06"]]
    with pytest.raises(AssertionError, match=r"unmarked result numbers \['1.056e-06'\]"):
        test_docstrings_and_comments_quote_only_marked_results(module)
    spec = " results/askrff/table1/table1.csv | dataset=spambase; method=linear | mean "
    module.write_text(f'"""Linear gives 90.77<!-- rec:{spec}-->."""\n')
    test_docstrings_and_comments_quote_only_marked_results(module)  # marked: the reach passes ...
    (number, found), = [(m["num"], m["spec"]) for t in _texts(module) for m in QUOTED.finditer(t)]
    with pytest.raises(AssertionError, match="but the record gives"):  # ... and the marker check fails
        test_quoted_number_is_the_record(str(module), number, found)
    log = ("## The engine benchmark\nIt runs 27.1x faster.\n"
           "### Times (measured 2026-11-22, `make bench`)\n27.1x, load 1.2\n#### Repeated\n28.3x\n"
           "## Model selection\n15.1x\n")
    assert unmarked_results(log) == ["27.1", "15.1"]


@pytest.mark.parametrize("path", [*PROSE_CSVS, *VERDICT_MODULES], ids=_relpath)
def test_the_verdict_layers_prose_quotes_only_marked_numbers(path):
    for text in prose_texts(path):
        assert not unmarked_numbers(text), f"{_relpath(path)}: unmarked numbers {unmarked_numbers(text)} in {text!r}"


#: The modules that write the reports' prose (the papers' and the generic report's): their strings with a
#: word in them (a lone ``"0.5"`` is a plotting parameter) quote no bare decimal.
REPORT_MODULES = sorted({*ROOT.glob("rfbench/papers/**/*.py"), *ROOT.glob("rfbench/report/*.py")} - {*VERDICT_MODULES})


def report_prose(path: Path) -> list[str]:
    return [text for text in prose_texts(path) if re.search(r"[A-Za-z]{2,}\s", text)]


@pytest.mark.parametrize("path", REPORT_MODULES, ids=_relpath)
def test_the_reports_prose_quotes_only_marked_numbers(path):
    for text in report_prose(path):
        assert not unmarked_numbers(text), f"{_relpath(path)}: unmarked numbers {unmarked_numbers(text)} in {text!r}"


def test_a_planted_number_in_a_reports_string_is_caught(tmp_path):
    module = tmp_path / "report.py"
    module.write_text('READING = "predicting the mean has a relative error of 71.1 %"\nALPHA = "0.5"\n'
                      'RULE = "within `sigma x (1 -+ 0.001)` of ours"\n')
    assert [unmarked_numbers(text) for text in report_prose(module)] == [["71.1"], []]


def test_findings_quote_only_marked_numbers():
    for doc in DOCS:
        for section in _findings_sections(_prose(doc.read_text())):
            unmarked = [m["num"] for m in UNMARKED_DECIMAL.finditer(REFERENCE.sub("", section))]
            assert not unmarked, f"{_relpath(doc)}: unmarked numbers in a Findings section: {unmarked}"


def test_mean_sd_pairs_are_marked():
    for doc in DOCS:
        for m in PAIR.finditer(_prose(doc.read_text())):
            assert m["left"] and m["right"], f"{_relpath(doc)}: unmarked '±' quote {m[0]!r}"


# --- links and names ------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    heading = re.sub(r"[`*_]|<!--.*?-->", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = CODE_BLOCK.sub("", path.read_text())
    return {_slug(h) for h in re.findall(r"^#+\s+(.*)$", text, re.M)}


def test_slug_follows_github():
    assert _slug("Rahimi & Recht (2007) Table 1 — `make rr-table1`") == "rahimi--recht-2007-table-1--make-rr-table1"


@pytest.mark.parametrize("doc", DOCS, ids=_relpath)
def test_links_resolve(doc):
    for m in LINK.finditer(CODE_BLOCK.sub("", doc.read_text())):
        target = m["target"]
        if re.match(r"^(https?|mailto):", target):
            continue
        assert not target.startswith(("/", "file:")), f"{_relpath(doc)}: absolute link {target}"
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        assert dest.is_relative_to(ROOT) and dest.exists(), f"{_relpath(doc)}: broken link {target}"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{_relpath(doc)}: no heading #{anchor} in {_relpath(dest)}"


def _makefile_targets() -> set[str]:
    """Every target make knows, those written through variables and patterns included (make's database)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    database = subprocess.run(["make", "-pRrq", "-f", "Makefile", ":"], cwd=ROOT, capture_output=True,
                              text=True).stdout
    campaigns = {paper if target == paper else f"{paper}-{target.replace('_', '-')}"  # make <paper>-<target>
                 for paper in campaign.papers() for target in campaign.targets(paper)}
    return set(re.findall(r"^([a-z][\w.-]*):", database, re.M)) | campaigns


def _spans(doc: Path) -> list[str]:
    text = doc.read_text()
    return CODE_SPAN.findall(text) + CODE_BLOCK.findall(text)


@pytest.mark.parametrize("doc", DOCS, ids=_relpath)
def test_named_paths_modules_and_targets_exist(doc):
    targets = _makefile_targets()
    for span in _spans(doc):
        for path in re.findall(r"(?<![\w/.])(rfbench/[\w/.]*\w|tests/[\w/.]*\w|benchmarks/[\w/.]*\w)", span):
            assert (ROOT / path).exists(), f"{_relpath(doc)}: names {path}, which does not exist"
        for dotted in re.findall(r"(?<![\w/.])rfbench(?:\.\w+)+", span):
            _resolve(dotted, doc)
        for target in re.findall(r"\bmake ((?:[a-z][\w-]*)(?: [a-z][\w-]*)*)", span):
            for name in target.split():
                assert name in targets, f"{_relpath(doc)}: `make {name}` is no Makefile target"


def _resolve(dotted: str, doc: Path) -> None:
    """Import the longest module prefix of a dotted name and find the rest as attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            assert hasattr(obj, attr), f"{_relpath(doc)}: names {dotted}, which does not exist"
            obj = getattr(obj, attr)
        return
    raise AssertionError(f"{_relpath(doc)}: names {dotted}, which does not exist")


# --- the checker itself ---------------------------------------------------------------------------

def test_a_drifted_number_is_caught():
    """The rule fails when a quoted number disagrees with its record, and passes when it agrees."""
    spec = " results/askrff/table1/table1.csv | dataset=spambase; method=linear | mean "
    value = record_value(spec)
    assert abs(round(value, 2) - value) <= half_unit(f"{value:.2f}")
    assert abs((round(value, 2) + 0.01) - value) > half_unit(f"{value:.2f}")


def test_a_marker_naming_trials_csv_reads_the_gzipped_records_too(tmp_path, monkeypatch):
    """A run's trials.csv over the records' threshold is trials.csv.gz: a marker naming ``runs/*/trials.csv``
    reads it (and the plain ones beside it) as the one table it is."""
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    accuracies = [t / 1000 for t in range(300)]
    for name, values in (("a", accuracies), ("b", [0.25])):
        for t, value in enumerate(values):
            records.record_trial(tmp_path / "runs" / name / "trials.csv", {"trial": t, "test_accuracy": value})
    assert (tmp_path / "runs/a/trials.csv.gz").exists() and (tmp_path / "runs/b/trials.csv").exists()
    assert record_value(" runs/*/trials.csv |  | count ") == 301
    assert record_value(" runs/*/trials.csv | trial=299 | test_accuracy ") == 0.299


def test_half_unit():
    assert half_unit("90.65") == pytest.approx(0.005)
    assert half_unit("1.056e-06") == pytest.approx(5e-10)
    assert half_unit("69,151") == 0.5


def test_findings_rule_flags_an_unmarked_number():
    text = "## Findings\nLinear 90.65<!-- rec: a | | b --> and RBF 93.20 %.\n## Other\n1.5 s\n"
    section = _findings_sections(text)[0]
    assert [m["num"] for m in UNMARKED_DECIMAL.finditer(section)] == ["93.20"]


def test_pair_rule_flags_an_unmarked_sd():
    marked = "90.65<!-- rec: a | | b --> ± 0.10<!-- rec: a | | c -->"
    assert all(m["left"] and m["right"] for m in PAIR.finditer(marked))
    assert not all(m["left"] and m["right"] for m in PAIR.finditer("90.27 ± 0.58"))


def _cells(row: str) -> int:
    """Cells of a Markdown table row: pipes outside code spans, escaped pipes not counted."""
    return CODE_SPAN.sub("``", row).replace("\\|", "").strip().strip("|").count("|") + 1


@pytest.mark.parametrize("doc", DOCS, ids=_relpath)
def test_tables_are_rectangular(doc):
    """Each table row has its header's cells, and the header is followed by its delimiter row."""
    for table in re.findall(r"(?:^\|.*\|[ \t]*\n)+", CODE_BLOCK.sub("", doc.read_text()), re.M):
        rows = table.strip("\n").split("\n")
        assert len(rows) > 1 and re.fullmatch(r"\|(?:\s*:?-+:?\s*\|)+\s*", rows[1]), \
            f"{_relpath(doc)}: table without a delimiter row: {rows[0]}"
        widths = {_cells(r) for r in rows}
        assert len(widths) == 1, f"{_relpath(doc)}: table rows of {sorted(widths)} cells: {rows[0]}"


def test_a_planted_result_number_without_a_record_is_caught(tmp_path, monkeypatch):
    """A deviations.csv quoting a result by hand fails the strict reach; marked, it passes only if the record
    gives it (the probe numbers that once stood in askrff's deviations.csv: 90.77 against the record)."""
    planted = tmp_path / "deviations.csv"
    planted.write_text('deviation,reason\n"Table 1, spambase","partition 0, ours, gives 90.77"\n')
    monkeypatch.setitem(PROSE_CSVS, planted, ("deviation", "reason"))
    with pytest.raises(AssertionError, match=r"unmarked numbers \['90.77'\]"):
        test_the_verdict_layers_prose_quotes_only_marked_numbers(planted)
    spec = " results/askrff/table1/table1.csv | dataset=spambase; method=linear | mean "
    planted.write_text(f'deviation,reason\n"Table 1, spambase","ours gives 90.77<!-- rec:{spec}-->"\n')
    test_the_verdict_layers_prose_quotes_only_marked_numbers(planted)  # marked: the strict reach passes ...
    (number, found), = [(m["num"], m["spec"]) for t in prose_texts(planted) for m in QUOTED.finditer(t)]
    with pytest.raises(AssertionError, match="but the record gives"):  # ... and the marker check fails
        test_quoted_number_is_the_record(str(planted), number, found)


def test_a_verdict_modules_code_literal_is_a_parameter(tmp_path):
    """A parameter written as a code literal passes the strict reach; a bare result beside it does not."""
    module = tmp_path / "verdicts.py"
    module.write_text('"""The spread: sd over ``sigma x (1 -+ 0.001)``; ours gives 90.77."""\n')
    assert [unmarked_numbers(text) for text in prose_texts(module)] == [["90.77"]]
