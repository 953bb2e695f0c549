"""``make mutation``: mutation testing of the modules that carry the product's guarantees, one
module at a time, with mutmut 3.

Each target is mutated in a scratch copy of the project (``var/mutation/<target>/``, mutmut's
``mutants/`` inside it: the working tree is never touched) against the tests that exercise it.
mutmut first records which of those tests call which function, then runs each mutant against only
the tests that reach the mutated function, fastest first, stopping at the first failure — so a
mutant costs a few tests, not the suite. Afterwards it prints, per module: mutants, killed,
survived (with no test reaching them counted as survived), the equivalent ones listed with their
reason in ``mutation/equivalent.toml``, and the share surviving; it exits 1 when a module keeps
more than 10% (``--max-surviving``) or a survivor is neither killed nor listed.

    python mutation/run.py                      # every target
    python mutation/run.py idempotency access   # some of them
    python mutation/run.py --report             # the figures of the last runs, running nothing
    python mutation/run.py publishing --only _restate,_retire   # some functions' mutants

Targets run niced, one mutant at a time (``--children``): the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, replace
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "var" / "mutation"
EQUIVALENT = ROOT / "mutation" / "equivalent.toml"
#: What the scratch copy needs besides the code: templates, static files, manage.py, the tests.
LINKED = ["memory", "dashboard", "tests", "templates", "static", "manage.py",
          # tests/dashboard/test_health.py reads the compose file's healthcheck.
          "docker-compose.yml"]
#: Tests that need services or a browser, or take minutes, are left out of mutation runs.
DESELECT = "not browser and not worker and not postgres and not slow"


@dataclass(frozen=True)
class Target:
    files: list[str]
    """Globs of the files mutated."""
    tests: list[str]
    """The tests run against them (mutmut narrows to those that reach each mutated function)."""
    functions: list[str] | None = None
    """Only the mutants of these functions (``None``: every function of the files)."""
    databases: tuple[str, ...] = ("sqlite",)
    """Where its tests run. Code with a branch per database (COPY, the advisory lock) runs on
    both: the survivors of SQLite run again on PostgreSQL (``DATABASE_URL``), and a mutant is
    killed when either kills it."""


TARGETS: dict[str, Target] = {
    # The engine is pure computation with tests of its own (no database): each module against
    # them, one at a time.
    **{f"engine.{module}": Target([f"memory/engine/{module}.py"], ["tests/memory/engine"])
       for module in ("lifecycle", "clustering", "structure", "template_summary", "types",
                      "entity_summary")},
    "time_rules": Target(["memory/time_rules.py"],
                         ["tests/memory/test_time_rules.py", "tests/memory/test_processing.py"]),
    "recording": Target(["memory/processing/recording.py"],
                        ["tests/memory/test_processing.py",
                         "tests/memory/test_processing_batches.py",
                         "tests/memory/test_time_rules.py",
                         # FactBatch and FactRecorder directly, the ends a tracker gives
                         # (FactRecorder._end_given) and the model's reading recorded over the
                         # rules' (memory.processing.revision).
                         "tests/memory/processing"],
                        # The order stored facts are read in is the database's: PostgreSQL reads
                        # them by an index (relation, target), SQLite here by id, so only there
                        # does a fact's rank (its id) decide a tie the reading order would not.
                        databases=("sqlite", "postgresql")),
    "dashboard_access": Target(["dashboard/access.py"], ["tests/dashboard"]),
    "api_access": Target(["memory/api/access.py"],
                         ["tests/api/test_access.py", "tests/api/test_graphs.py",
                          "tests/api/test_runs.py", "tests/api/test_episodes.py"]),
    "idempotency": Target(["memory/api/idempotency.py"], ["tests/api/test_idempotency.py"],
                          databases=("sqlite", "postgresql")),
    "publishing": Target(["memory/publishing.py"],
                         ["tests/memory/test_publishing.py", "tests/memory/test_pipeline.py",
                          # The stalled items' memo, written with the run's observations and
                          # read by the next run (keep_stalled_items_memo).
                          "tests/memory/test_stalled_items.py"],
                         databases=("sqlite", "postgresql")),
    "citations": Target(["memory/summarize.py"], ["tests/memory/test_summarize.py"],
                        functions=["read_summary", "read_claim", "summary_problems",
                                   "comparable"]),
}


def module_of(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def workdir(name: str, database: str) -> Path:
    return WORK / (name if database == "sqlite" else f"{name}-{database}")


def prepare(name: str, target: Target, database: str, *, fresh: bool) -> Path:
    """The scratch copy: links to the project's files and a pyproject.toml whose [tool.mutmut]
    names this target."""
    work = workdir(name, database)
    if fresh and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    for entry in LINKED:
        link = work / entry
        if not link.exists():
            link.symlink_to(ROOT / entry)
    project = (ROOT / "pyproject.toml").read_text()
    project = project.split("\n[tool.mutmut]")[0]
    settings = {
        "source_paths": ["memory", "dashboard"],
        "only_mutate": target.files,
        "also_copy": ["templates", "static", "manage.py", "docker-compose.yml"],
        "pytest_add_cli_args_test_selection": [*target.tests, "-m", DESELECT],
        # The test database built from the models, not by running the migrations: a mutant's
        # tests run in a new pytest session each, and migrating took ~8 s of each (a second
        # without); the migrations' own data steps have nothing to change in an empty database.
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "--nomigrations"],
        "use_git_change_detection": False,
    }
    lines = ["", "[tool.mutmut]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    (work / "pyproject.toml").write_text(project.rstrip() + "\n" + "\n".join(lines) + "\n")
    return work


def patterns(target: Target) -> list[str]:
    """mutmut's mutant-name patterns for the target (``module.x_function__mutmut_N``)."""
    modules = [module_of(str(p.relative_to(ROOT))) for glob in target.files
               for p in sorted(ROOT.glob(glob)) if p.name != "__init__.py"]
    if target.functions is None:
        return [f"{m}.*" for m in modules]
    # A function ``f``, a method ``ǁClassǁmethod`` or one mutant ``f__mutmut_3``.
    return [f"{m}.x{'' if f.startswith('ǁ') else '_'}{f}"
            + ("" if "__mutmut_" in f else "__mutmut_*")
            for m in modules for f in target.functions]


