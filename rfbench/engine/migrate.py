"""Migrate recorded runs to the current configs and run ids.

    python -m rfbench.engine.migrate results [--dry-run]

A change to the configs or to what the run id hashes orphans the runs recorded before it: their
folder is named by the old id, their ``config.yaml`` composes no more.  For every run below the
root (``<...>/runs/<run_id>/config.yaml``) this applies :data:`STEPS` to its config, recomputes
the run id with the current code (:func:`rfbench.engine.config.run_id`), rewrites the config, the
config columns of its rows (renamed as :data:`RENAMED_COLUMNS` says, changed values, new keys) and
the ``run_id`` column of every CSV of the run, then renames the folder.  Each file is replaced
atomically and the folder renamed last, so a migration cut short is finished by running it again;
a run already migrated is left as it is (a second run does nothing).  Two runs that would get one
id are refused before anything is changed (exit 2).

The steps so far (issue 34, item 5): ``classifier=svc_named`` (``NamedKernelSVC``) became
``classifier=svc_precomputed`` with ``kernel: <its metric>`` and its gammas as the list
``gamma_grid``; ``dataset.deviations`` left the run id (no config change, a new id); one config
per dataset: a run recorded on ``dataset=house_16h`` (the ``census_house`` data under another name)
or ``cpu_act_qmc`` (``cpu_act`` at another split, which the recorded node keeps as an override) is
a run of the config that holds its data (:data:`FOLDED_DATASETS`); a record (``trials.csv``, a frame)
over :data:`rfbench.engine.frames.GZIP_ABOVE_BYTES` recorded plain is stored gzipped
(:func:`stored_unlike_now`; its text, run id and folder unchanged): run on a tree holding runs recorded
before the threshold was lowered (or before frames were), it brings them to the compact layout.
"""
from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from rfbench.engine import records
from rfbench.engine.config import CONFIG_DIR, flatten, run_id
from rfbench.storage.atomic import write_atomic

Config = dict[str, Any]


def fold_named_kernel_svm(cfg: Config) -> Config:
    """``classifier=svc_named`` -> ``svc_precomputed``: ``metric`` becomes ``kernel`` (the same
    names), its ``gamma_grid`` stays a list beside ``log2_gamma: null``; the other keys are kept."""
    node = cfg.get("classifier") or {}
    if node.get("name") != "svc_named":
        return cfg
    folded = {"_target_": "rfbench.model.kernel_svm.PrecomputedKernelSVC", "name": "svc_precomputed",
              "kernel": node["metric"], "log2_gamma": None, "gamma_grid": node["gamma_grid"]}
    folded.update((k, v) for k, v in node.items() if k not in {*folded, "metric"})
    return {**cfg, "classifier": folded}


#: Dataset configs folded into the config of the same data: old name -> the config.  Their nodes
#: held the same files (sha256), scaling, target and split seed; what differed (cpu_act_qmc's split
#: sizes) stays in the recorded node as an override, the deviations prose becomes the config's.
FOLDED_DATASETS = {"house_16h": "census_house", "cpu_act_qmc": "cpu_act"}


def fold_dataset_configs(cfg: Config) -> Config:
    """A run of a folded dataset config (:data:`FOLDED_DATASETS`) -> a run of the config of its data.

    Raises ValueError if the recorded node's files are not the config's (other data, not a fold).
    """
    node = cfg.get("dataset") or {}
    target = FOLDED_DATASETS.get(node.get("name"))
    if target is None:
        return cfg
    base = OmegaConf.to_container(OmegaConf.load(Path(CONFIG_DIR, "dataset", f"{target}.yaml")), resolve=True)
    sha = {key: (f or {}).get("sha256") for key, f in (node.get("files") or {}).items()}
    if sha != {key: f["sha256"] for key, f in base["files"].items()}:
        raise ValueError(f"a run recorded on dataset={node['name']} reads files {sha}, not those of "
                         f"dataset={target}: it cannot be folded into that config")
    return {**cfg, "dataset": {**node, "name": target, "deviations": base["deviations"]}}


