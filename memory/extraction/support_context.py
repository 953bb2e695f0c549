"""What a support message names that is not the problem or the product it affects (issue #17,
support genre, read by ``memory.extraction.rules``): a question title that asks how to fix "this
problem" without naming it, the moment a problem shows ("crashes on start"), and the operating
system release it shows on ("on High Sierra", "on Windows 11") — the circumstances of the
problem, not its name nor the product it is in (GUIDE: ``AFFECTS`` is the product or feature
area; the platform a product runs on is never the product)."""

from __future__ import annotations

import re

_I = re.IGNORECASE

# "How to solve this problem?", "How do I fix this?", "What can I do to resolve the issue?"
_ASKS_FOR_FIX = re.compile(
    r"^(?:any\s+(?:idea|ideas|solution|solutions|help)\s+(?:on\s+|for\s+)?)?"
    r"(?:how|what)\s+(?:(?:to|do|can|could|should|would|shall|will)\s+)?"
    r"(?:(?:i|we|you|one)\s+)?(?:do\s+to\s+)?"
    r"(?:solve|fix|resolve|repair|troubleshoot|debug|overcome|handle|deal\s+with|get\s+rid\s+of"
    r"|get\s+around|work\s*around)\b\s*(?P<rest>.*?)\W*$",
    _I,
)
# Words that point at a problem without naming it.
_UNNAMED = frozenset(
    {"this", "that", "it", "the", "a", "an", "my", "our", "these", "those", "such", "same",
     "problem", "problems", "issue", "issues", "error", "errors", "bug", "bugs", "thing",
     "things", "one", "weird", "strange", "annoying", "following", "above", "please", "pls",
     "help"}
)


def asked_problem(title: str) -> str | None:
    """The problem a customer's title names: the title itself, or, when it asks how to fix
    something, what it asks about ("How to fix login not working" → "login not working");
    ``None`` when the question names no problem at all ("How to solve this problem?")."""
    asked = _ASKS_FOR_FIX.match(title.strip())
    if asked is None:
        return title
    rest = asked["rest"].strip()
    words = re.findall(r"[\w'-]+", rest.lower())
    if all(word in _UNNAMED for word in words):
        return None
    return rest


# The moment a problem shows: "crash on start", "freezes on startup", "hangs at launch".
_OCCASIONS = frozenset(
    {"start", "starts", "startup", "start-up", "starting", "launch", "launching", "boot",
     "bootup", "boot-up", "booting", "open", "opening", "close", "closing", "exit", "exiting",
     "quit", "quitting", "shutdown", "shut-down", "wake", "wakeup", "wake-up", "resume",
     "resuming", "reboot", "rebooting", "restart", "restarting", "sleep", "load", "loading",
     "first", "run", "running", "relaunch", "reopen", "init", "initialization"}
)
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "every", "each", "its", "their", "app",
                          "application"})

# Operating systems and their releases: where a problem happens, not the product it is in.
_OS_FAMILIES = frozenset(
    {"windows", "win", "macos", "mac", "osx", "os", "ios", "ipados", "android", "linux",
     "ubuntu", "debian", "fedora", "centos", "rhel", "arch", "manjaro", "mint", "wsl", "wsl2",
     "chromeos", "watchos", "tvos", "win10", "win11", "x", "pop!_os", "popos", "opensuse"}
)
_OS_RELEASES = frozenset(
    {"cheetah", "puma", "jaguar", "panther", "tiger", "leopard", "snow leopard", "lion",
     "mountain lion", "mavericks", "yosemite", "el capitan", "sierra", "high sierra", "mojave",
     "catalina", "big sur", "monterey", "ventura", "sonoma", "sequoia", "tahoe", "xp", "vista",
     "oreo", "pie", "nougat", "marshmallow", "lollipop", "kitkat"}
)
_VERSION = re.compile(r"^(?:v?\d+(?:\.\d+)*[a-z]?|\d+h\d|pro|home|enterprise|lts|beta|insider"
                      r"|preview|server|x64|x86|arm64|64-bit|32-bit)$", _I)


_ARTICLES = frozenset({"the", "a", "an", "my", "our", "your"})


def _words(phrase: str) -> list[str]:
    return [w for w in re.findall(r"[\w.!'-]+", phrase.lower()) if w not in _ARTICLES]


def names_os_release(phrase: str) -> bool:
    """ "High Sierra", "macOS Big Sur", "Windows 11", "Android 14", "Ubuntu 22.04": an
    operating system or its release, with nothing of a product in the words."""
    words = _words(phrase)
    if not words:
        return False
    family = words[0] in _OS_FAMILIES
    release = " ".join(  # "Mac OS X 10.13", "macOS 14.2.1", "Windows 10 Pro"
        w for w in words if not _VERSION.match(w) and not (family and w in _OS_FAMILIES))
    return (family and release == "") or release in _OS_RELEASES


def names_occasion(phrase: str) -> bool:
    """ "start", "startup", "launch", "the first start": when a problem shows, not where."""
    words = [w for w in _words(phrase) if w not in _DETERMINERS]
    return bool(words) and all(w in _OCCASIONS for w in words)


def is_circumstance(phrase: str) -> bool:
    """Whether what a problem was read to affect is only its circumstance: the moment it shows
    or the operating system it shows on."""
    return names_occasion(phrase) or names_os_release(phrase)