def run(name: str, target: Target, *, children: int, fresh: bool) -> None:
    """Run the target's mutants not yet killed: all of them the first time (or with
    ``--fresh``), afterwards the survivors and the new ones (mutmut regenerates the mutants of a
    function whose code changed), so that a new test is checked against what it should kill."""
    for database in target.databases:
        work = prepare(name, target, database, fresh=fresh)
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "dashboard.settings"}
        env.pop("REDIS_URL", None)  # tasks in-process
        if database == "sqlite":
            env.pop("DATABASE_URL", None)
        elif not env.get("DATABASE_URL", "").startswith("postgres"):
            print(f"== {name} on {database}: skipped (set DATABASE_URL)", flush=True)
            continue
        merged, own = results(name, target), results(name, target, only=database)
        again = sorted(m for m, status in merged.items() if status in ALIVE | {"not checked"})
        if merged and not again:
            print(f"== {name} on {database}: every mutant killed already", flush=True)
            continue
        if not own and database != target.databases[0]:
            again = sorted(m for m, status in merged.items() if status in ALIVE)
        command = ["nice", "-n", "19", sys.executable, "-m", "mutmut", "run",
                   "--max-children", str(children), *(again or patterns(target))]
        print(f"== {name} on {database}: {len(again) or 'all'} mutants", flush=True)
        subprocess.run(command, cwd=work, env=env, check=False)


ALIVE = {"survived", "no tests"}
KILLED = {"killed", "timeout"}
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
          34: "skipped", 36: "timeout", 37: "killed", -24: "timeout", 24: "timeout",
          152: "timeout", 255: "timeout"}


def results(name: str, target: Target, only: str | None = None) -> dict[str, str]:
    """Mutant name → status from mutmut's files of the target's last runs: killed when a run on
    any database killed it (or only on database ``only``)."""
    found: dict[str, str] = {}
    wanted = patterns(target)
    for database in target.databases if only is None else (only,):
        for meta in (workdir(name, database) / "mutants").rglob("*.py.meta"):
            exit_codes = json.loads(meta.read_text())["exit_code_by_key"]
            for mutant, code in exit_codes.items():
                if not any(fnmatch(mutant, p) for p in wanted):
                    continue
                status = "not checked" if code is None else STATUS.get(code, "suspicious")
                previous = found.get(mutant)
                if previous in {None, "not checked"} or status in KILLED:
                    found[mutant] = status if previous not in KILLED else previous
    return found


def equivalents() -> dict[str, str]:
    if not EQUIVALENT.exists():
        return {}
    return {entry["mutant"]: entry["reason"]
            for entry in tomllib.loads(EQUIVALENT.read_text()).get("equivalent", [])}


def report(names: list[str], max_surviving: float) -> int:
    known = equivalents()
    failed = 0
    print(f"\n{'module':<36} {'mutants':>7} {'killed':>7} {'timeout':>7} {'survived':>8} "
          f"{'equiv.':>6} {'surviving':>9}")
    for name in names:
        statuses = results(name, TARGETS[name])
        by_module: dict[str, Counter[str]] = {}
        for mutant, status in statuses.items():
            module = re.sub(r"\.x[_ǁ].*$", "", mutant)
            if status in {"survived", "no tests"} and mutant in known:
                status = "equivalent"
            by_module.setdefault(module, Counter())[status] += 1
        for module, counts in sorted(by_module.items()):
            total = sum(counts.values())
            alive = counts["survived"] + counts["no tests"]
            counted = total - counts["equivalent"] - counts["skipped"]
            share = alive / counted if counted else 0.0
            unfinished = counts["not checked"] + counts["suspicious"]
            flag = "" if share <= max_surviving and not unfinished else "  <-"
            failed += bool(flag)
            print(f"{module:<36} {total:>7} {counts['killed']:>7} {counts['timeout']:>7} "
                  f"{alive:>8} {counts['equivalent']:>6} {share:>8.1%}{flag}"
                  + (f" ({unfinished} not run)" if unfinished else ""))
        for mutant, status in sorted(statuses.items()):
            if status in {"survived", "no tests"} and mutant not in known:
                where = workdir(name, TARGETS[name].databases[-1])
                print(f"    survived: {mutant}  (mutmut show {mutant}, in {where})")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", metavar="target",
                        help=f"some of: {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--children", type=int, default=1)
    parser.add_argument("--fresh", action="store_true", help="start the scratch copies anew")
    parser.add_argument("--report", action="store_true", help="only print the last figures")
    parser.add_argument("--max-surviving", type=float, default=0.10)
    parser.add_argument("--only", metavar="NAMES",
                        help="run only these functions of the targets, comma-separated: f, "
                             "ǁClassǁmethod or one mutant f__mutmut_3 (the report stays whole)")
    args = parser.parse_args()
    names = args.targets or list(TARGETS)
    unknown = sorted(set(names) - set(TARGETS))
    if unknown:
        parser.error(f"no target {', '.join(unknown)}")
    if not args.report:
        for name in names:
            target = TARGETS[name]
            if args.only:
                target = replace(target, functions=args.only.split(","))
            run(name, target, children=args.children, fresh=args.fresh)
    return report(names, args.max_surviving)


if __name__ == "__main__":
    sys.exit(main())