#: Config transforms, in the order they were introduced; each leaves a migrated config unchanged.
def reads_the_readers_data(cfg: Config) -> Config:
    """A job that reads another job which takes data: no ``dataset=<name>`` in ``job.reads``, since the
    read job now gets the reader's dataset node whole (:func:`rfbench.engine.jobs.params`); a name alone
    lost the reader's settings (cpu_act at QMC's split)."""
    node = cfg.get("job") or {}
    reads = node.get("reads")
    if not node.get("data") or not isinstance(reads, dict):
        return cfg
    kept = {arg: [o for o in overrides if not str(o).startswith("dataset=")] for arg, overrides in reads.items()}
    return cfg if kept == reads else {**cfg, "job": {**node, "reads": kept}}


STEPS: tuple[Callable[[Config], Config], ...] = (fold_named_kernel_svm, fold_dataset_configs, reads_the_readers_data)


#: Flattened config keys renamed by a step: old column -> new column.
RENAMED_COLUMNS = {"classifier.metric": "classifier.kernel"}


def stored_unlike_now(path: Path, text: str) -> bool:
    """Whether the record ``path`` holding ``text`` is stored plain where the current code gzips it (a record
    over :data:`rfbench.engine.frames.GZIP_ABOVE_BYTES`, recorded before the threshold was lowered to it): the
    step that compresses it, a file step beside the config steps (the run keeps its id)."""
    return records.stored_gzipped(path, text) != records.stored(path).name.endswith(".gz")


@dataclass
class Migration:
    """What migrating one run changes: its folder, and the new text of each file that changes."""

    old: Path
    new: Path
    files: dict[str, str]


def migrate_config(cfg: Config) -> Config:
    """``cfg`` with every step of :data:`STEPS` applied."""
    for step in STEPS:
        cfg = step(cfg)
    return cfg


def plan(root: Path) -> list[Migration]:
    """The migration of every run below ``root`` that needs one; ValueError if two runs would collide.

    A run reached through a link out of ``root`` is left alone (the migration writes only below it).
    """
    inside = root.resolve()
    runs = [c.parent for c in sorted(root.rglob("runs/*/config.yaml")) if c.resolve().is_relative_to(inside)]
    migrations = [m for m in map(plan_run, runs) if m]
    check_collisions(root, migrations)
    return migrations


def plan_run(run: Path) -> Migration | None:
    """How the run in folder ``run`` migrates (None when it is up to date).

    A record stored in both forms (``<key>.csv`` beside ``<key>.csv.gz``: a merge of a branch that recorded it
    plain, or a switch to gzip interrupted) is a ValueError: which holds every trial is for a person to see.
    Only a config the steps can read, and that its trials were computed with, is re-id'd: an empty,
    non-mapping or unreadable one, rows of another run or a trial recorded twice are a RecordError, and
    a config that disagrees with its rows (edited by hand: its id would file their numbers under
    another config's) a ValueError.
    """
    both = [p.name for p in records.record_paths(run) if p.exists() and records.gzipped(p).exists()]
    if both:
        raise ValueError(f"{run}: {', '.join(both)} stored both plain and gzipped: a merge kept a plain record beside "
                         "its gzipped form (keep the one holding every trial, remove the other), or a switch to gzip "
                         "was interrupted (rerun the run's command); nothing was changed")
    old_cfg = records.read_config(run)
    new_cfg = migrate_config(old_cfg)
    new_id = run_id(new_cfg)
    trials = records.read_trials(run / records.INDEX, migrating_to=new_id)
    rewritten = new_id != run.name and len(trials) and (trials.get("run_id") == new_id).all()  # cut before the rename
    edited = records.disagreement(new_cfg if rewritten else old_cfg, trials)
    if edited:
        raise ValueError(f"{run}: {edited}: the config was edited after its trials ran, and migrating would file "
                         f"them under another config's id; restore it (git checkout {run / records.CONFIG}) or "
                         "move the run away; nothing was changed")
    files = {}
    if new_cfg != old_cfg:
        files["config.yaml"] = OmegaConf.to_yaml(OmegaConf.create(new_cfg))
    for path in (p for p in records.record_paths(run) if not records.stored(p).is_symlink()):
        text = records.read_text(path)
        rewritten = rewrite_csv(text, flatten(old_cfg), flatten(new_cfg), new_id)
        if rewritten != text or stored_unlike_now(path, rewritten):
            files[path.name] = rewritten
    if not files and new_id == run.name:
        return None
    return Migration(run, run.with_name(new_id), files)


