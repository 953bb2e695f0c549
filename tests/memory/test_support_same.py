"""A customer's message in a thread reports the thread's problem only when it says they have it
(``memory.extraction.support_same``, issue #17 support precision). The sentences are the dev
corpus's (their ids in comments) and, for the classes' generality, invented ones."""

from __future__ import annotations

import pytest

from memory.extraction.support_same import same_problem_sentence, says_same_problem


@pytest.mark.parametrize("text", [
    "I have the same exact issue",  # dfm-3357-edbergavera
    "I'm having the same issue on macOS Version: Mojave 10.14.6.",  # dfm-4649-JustinCoded
    "Firefox 131.0b9 (64-bit) on Windows here, same issue.",  # bw-2364-Windyo
    "+1",
    "can confirm",
    "Same error, ubuntu 23.04",
    "I am still facing it",
    "It is also happening to me.",
    "This comes and goes on Google Chrome. Disabling the extension and enabling it again "
    "solves it everytime",  # bw-2364-mderazon-2024-09-22
    "Hey all, im having this issue today on macOS, any solutions?",
    "When I try to link it behaves exactly as pig0r described.",
    "I had the same issue on Windows 11. I fixed it for half a day by downloading the update.",
    "Me too, since this morning.",
    "same also in mine. still looping in after login and back to login form again",
])
def test_a_message_saying_the_author_has_the_threads_problem_says_so(text: str) -> None:
    assert says_same_problem(text)


@pytest.mark.parametrize("text", [
    # a fix or its thanks
    "Solved.",
    "Ok so restarting the server fixed",
    "Thank you that worked",
    "I solved this with force quitting the processes in Activity Manager.",
    "#340 helped, needed to reset to factory defaults and it came up fine.",
    "I got it working again by reinstalling.",
    # a workaround or advice
    "delete \\AppData\\Roaming\\Cursor all",
    "Try again, in my case it did work right now.",
    "Usually a hard settings in firewall can cause that, if you're using any",
    # a question
    "How did you resolve the issue?",
    "any updates on this?",
    "Hi there,\nIs it possible to downgrade to a version that doesn't have this issue?",
    # a cause found, a correction
    "FYI, the problem on my side was an internet filtering package I had installed.",
    "Update: my desktop client was outdated.",
    "My bad, it is 11.",
    "I was using a proxy in Code which got imported in Cursor too.",
    # a comparison turned to another problem
    "I'm getting an issue here as well but it's regarding authentication.",
])
def test_a_fix_a_workaround_a_question_or_a_correction_says_no_such_thing(text: str) -> None:
    assert not says_same_problem(text)


def _ticket(n: int, author: str, text: str) -> dict[str, str]:
    return {"external_id": f"t{n}", "author": author, "source": "support:acme/app",
            "content": text, "reference_time": f"2026-11-{10 + n:02d}T09:00:00+00:00",
            "url": "https://github.com/acme/app/issues/12"}


@pytest.mark.django_db
def test_a_fix_in_a_thread_goes_with_it_and_reports_nothing(graph, ingest) -> None:
    from memory.models import Fact
    from memory.pipeline import run_pipeline

    ingest(graph, [
        _ticket(1, "kim", "# Docker stuck in starting state #12"),
        _ticket(2, "lee", "I have the same problem."),
        _ticket(3, "sam", "Thank you, restarting the daemon worked."),
        _ticket(4, "ann", "How did you resolve it?"),
    ])
    run_pipeline(graph)

    reporters = sorted(f.source.name.lower() for f in Fact.objects.filter(
        graph=graph, relation="REPORTED", target__type="Issue"))
    assert reporters == ["kim", "lee"]
    resembling = Fact.objects.filter(graph=graph, relation="RESEMBLES", target__type="Issue")
    assert sorted(f.source.name.lower() for f in resembling) == ["ann", "sam"]
    assert resembling.get(source__name__iexact="sam").evidence.get().sentence.endswith(
        "[in acme/app#12, which reports Start Failures (acme/app)]")


@pytest.mark.django_db
def test_a_report_in_words_outweighs_a_thread_placed_by_its_words_alone(graph, ingest) -> None:
    from memory.models import Fact

    def at(n: int, author: str, text: str, thread: int) -> dict[str, str]:
        record = _ticket(n, author, text)
        record["url"] = f"https://github.com/acme/app/issues/{thread}"
        return record

    ingest(graph, [
        at(1, "kim", "# Hyperkit uses 100% CPU all the time #30", 30),
        at(2, "lee", "Hyperkit and its CPU all the time here, the fans spin.", 40),
        at(3, "sam", "Docker fails to start since the update.", 40),
    ])

    lee = Fact.objects.get(graph=graph, source__name__iexact="lee", target__type="Issue")
    assert lee.relation == "RESEMBLES"
    sam = Fact.objects.filter(graph=graph, source__name__iexact="sam", relation="REPORTED",
                              target__type="Issue")
    assert [f.target.name for f in sam] == ["Start Failures (acme/app)"]


def test_the_report_of_the_threads_problem_cites_the_sentence_that_says_so() -> None:
    assert same_problem_sentence(
        "so how to solve it ?  even now i updated to macOS mojave got the same issue.") == (
        "even now i updated to macOS mojave got the same issue.")
    assert same_problem_sentence("Thanks, that worked.") is None
