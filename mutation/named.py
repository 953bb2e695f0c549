"""The 11 breaking changes of issue #18 that the suite once let through, applied one at a time to
a scratch copy of the project; each must make the tests named beside it fail.

    python mutation/named.py            # all of them (the PostgreSQL one needs DATABASE_URL)
    python mutation/named.py 5 6        # some of them, by number

First the tests run once on the unchanged copy (they must pass there, or a failure would prove
nothing); then each mutation is applied — an exact text replacement, refused if the text is not
found, so a mutation cannot silently stop applying when the code moves — and its tests run. The
working tree is never touched. Exit status 1 when a mutation survives or cannot be applied.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ["memory", "dashboard", "tests", "templates", "static", "manage.py", "pyproject.toml"]


@dataclass(frozen=True)
class Mutation:
    name: str
    edits: list[tuple[str, str, str]]
    """(file, exact text, replacement)."""
    tests: list[str]
    database: str = "sqlite"
    """Where it is caught: ``sqlite`` (the embedded default) or ``postgresql``."""


def unscoped(model: str) -> tuple[str, str, str]:
    """The detail view still checks the graph in the path, then looks the object up in every
    graph."""
    return ("memory/api/v1/views.py",
            f"{model}.objects.filter(graph=self.graph(request, graph), uuid=uuid)",
            f"{model}.objects.filter(uuid=uuid, graph__isnull=not self.graph(request, graph))")


SETTINGS = "dashboard/settings.py"
IDEMPOTENCY = "memory/api/idempotency.py"
ZEP = "memory/api/zep/views.py"

MUTATIONS: list[Mutation] = [
    Mutation("v1 episode detail unscoped", [unscoped("Episode")], ["tests/api/test_access.py"]),
    Mutation("v1 fact detail unscoped", [unscoped("Fact")], ["tests/api/test_access.py"]),
    Mutation("v1 run detail unscoped", [unscoped("PipelineRun")], ["tests/api/test_access.py"]),
    Mutation("Zep tasks/{uuid} unscoped", [(
        ZEP,
        'Episode.objects.filter(uuid=task_uuid, graph__in=readable_graphs(request.user)\n'
        '                                   .values("pk"))',
        "Episode.objects.filter(uuid=task_uuid)",
    )], ["tests/api/test_access.py"]),
    Mutation("the atomic() around publishing removed", [(
        "memory/publishing.py",
        "    with transaction.atomic():\n        created = _create_observations(",
        "    if True:\n        created = _create_observations(",
    )], ["tests/memory/test_publishing.py"]),
    Mutation("the CSP replaced by default-src * and https: scripts", [(
        SETTINGS,
        '    "default-src": [CSP.SELF],\n    "script-src": [CSP.SELF, CSP.NONCE],',
        '    "default-src": ["*"],\n    "script-src": [CSP.SELF, CSP.NONCE, "https:"],',
    )], ["tests/dashboard/test_security.py"]),
    Mutation("login throttle defaults 50 / 300 / 1 s", [
        (SETTINGS, 'env_int("LOGIN_THROTTLE_PER_USERNAME", 5)',
         'env_int("LOGIN_THROTTLE_PER_USERNAME", 50)'),
        (SETTINGS, 'env_int("LOGIN_THROTTLE_PER_ADDRESS", 30)',
         'env_int("LOGIN_THROTTLE_PER_ADDRESS", 300)'),
        (SETTINGS, 'env_int("LOGIN_THROTTLE_WINDOW_SECONDS", 900)',
         'env_int("LOGIN_THROTTLE_WINDOW_SECONDS", 1)'),
    ], ["tests/dashboard/test_throttle.py"]),
    Mutation("four Zep filters silently ignored", [
        (ZEP, '    if "edge_types" in filters:\n', "    if False:\n"),
        (ZEP, '    if "episode_uuids" in filters:\n', "    if False:\n"),
        (ZEP, '        if "node_labels" in filters:\n', "        if False:\n"),
        (ZEP, '        if "date_filters" in filters:\n            observations',
         "        if False:\n            observations"),
    ], ["tests/api/test_zep_filters.py"]),
    Mutation("idempotency keys expire after 60 s", [
        (SETTINGS, 'env_int("IDEMPOTENCY_TTL_SECONDS", 24 * 3600)',
         'env_int("IDEMPOTENCY_TTL_SECONDS", 60)'),
    ], ["tests/api/test_idempotency.py"]),
    Mutation("the idempotency lease cut to 1 s", [
        (SETTINGS, 'env_int("IDEMPOTENCY_LEASE_SECONDS", 60)',
         'env_int("IDEMPOTENCY_LEASE_SECONDS", 1)'),
    ], ["tests/api/test_idempotency.py"]),
    Mutation("a key in flight on PostgreSQL no longer a 409", [(
        IDEMPOTENCY, "        if not locked:\n            raise _in_flight(1)\n", "",
    )], ["tests/api/test_idempotency.py"], database="postgresql"),
]


def copy_project(into: Path) -> None:
    for entry in COPIED:
        source = ROOT / entry
        if source.is_dir():
            shutil.copytree(source, into / entry,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, into / entry)


def apply(copy: Path, mutation: Mutation) -> str | None:
    """Apply the edits; the first that does not apply, as an error."""
    for file, old, new in mutation.edits:
        path = copy / file
        text = path.read_text()
        if text.count(old) != 1:
            return f"{file}: the text to replace is found {text.count(old)} times, not once"
        path.write_text(text.replace(old, new))
    return None


def pytest(copy: Path, tests: list[str], database: str) -> int:
    env = {**os.environ}
    env.pop("REDIS_URL", None)
    if database == "sqlite":
        env.pop("DATABASE_URL", None)
    command = ["nice", "-n", "19", sys.executable, "-m", "pytest", "-q", "-x",
               "-p", "no:cacheprovider", *tests]
    result = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True)
    return result.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("numbers", nargs="*", type=int)
    args = parser.parse_args()
    chosen = [(n, m) for n, m in enumerate(MUTATIONS, start=1)
              if not args.numbers or n in args.numbers]
    postgresql = os.environ.get("DATABASE_URL", "").startswith("postgres")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="named-mutations-") as scratch:
        clean = Path(scratch) / "clean"
        clean.mkdir()
        copy_project(clean)
        for database in sorted({m.database for _, m in chosen}):
            if database == "postgresql" and not postgresql:
                continue
            tests = sorted({t for _, m in chosen if m.database == database for t in m.tests})
            if pytest(clean, tests, database) != 0:
                print(f"the tests fail on the unchanged code ({database}): {' '.join(tests)}")
                return 1
        for number, mutation in chosen:
            label = f"{number:>2}. {mutation.name}"
            if mutation.database == "postgresql" and not postgresql:
                print(f"{label}: not run (caught on PostgreSQL: set DATABASE_URL)")
                failures += 1
                continue
            copy = Path(scratch) / f"mutant-{number}"
            copy_project(copy)
            error = apply(copy, mutation)
            if error:
                print(f"{label}: CANNOT APPLY — {error}")
                failures += 1
                continue
            code = pytest(copy, mutation.tests, mutation.database)
            caught = code == 1  # tests failed (not: collection errors, no tests)
            failures += not caught
            verdict = "caught" if caught else f"SURVIVED (pytest exit {code})"
            print(f"{label}: {verdict} by {' '.join(mutation.tests)} [{mutation.database}]",
                  flush=True)
            shutil.rmtree(copy)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