def rewrite_csv(text: str, old: Mapping[str, Any], new: Mapping[str, Any], new_id: str) -> str:
    """A run's CSV with its ``run_id`` cells set to ``new_id`` and its config columns migrated.

    ``old`` and ``new`` are the flattened configs before and after the steps.  In each row a
    renamed column keeps its cell, a key whose value a step changed takes the new value, a key a
    step added gets a column (after the key before it in ``new``), a removed key loses its column;
    every other cell, such as an execution key of a row written by an earlier resume, is kept.
    """
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return text
    renamed = {o: n for o, n in RENAMED_COLUMNS.items() if o in old and n in new}
    changed = {k: _cell(v) for k, v in new.items() if k in old and old[k] != v or k not in old
               and k not in renamed.values()}
    removed = set(old) - set(new) - set(renamed)
    header = [renamed.get(c, c) for c in rows[0]]
    columns = [c for c in header if c not in removed]
    if any("." in c for c in header):  # config columns: the rows of trials.csv
        previous = None
        for key in new:
            if key not in columns and key not in old and key not in renamed.values():
                columns.insert(columns.index(previous) + 1 if previous in columns else 0, key)
            previous = key
    else:
        changed = {}
    records = [dict(zip(header, row)) for row in rows[1:]]
    for record in records:
        record.update({k: v for k, v in changed.items() if k in columns})
        if "run_id" in record:
            record["run_id"] = new_id
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([columns, *([r.get(c, "") for c in columns] for r in records)])
    return out.getvalue()


def _cell(value: Any) -> str:
    """A flattened config value as pandas writes it in a CSV cell (None: an empty cell)."""
    return "" if value is None else str(value)


def check_collisions(root: Path, migrations: list[Migration]) -> None:
    """Raise ValueError naming the runs if two would share a folder, or one would land on a run
    that stays where it is."""
    moving = {m.old for m in migrations if m.new != m.old}
    landing: dict[Path, Path] = {}
    for m in migrations:
        if m.new == m.old:
            continue
        other = landing.setdefault(m.new, m.old)
        if other != m.old or (m.new.exists() and m.new not in moving):
            clash = other if other != m.old else m.new
            raise ValueError(f"runs {clash.relative_to(root)} and {m.old.relative_to(root)} would both become "
                             f"{m.new.relative_to(root)}: resolve by hand (remove one), nothing was changed")


def apply(migrations: list[Migration]) -> None:
    """Write each run's files (atomically, its config last), then move the runs to their new folders.

    The folders move in two phases, through a hidden temporary name, so that a run may take the
    folder another run is leaving.
    """
    for m in migrations:
        # the config last: until it is written, rows with the new id agree with its migrated form (plan_run)
        for name, text in sorted(m.files.items(), key=lambda file: file[0] == records.CONFIG):
            (records.write_frame if name.endswith(".csv") else write_atomic)(m.old / name, text)
    moving = [m for m in migrations if m.new != m.old]
    for m in moving:
        m.old.rename(_staging(m))
    for m in moving:
        _staging(m).rename(m.new)


def _staging(m: Migration) -> Path:
    return m.old.with_name(f".migrating-{m.old.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rfbench.engine.migrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a results tree, e.g. results")
    parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    args = parser.parse_args(argv)
    if not args.root.is_dir():
        print(f"migrate: error: root={str(args.root)!r} is not a folder; give a results tree, e.g. results",
              file=sys.stderr)
        return 2
    try:
        with records.machine_faults():
            migrations = plan(args.root)
    except ValueError as err:  # RecordError, MachineFault
        print(f"migrate: error: {err}", file=sys.stderr)
        return 2
    for m in migrations:
        print(f"{m.old.relative_to(args.root)} -> {m.new.name}: {', '.join(m.files) or 'folder only'}")
    verb = "would migrate" if args.dry_run else "migrated"
    print(f"{verb} {len(migrations)} run(s) below {args.root}")
    if not args.dry_run:
        try:
            with records.machine_faults():
                apply(migrations)
        except records.MachineFault as err:  # a migration cut short is finished by running it again
            print(f"migrate: error: {err}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
