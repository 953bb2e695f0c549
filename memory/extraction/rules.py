"""The rules extractor: deterministic English patterns for status updates and support tickets.

It is the embedded default (DESIGN §4 step 2), so the product works with no model at all. It
knows a fixed set of phrasings (the table below); text it does not understand yields no facts,
never guessed ones. Relations come out canonical and with the ontology's direction convention
(``X blocks Y`` → ``Y DEPENDS_ON X``; ``X belongs to Bob`` → ``Bob RESPONSIBLE_FOR X``).

How a text is read
------------------
0. The text: in another language (``memory.language.words.language_of``) it is not read at all
   (no facts, ``unread`` = "language not supported"). Otherwise it is read as a document
   (``memory.language.documents``): headings, list items with their parents, wrapped lines
   joined; code blocks, tables, quotations of earlier messages, HTML comments and whatever
   follows a sign-off are never read. "Ticket from X:", "From: X" (and, for an anonymous
   episode, a signature) name the customer who wrote it. The first line "Title #N" names the
   episode's own item, else the address it was imported with (``thread``: a comment's issue, a
   pull request; ``memory.language.threads``); an issue title that says what is wrong is its
   author's report, a pull request's never. Which item tracks it and which it duplicates, and
   GitHub's other conventions ("Based on #5", "Reverts #5", "/close via #5", "Happened again
   in <link>", "Co-authored-by: …"), are read by ``memory.extraction.trackers``.
1. Sentences: split on ``.``/``!``/``?`` (not after "Inc."), per passage. A question asserts
   nothing and is skipped (a "?" or an auxiliary before its subject: "Is the API migration
   blocked"); so is a greeting or label before a colon ("Hey team, quick update: …"), a hedge
   ("I think…", "Maybe…") and a wish or plan ("We should…", "Please…"). A sentence longer than
   ``MAX_SENTENCE_LENGTH`` is not read.
   Each sentence is *masked* (``memory.language.references``): tracker references (``#123``,
   ``org/repo#123``, ``PROJ-123``, ``bug 123456``, links to issues, pull requests and tickets,
   ``@handles``) become one entity each, a title beside one its display name ("Add hygiene
   attributes (compiler-team#692)"); links, inline code and quotations become placeholders that
   are never read as claims. "X says (that) …" reads the clause X said, with X as its speaker.
2. Clauses: ``;``, ``:``, ``, which`` / ``, owned by`` (a relative clause about the noun phrase
   before it, also mid-sentence: "X, which Bob owns, is late"), ``because``/``until``/``since``
   (a *reason* clause: what the previous clause's item waits on; ``since`` before a date or an
   event is no break), ``if``/``unless`` (conditional: skipped), ``and``/``but``/``so`` between
   clauses. A bare ``and`` splits only where what precedes it has a verb, and a clause that is not
   understood whole is tried again, split at each ``and`` ("went live and customers are happy").
3. Each clause loses its event phrase (``after the nightly backfill`` → an Event that the issues
   of the sentence are ``PRECEDED_BY``), its date (``on 2026-04-28``, ``on April 28``, ``since
   March 3`` → ``valid_at``), time adverbs and fillers (``also``, ``still``, ``yesterday``...).
4. The clause is matched against the patterns in order (each gated by a word it needs, so most
   regexes never run); the first whose handler understands it wins, and a handler that declines
   leaves nothing behind. A noun phrase names an entity only if its words' parts of speech allow
   it (TextBlob's tagger: no pronoun, modal, adverb or finite verb in a name, a noun-like last
   word), and a blocker only if it can be waited on (not "unresolved concerns", "Reviewer").
   A line that names no subject is about the item above it: a list item's parent, a heading
   with a reference, or the thread's own item ("- Needs more reviews", "ACTION: Michael to
   comment", "/assign @bob", "Fixes #12"); a heading that names a team ("### Lighthouse")
   speaks for the first-person lines under it, and a heading that states a status ("PRs
   waiting on team") gives it to each referenced item under it. The heading is never an entity,
   and each fact cites its own line.
5. Each fact carries the *reading* that produced it (``memory.extraction.readings``: the
   handler, line reader or minutes hook, nested as ``about_context>action_item``) for the
   extraction bench's ``--by-reading``.
Interpretation rules (judgement calls)
--------------------------------------
* First person (I, we, our team, me, us) is the author; so is a standup line with no subject
  ("Waiting on X", "Shipped X"), and an organisation's short name in its own ticket ("Acme" for
  Acme Corp). "Our dashboard" is the author's product.
* "I'm waiting on X" needs the author's work item (the latest they reported a status of or said
  they own, else the first after); with none, nothing is invented: the fact is dropped with a note.
* Coreference: ``it``, ``this``, ``that``, ``that work``/``this project``... mean the most recent
  work item (or service, product, issue) mentioned before; ``which`` means the noun phrase before.
* Lists: "A, B and C are blocked", "Carol and I own X", "depends on X and the Y API" give one fact
  per item. Later items of a list start with a determiner or are names, so "the search and
  indexing project" stays one name.
* A status word (blocked, stalled, done...) makes a ``Status`` entity named by its canonical word:
  Blocked, Stalled, At Risk, On Track, In Progress, In Review, Approved, On Hold, Delayed,
  Slipped, Postponed, Unblocked, Reverted, Waiting; Done for the generic completion words
  (shipped, finished, live...), while a tracker's own states keep their word (Merged, Closed,
  Released, Fixed). On an ``Issue`` every completion word is Resolved.
* Only statements whose grammatical subject is the item carry its status: "X is blocked by Y" and
  "X can't move forward because Y isn't ready" say X is Blocked; "Y blocks X" only says X depends
  on Y. A status said in passing in a reason or relative clause ("…because Y is late", "Y, which
  is late") is Y's status but does not make Y the author's; "isn't ready" is no status at all.
* Negations, hedges and modals ("is not blocked", "is probably on track", "will be at risk")
  match no pattern and give nothing; "not blocked anymore" reads as "no longer blocked".
* A named third party who reports an issue (or, in a customer's ticket, uses a product or holds a
  plan) is a Customer unless the graph knows them; a named owner, assignee or team member is a
  Person (Team when the name ends with team, squad...). Known entities always decide the type.
* An issue said in a Customer's episode is reported by that customer unless someone else is named.
  "X is slow" is an issue only in a customer's ticket (from a project update it is no latency).
* Issue names are normalized so the same error matches however it is said: any HTTP status code
  ("a 502 error", "HTTP 502s", "502 Bad Gateway") → ``502 Errors``; the symptoms of the synonym
  table (``memory.extraction.symptoms``, matched on lemmas) → one name each: "times out",
  "timing out", "timed out", "timeout" → ``Timeout Errors``; "can't log in", "unable to sign
  in", "locked out of my account" → ``Login Failures``; "slow", "laggy", "takes forever" →
  ``Latency``; "down", "unavailable" → ``Outages``; crashes → ``Crashes``. "Exports keep
  failing" → ``Export Failures``; other problems keep the customer's words, subject and
  predicate ("Docker Desktop fails to start", "MagicDNS stops working"); otherwise the phrase
  without articles and intensity words ("intermittent"), with its last word plural (``a login
  bug`` → ``Login Bugs``). A customer's sentence that no pattern reads but that states a problem
  in the words of ``memory.extraction.symptoms.find_problem`` ("I noticed MagicDNS stops working
  after…") reports it, named by those words; when the episode is stored, resolution gives every
  such issue its canonical name (``memory.support.by_problem``: ``MagicDNS Failures``).
  A customer's "it's working again" / "resolved for us" closes that
  customer's ``REPORTED`` facts only; "still failing" reports the same issue again.
* Relative dates ("last month", "last Monday") give no ``valid_at``; they are only removed.

Phrasings covered
-----------------
Each row is a test (``tests/memory/test_extraction_rules.py`` reads this table). Rows in the
*plan*, *support* and *event* categories are written by the customer **Acme Corp**; every other
row by **Alice** (a Person). The reference time is 2026-05-08 UTC. Facts are ``source RELATION
target`` separated by ``;``; ``@date`` is an explicit ``valid_at``; ``closes S REL T`` is a
closure (``*``: any target); ``—`` means nothing is extracted.

| # | category | example sentence | facts produced |
|---|---|---|---|
| 1 | ownership | I'm working on the search revamp. | Alice RESPONSIBLE_FOR Search Revamp |
| 2 | ownership | I own the billing migration. | Alice RESPONSIBLE_FOR Billing Migration |
| 3 | ownership | I'm leading the data pipeline rewrite. | Alice RESPONSIBLE_FOR Data Pipeline Rewrite |
| 4 | ownership | Bob owns the payments integration. | Bob RESPONSIBLE_FOR Payments Integration |
| 5 | ownership | The payments integration is owned by Bob. | Bob RESPONSIBLE_FOR Payments Integration |
| 6 | ownership | The payments integration is blocked. That work belongs to Bob. | Bob RESPONSIBLE_FOR Payments Integration; Payments Integration HAS_STATUS Blocked |
| 7 | ownership | The search revamp depends on the indexing service, which the platform team owns. | Search Revamp DEPENDS_ON Indexing Service; Platform Team RESPONSIBLE_FOR Indexing Service |
| 8 | ownership | The API migration is waiting for the auth service refactor from the backend team. | API Migration DEPENDS_ON Auth Service Refactor; Backend Team RESPONSIBLE_FOR Auth Service Refactor |
| 9 | ownership | Dana is responsible for the onboarding flow. | Dana RESPONSIBLE_FOR Onboarding Flow |
| 10 | ownership | I've been assigned the SSO rollout. | Alice RESPONSIBLE_FOR SSO Rollout |
| 11 | ownership | The SSO rollout is assigned to Erin. | Erin RESPONSIBLE_FOR SSO Rollout |
| 12 | ownership | Frank took over the export feature. | Frank RESPONSIBLE_FOR Export Feature |
| 13 | ownership | The payments integration is blocked. Bob owns it. | Bob RESPONSIBLE_FOR Payments Integration; Payments Integration HAS_STATUS Blocked |
| 14 | ownership | Carol and I are working on the onboarding flow. | Carol RESPONSIBLE_FOR Onboarding Flow; Alice RESPONSIBLE_FOR Onboarding Flow |
| 15 | ownership | I'm working with Bob on the API migration. | Alice RESPONSIBLE_FOR API Migration; Bob RESPONSIBLE_FOR API Migration |
| 16 | ownership | The auth service refactor, owned by the backend team, is at risk. | Backend Team RESPONSIBLE_FOR Auth Service Refactor; Auth Service Refactor HAS_STATUS At Risk |
| 17 | membership | I'm on the platform team. | Alice MEMBER_OF Platform Team |
| 18 | membership | Grace joined the data team. | Grace MEMBER_OF Data Team |
| 19 | membership | Heidi is a member of the mobile team. | Heidi MEMBER_OF Mobile Team |
| 20 | membership | Dana moved to the platform team. | Dana MEMBER_OF Platform Team |
| 21 | dependency | The API migration is blocked. I'm waiting on the auth service refactor. | Alice RESPONSIBLE_FOR API Migration; API Migration HAS_STATUS Blocked; API Migration DEPENDS_ON Auth Service Refactor |
| 22 | dependency | The search revamp is blocked by the indexing service. | Alice RESPONSIBLE_FOR Search Revamp; Search Revamp HAS_STATUS Blocked; Search Revamp DEPENDS_ON Indexing Service |
| 23 | dependency | The search revamp is blocked on the indexing service. | Alice RESPONSIBLE_FOR Search Revamp; Search Revamp HAS_STATUS Blocked; Search Revamp DEPENDS_ON Indexing Service |
| 24 | dependency | The mobile release depends on the payments API. | Mobile Release DEPENDS_ON Payments API |
| 25 | dependency | The checkout flow needs the payments integration. | Checkout Flow DEPENDS_ON Payments Integration |
| 26 | dependency | The checkout flow can't move forward until the payments integration is ready. | Alice RESPONSIBLE_FOR Checkout Flow; Checkout Flow HAS_STATUS Blocked; Checkout Flow DEPENDS_ON Payments Integration |
| 27 | dependency | The checkout flow can't move forward because the payments integration isn't ready. | Alice RESPONSIBLE_FOR Checkout Flow; Checkout Flow HAS_STATUS Blocked; Checkout Flow DEPENDS_ON Payments Integration |
| 28 | dependency | The auth service refactor is blocking the API migration. | API Migration DEPENDS_ON Auth Service Refactor |
| 29 | dependency | The auth service refactor blocks the payments integration. | Payments Integration DEPENDS_ON Auth Service Refactor |
| 30 | dependency | The mobile release is waiting for the payments API. | Mobile Release DEPENDS_ON Payments API |
| 31 | dependency | The data pipeline rewrite is stalled because we're waiting on the warehouse migration. | Alice RESPONSIBLE_FOR Data Pipeline Rewrite; Data Pipeline Rewrite HAS_STATUS Stalled; Data Pipeline Rewrite DEPENDS_ON Warehouse Migration |
| 32 | dependency | I'm waiting on the auth service refactor. | — |
| 33 | dependency | The API migration depends on the auth service refactor and the payments API. | API Migration DEPENDS_ON Auth Service Refactor; API Migration DEPENDS_ON Payments API |
| 34 | dependency | The API migration is blocked by the auth service refactor, which is delayed. | Alice RESPONSIBLE_FOR API Migration; API Migration HAS_STATUS Blocked; API Migration DEPENDS_ON Auth Service Refactor; Auth Service Refactor HAS_STATUS Delayed |
| 35 | dependency | Waiting on the auth service refactor, so the API migration is stalled. | Alice RESPONSIBLE_FOR API Migration; API Migration HAS_STATUS Stalled; API Migration DEPENDS_ON Auth Service Refactor |
| 36 | status | The API migration is blocked. | Alice RESPONSIBLE_FOR API Migration; API Migration HAS_STATUS Blocked |
| 37 | status | The payments integration is stalled. | Alice RESPONSIBLE_FOR Payments Integration; Payments Integration HAS_STATUS Stalled |
| 38 | status | The data pipeline rewrite is at risk. | Alice RESPONSIBLE_FOR Data Pipeline Rewrite; Data Pipeline Rewrite HAS_STATUS At Risk |
| 39 | status | The search revamp is on track. | Alice RESPONSIBLE_FOR Search Revamp; Search Revamp HAS_STATUS On Track |
| 40 | status | The billing migration is in progress. | Alice RESPONSIBLE_FOR Billing Migration; Billing Migration HAS_STATUS In Progress |
| 41 | status | The mobile release is on hold. | Alice RESPONSIBLE_FOR Mobile Release; Mobile Release HAS_STATUS On Hold |
| 42 | status | The SSO rollout is delayed since March 3. | Alice RESPONSIBLE_FOR SSO Rollout; SSO Rollout HAS_STATUS Delayed @2026-03-03 |
| 43 | status | The checkout flow is stuck. | Alice RESPONSIBLE_FOR Checkout Flow; Checkout Flow HAS_STATUS Blocked |
| 44 | status | The API migration was blocked, but it's on track now. | Alice RESPONSIBLE_FOR API Migration; API Migration HAS_STATUS On Track |
| 45 | status | The API migration, the payments integration and the checkout flow are blocked. | Alice RESPONSIBLE_FOR API Migration; API Migration HAS_STATUS Blocked; Alice RESPONSIBLE_FOR Payments Integration; Payments Integration HAS_STATUS Blocked; Alice RESPONSIBLE_FOR Checkout Flow; Checkout Flow HAS_STATUS Blocked |
| 46 | status | Hey team, quick update: the search revamp is on track. | Alice RESPONSIBLE_FOR Search Revamp; Search Revamp HAS_STATUS On Track |
| 47 | completion | The backend team shipped the auth service refactor. | Backend Team RESPONSIBLE_FOR Auth Service Refactor; Auth Service Refactor HAS_STATUS Done |
| 48 | completion | The auth service refactor was shipped by the backend team. | Backend Team RESPONSIBLE_FOR Auth Service Refactor; Auth Service Refactor HAS_STATUS Done |
| 49 | completion | The auth service refactor shipped. | Alice RESPONSIBLE_FOR Auth Service Refactor; Auth Service Refactor HAS_STATUS Done |
| 50 | completion | The export feature is done. | Alice RESPONSIBLE_FOR Export Feature; Export Feature HAS_STATUS Done |
| 51 | completion | We finished the data pipeline rewrite. | Alice RESPONSIBLE_FOR Data Pipeline Rewrite; Data Pipeline Rewrite HAS_STATUS Done |
| 52 | completion | The mobile release has been released. | Alice RESPONSIBLE_FOR Mobile Release; Mobile Release HAS_STATUS Released |
| 53 | completion | The onboarding flow is live. | Alice RESPONSIBLE_FOR Onboarding Flow; Onboarding Flow HAS_STATUS Done |
| 54 | completion | Shipped the billing migration! | Alice RESPONSIBLE_FOR Billing Migration; Billing Migration HAS_STATUS Done |
| 55 | completion | The release went live on Tuesday and customers are happy. | Alice RESPONSIBLE_FOR Release; Release HAS_STATUS Done |
| 56 | unblocked | The API migration is back on track. I'm no longer waiting on the auth service refactor. | Alice RESPONSIBLE_FOR API Migration; API Migration HAS_STATUS On Track; closes API Migration DEPENDS_ON Auth Service Refactor |
| 57 | unblocked | The payments integration is no longer blocked on the auth service refactor. | closes Payments Integration DEPENDS_ON Auth Service Refactor |
| 58 | unblocked | The checkout flow is unblocked. | Alice RESPONSIBLE_FOR Checkout Flow; Checkout Flow HAS_STATUS Unblocked; closes Checkout Flow DEPENDS_ON * |
| 59 | unblocked | The auth service refactor is no longer blocking the API migration. | closes API Migration DEPENDS_ON Auth Service Refactor |
| 60 | unblocked | I'm no longer waiting on the auth service refactor. | — |
| 61 | plan | We upgraded to Enterprise on 2026-04-28. | Acme Corp ON_PLAN Enterprise @2026-04-28 |
| 62 | plan | Acme Corp is on the Standard plan. | Acme Corp ON_PLAN Standard |
| 63 | plan | We downgraded to the Pro plan. | Acme Corp ON_PLAN Pro |
| 64 | plan | Initech moved to the Business plan last month. | Initech ON_PLAN Business |
| 65 | plan | We switched from Pro to the Team plan on April 28. | Acme Corp ON_PLAN Team @2026-04-28 |
| 66 | plan | We have the Pro plan. | Acme Corp ON_PLAN Pro |
| 67 | plan | We moved from Pro to Enterprise on 3 May 2026. | Acme Corp ON_PLAN Enterprise @2026-05-03 |
| 68 | support | We're seeing 502 errors on the checkout page. | Acme Corp REPORTED 502 Errors; 502 Errors AFFECTS Checkout Page |
| 69 | support | Exports fail with timeout errors. | Acme Corp REPORTED Timeout Errors; Timeout Errors AFFECTS Exports |
| 70 | support | Globex reported timeout errors in the billing dashboard. | Globex REPORTED Timeout Errors; Timeout Errors AFFECTS Billing Dashboard |
| 71 | support | Our dashboard has been throwing 500 errors. | Acme Corp REPORTED 500 Errors; 500 Errors AFFECTS Dashboard |
| 72 | support | We keep getting HTTP 502s. | Acme Corp REPORTED 502 Errors |
| 73 | support | Requests time out on the export. | Acme Corp REPORTED Timeout Errors; Timeout Errors AFFECTS Export |
| 74 | support | Our users can't log in to the mobile app. | Acme Corp REPORTED Login Failures; Login Failures AFFECTS Mobile App |
| 75 | support | The 502 errors are resolved. | 502 Errors HAS_STATUS Resolved |
| 76 | support | Hi, our exports keep failing. | Acme Corp REPORTED Export Failures; Export Failures AFFECTS Exports |
| 77 | support | The checkout page is slow. | Acme Corp REPORTED Latency; Latency AFFECTS Checkout Page |
| 78 | support | The dashboard is down! | Acme Corp REPORTED Outages; Outages AFFECTS Dashboard |
| 79 | support | Customer Globex is seeing timeouts too. | Globex REPORTED Timeout Errors |
| 80 | support | Acme uses Slack and Jira. | Acme Corp USES Slack; Acme Corp USES Jira |
| 81 | event | The timeouts started after the nightly backfill. | Acme Corp REPORTED Timeout Errors; Timeout Errors PRECEDED_BY Nightly Backfill |
| 82 | event | Since the Tuesday deploy we get 502 errors. | Acme Corp REPORTED 502 Errors; 502 Errors PRECEDED_BY Tuesday Deploy |
| 83 | event | We see 502 Bad Gateway on the checkout page following the nightly backfill. | Acme Corp REPORTED 502 Errors; 502 Errors AFFECTS Checkout Page; 502 Errors PRECEDED_BY Nightly Backfill |
| 84 | event | We're on Enterprise and still seeing 504 Gateway Timeout errors in the reporting API after the maintenance window. | Acme Corp ON_PLAN Enterprise; Acme Corp REPORTED 504 Errors; 504 Errors AFFECTS Reporting API; 504 Errors PRECEDED_BY Maintenance Window |
| 85 | event | Since the May 3 deploy, uploads fail with 413 errors. | Acme Corp REPORTED 413 Errors; 413 Errors AFFECTS Uploads; 413 Errors PRECEDED_BY May 3 Deploy |
| 86 | usage | We use the reporting API. | Alice USES Reporting API |
| 87 | usage | The checkout flow runs on the payments API. | Checkout Flow USES Payments API |
| 88 | none | Lunch was great today. See you all on Friday! | — |
| 89 | none | The auth service refactor depends on the auth service refactor. | — |
| 90 | none | Is the API migration blocked? | — |
| 91 | none | If the auth service refactor slips, the API migration will be at risk. | — |
| 92 | none | The API migration is not blocked. | — |
| 93 | none | I think the search revamp is probably on track. | — |
| 94 | none | Progress on the API migration is slow. | — |
| 95 | dependency | The checkout flow can't move forward because the billing migration isn't ready. | Alice RESPONSIBLE_FOR Checkout Flow; Checkout Flow HAS_STATUS Blocked; Checkout Flow DEPENDS_ON Billing Migration |
| 96 | dependency | The analytics dashboard is blocked until the database upgrade is done. | Alice RESPONSIBLE_FOR Analytics Dashboard; Analytics Dashboard HAS_STATUS Blocked; Analytics Dashboard DEPENDS_ON Database Upgrade |
| 97 | support | We're no longer seeing 502 errors. | closes Acme Corp REPORTED 502 Errors |
| 98 | support | Our webhook deliveries keep failing. | Acme Corp REPORTED Webhook Delivery Failures; Webhook Delivery Failures AFFECTS Webhook Deliveries |
"""  # noqa: E501 (the table's rows are as long as their examples)

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import NamedTuple

from memory.extraction import ExtractedClosure, ExtractedEntity, ExtractedFact, Extraction
from memory.extraction.affiliations import in_capitals
from memory.extraction.assertions import (
    asserts,
    describes_its_fix,
    names_a_document,
    names_a_group,
    names_something_new,
    states_a_fact,
    states_a_status,
    unchecked_goals,
    without_struck_text,
)
from memory.extraction.headings import under_speaker_label
from memory.extraction.minutes import minutes_speaker, standup_owner
from memory.extraction.names_evidence import can_name, names_an_amount, waits_in_person
from memory.extraction.readings import ReadingStack, reading
from memory.extraction.support_context import asked_problem, is_circumstance
from memory.extraction.support_products import (
    names_product_inside,
    product_in_use,
    product_versions_in_use,
    product_words,
)
from memory.extraction.support_reports import (
    a_consequence,
    explained,
    one_report_per_problem,
    titled_context,
    whole_product_fails,
)
from memory.extraction.symptoms import (
    SYMPTOMS,
    find_problem,
    find_symptom,
    problem_name,
    same_issue_of_an_area,
    slow_action,
    tokens_after,
)
from memory.extraction.symptoms import tokens as _symptom_tokens
from memory.extraction.trackers import (
    TRACKER_RELEASED,
    co_author,
    hedged,
    name_own_item,
    plain_emphasis,
    read_author_claims,
    read_item_links,
    read_own_states,
)
from memory.language.documents import Document, Passage, read_document
from memory.language.references import PLACEHOLDER, Reference, mask, title_line
from memory.language.threads import Thread, same_item
from memory.language.words import is_common_word, language_of, tag, without_manner_adverbs
from memory.names import author_name, display_name, normalize_name
from memory.ontology import Ontology, default_ontology

RULES_EXTRACTOR = "rules@1"
UNREAD_RULES = "not understood by the rules extractor"
UNREAD_LANGUAGE = "language not supported"

RESPONSIBLE_FOR = "RESPONSIBLE_FOR"
MEMBER_OF = "MEMBER_OF"
DEPENDS_ON = "DEPENDS_ON"
HAS_STATUS = "HAS_STATUS"
REPORTED = "REPORTED"
AFFECTS = "AFFECTS"
PRECEDED_BY = "PRECEDED_BY"
ON_PLAN = "ON_PLAN"
USES = "USES"

# ------------------------------------------------------------------------------------ vocabulary

# Last words that decide what kind of thing a noun phrase names.
_TEAM_HEADS = frozenset(
    {"team", "teams", "squad", "org", "organization", "organisation", "group", "department",
     "guild", "crew", "tribe", "chapter"}
)
_WORK_HEADS = frozenset(
    {"migration", "integration", "refactor", "refactoring", "flow", "rollout", "project",
     "feature", "launch", "upgrade", "redesign", "revamp", "epic", "task", "fix", "release",
     "cleanup", "rewrite", "onboarding", "implementation", "work", "initiative", "pipeline",
     "report", "reports", "dashboard", "overhaul", "milestone", "audit", "prototype", "spike",
     "story", "ticket", "workstream", "effort", "port", "build", "deprecation", "consolidation"}
)
_SERVICE_HEADS = frozenset(
    {"service", "services", "api", "apis", "gateway", "database", "db", "cluster", "queue",
     "server", "backend", "cache", "broker", "microservice", "endpoint", "worker", "workers"}
)
_ISSUE_HEADS = frozenset(
    {"error", "errors", "failure", "failures", "crash", "crashes", "outage", "outages", "bug",
     "bugs", "exception", "exceptions", "latency", "slowness", "slowdown", "slowdowns",
     "timeout", "timeouts", "incident", "incidents"}
)
_EVENT_HEADS = (
    "backfill", "deploy", "deployment", "release", "maintenance", "migration", "upgrade",
    "restart", "sync", "import", "batch", "job", "cron", "update", "change",
)
_ORG_SUFFIXES = frozenset(
    {"inc", "corp", "corporation", "ltd", "llc", "gmbh", "co", "labs", "plc", "ag", "limited",
     "company", "pty", "bv", "sa", "sas", "srl", "oy", "ab"}
)
_PLAN_WORDS = frozenset(
    {"free", "starter", "basic", "standard", "pro", "professional", "business", "team",
     "premium", "enterprise", "growth", "plus", "scale", "ultimate"}
)
# "The checkout flow needs X" — these subjects mean too little to become a surface.
_GENERIC_SUBJECTS = frozenset(
    {"requests", "request", "calls", "api calls", "queries", "connections", "things",
     "everything", "users", "customers", "people", "we", "i", "it"}
)
# Single words too vague to be an entity on their own.
_VAGUE_NOUNS = frozenset(
    {"something", "anything", "everything", "nothing", "someone", "anyone", "everyone",
     "nobody", "time", "help", "more", "things", "stuff", "all", "team", "work", "lunch",
     "today", "tomorrow", "yesterday", "you", "them", "feedback", "progress", "that", "this",
     "it", "one", "way", "lot", "monday", "tuesday", "wednesday", "thursday", "friday",
     "saturday", "sunday"}
)
# A change named by its kind alone ("Merged PR that …"): which one? ("the auth PR" is one.)
_BARE_CHANGES = frozenset({"pr", "prs", "patch", "commit", "change", "changes"})
# A problem or a document named by its kind alone refers to one named elsewhere ("Yesterday
# the bug was back", "Spec has been stalled in phase 2", "Pending Issues"); so does one that
# is "the same" or "similar" ("Same error, ubuntu 23.04"): which one, the words do not say.
_REFERRING_NOUNS = frozenset({"bug", "bugs", "issue", "issues", "error", "errors", "problem",
                              "problems", "spec", "specs"})
_REFERRING_WORDS = frozenset({"same", "similar"})
# Words that cannot be part of a noun phrase: when they appear, the pattern read the clause wrong.
_NOT_IN_NOUN_PHRASE = frozenset(
    {"i", "we", "you", "they", "he", "she", "me", "us", "him", "them", "is", "are", "was",
     "were", "am", "be", "been", "being", "will", "would", "should", "could", "can", "cannot",
     "not", "no", "do", "does", "did", "has", "have", "had", "if", "when", "because", "until",
     "while", "who", "what", "why", "how", "there", "here", "which", "whose", "whom", "so",
     "but", "than", "then", "as", "see", "get", "got", "getting", "seeing", "throwing",
     "failing", "waiting", "blocked", "working"}
)
_LEADING_PREPOSITIONS = frozenset(
    {"to", "on", "in", "at", "for", "with", "from", "by", "of", "about", "into", "onto", "over",
     "under", "after", "before", "since", "until"}
)
_DETERMINERS = frozenset({"the", "a", "an", "our", "my", "their", "his", "her", "its", "your"})
_FIRST_PERSON = frozenset({"i", "we", "me", "us", "myself", "ourselves", "our team", "my team"})
_POSSESSIVE_FIRST_PERSON = ("our ", "my ")
# "it", "that work", "this project"... — the most recent thing mentioned.
_PRONOUNS = frozenset({"it", "this", "that", "the latter"})
_PRONOUN_NOUNS = frozenset(
    {"work", "one", "project", "item", "task", "ticket", "piece", "effort", "initiative",
     "workstream", "feature"}
)
_INTENSITY_WORDS = frozenset(
    {"a", "an", "the", "some", "many", "lots", "of", "frequent", "intermittent", "occasional",
     "constant", "random", "several", "more", "recurring", "repeated", "high", "huge", "bad",
     "terrible", "massive", "severe", "new", "these", "those", "our", "my", "sporadic"}
)
_THINGS = frozenset({"WorkItem", "Service", "Product", "Issue"})
# Last words of what nobody can be "blocked on" as a work item (singular).
# Teams written as slugs: Kubernetes' "sig-scheduling", "wg-batch", Rust's "t-compiler".
_TEAM_SLUG = re.compile(r"^(?:sig|wg|t|team|ug|committee)-[a-z0-9-]+$|^[a-z0-9-]+-(?:team|sig|wg)$")
_ABSTRACT_HEADS = frozenset(
    {"concern", "feedback", "review", "reviewer", "approval", "decision", "consensus",
     "discussion", "input", "response", "answer", "reply", "confirmation", "clarification",
     "info", "information", "detail", "time", "help", "resource", "capacity", "bandwidth",
     "budget", "people", "someone", "agreement", "signoff", "sign-off", "go-ahead", "permission",
     "author", "maintainer", "team", "member", "owner", "vote", "comment", "question", "issue",
     "problem", "thing", "stuff", "other", "something", "reason", "test", "ci", "merge", "rebase",
     "example", "repro", "reproduction", "mcve", "testcase", "fcp", "nomination",
     "meeting", "call", "sync", "update", "news", "word", "go", "green", "light"}
)
_AGENTS = frozenset({"Person", "Team", "Customer"})

# Status phrase (lower case) → canonical status word (displayed with display_name).
_STATUS_WORDS: dict[str, str] = {
    "blocked": "blocked", "stuck": "blocked", "held up": "blocked",
    "stalled": "stalled",
    "at risk": "at risk",
    "on track": "on track", "on schedule": "on track",
    "in progress": "in progress", "underway": "in progress", "under way": "in progress",
    "in flight": "in progress", "work in progress": "in progress", "wip": "in progress",
    "going well": "in progress", "almost complete": "in progress", "almost done": "in progress",
    "nearly complete": "in progress", "nearly done": "in progress",
    "mostly complete": "in progress", "mostly done": "in progress",
    "largely complete": "in progress", "largely done": "in progress",
    "partially complete": "in progress", "partially done": "in progress",
    "partly done": "in progress", "mostly finished": "in progress",
    "almost finished": "in progress", "progressing": "in progress",
    "on hold": "on hold", "paused": "on hold",
    "delayed": "delayed", "behind schedule": "delayed", "behind": "delayed", "late": "delayed",
    "slipping": "slipped", "slipped": "slipped",
    "postponed": "postponed", "deferred": "postponed", "pushed back": "postponed",
    # Completion: the generic words are Done; a tracker's own states keep their word (a PR is
    # merged, an issue closed, a version released). All of them end what waits on the item.
    "done": "done", "complete": "done", "completed": "done", "finished": "done",
    "shipped": "done", "launched": "done", "live": "done", "delivered": "done",
    "wrapped up": "done", "went live": "done",
    "merged": "merged", "landed": "merged", "implemented": "done",
    "released": "released", "closed": "closed", "fixed": "fixed", "resolved": "resolved",
    "unblocked": "unblocked",
    "reverted": "reverted", "backed out": "reverted", "rolled back": "reverted",
    "in review": "in review", "under review": "in review", "needs review": "in review",
    "awaiting review": "in review", "ready for review": "in review",
    "waiting for review": "in review", "waiting on review": "in review",
    "approved": "approved", "accepted": "accepted", "rejected": "rejected",
    "declined": "rejected", "flaky": "flaky", "flaking": "flaky", "stale": "stale",
}
_DONE, _RESOLVED, _BLOCKED = "done", "resolved", "blocked"
_COMPLETE = frozenset({"done", "merged", "released", "closed", "fixed", "resolved"})
_MONTHS: dict[str, int] = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "oct": 10, "nov": 11, "dec": 12,
}

# ---------------------------------------------------------------------------- regex fragments

_I = re.IGNORECASE


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_BE = (r"(?:is|are|am|was|were|has been|have been|had been|been|remains|remain|seems|seem"
       r"|looks|look|got|gets|get|went)")
_STATUS_ALT = "|".join(sorted((re.escape(s) for s in _STATUS_WORDS), key=len, reverse=True))
_MONTH_ALT = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
              r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
_WEEKDAY_ALT = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_EVENT_ALT = "|".join(_EVENT_HEADS)
_READY = (r"ready|done|finished|complete|completed|shipped|merged|live|available|landed|released"
          r"|deployed|in place|fixed|resolved|unblocked|out|in")
_SURFACE_PREP = (r"on|in|with|from|at|for|when using|when opening|when loading|while using"
                 r"|when we use|when we open")
_QUANTITY = (r"(?:(?:a lot of|lots of|many|some|frequent|intermittent|occasional|constant|random"
             r"|several|more|sporadic) )?")

# ------------------------------------------------------------------------------ text cleaning

# Curly quotes and dashes as typed by phones and word processors.
_TYPOGRAPHY = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"}
)
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)")
_CONTRACTION = re.compile(
    r"\b(?:can't|can not|won't|wont|I'm|it's|that's|there's|he's|she's|what's)\b"
    r"|n't\b|'re\b|'ve\b|'ll\b|'d\b",
    _I,
)
_CONTRACTIONS = {
    "can't": "cannot", "can not": "cannot", "won't": "will not", "wont": "will not",
    "i'm": "I am", "it's": "it is",
    "that's": "that is", "there's": "there is", "he's": "he is", "she's": "she is",
    "what's": "what is", "n't": " not", "'re": " are", "'ve": " have", "'ll": " will",
    "'d": " would",
}
# Words that change nothing a rule reads ("I'm *also* waiting", "it is *now* live").
_FILLER = re.compile(
    r"\s*\b(?:also|still|currently|now|really|just|finally|officially|actually|already|again"
    r"|unfortunately|basically|totally|fully|completely|effectively|as well|too|primarily"
    r"|mainly)\b"
    # ("mostly complete" is still in progress: a degree of a completion is kept)
    r"|\s*\b(?:mostly|largely)\b(?!\s+(?:complete|done|finished))",
    _I,
)
# "not blocked anymore" says the same as "no longer blocked".
# "But autofill does not work", "Even the terminal will not open": a word that links the
# sentence to the one before says nothing a rule reads.
_DISCOURSE = re.compile(r"^(?:but|and|even|plus|however|then|yet|and now|but now),?\s+(?=\w)", _I)
_NOT_ANYMORE = re.compile(
    r"\b(is|are|am) not (blocked|waiting|stuck|held up)\b(.*?)\s*\bany ?more\b", _I
)
_ADVERBIAL = re.compile(
    r"(?:,\s*)?\b(?:yesterday|today|tonight|recently|so far|at the moment|right now|anymore"
    r"|this (?:morning|afternoon|evening|week|sprint|month|quarter)"
    rf"|(?:last|this|next|on) (?:night|week|month|sprint|quarter|year|{_WEEKDAY_ALT})"
    r"|earlier(?: today| this week)?|on time|ahead of schedule|in (?:production|prod|staging)"
    r"|to (?:production|prod|staging|everyone|all (?:users|customers))|yet"
    r"|for (?:a|an|one|two|three|four|five|six|several|a few|\d+) (?:days?|weeks?|months?"
    r"|hours?|sprints?)"
    r"|for (?:all|some|many|most|several) (?:of )?(?:our )?(?:users|customers|accounts)"
    r"|for (?:us|me|our team|our users|our customers|everyone here))\b",
    _I,
)
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9']+")
_DIGIT = re.compile(r"\d")
# Words without which a cleaning regex has nothing to do (checked on a set: far cheaper).
_FILLER_WORDS = _word_set(
    "also still currently now really just finally officially actually already again"
    " unfortunately basically totally fully completely effectively well too primarily mainly"
    " mostly largely"
)
_ADVERBIAL_WORDS = _word_set(
    "yesterday today tonight recently far moment now anymore morning afternoon evening week"
    " sprint month quarter year night monday tuesday wednesday thursday friday saturday sunday"
    " earlier time schedule production prod staging everyone users customers yet days day"
    " weeks hours hour months sprints accounts us me team"
)
_EVENT_WORDS = frozenset({"since", "after", "following"})
_TRIM = " \t,.;:!?\"'"

# ------------------------------------------------------------------------- sentences, clauses

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ABBREVIATION_END = re.compile(
    r"\b(?:inc|corp|ltd|co|e\.g|i\.e|vs|etc|approx|no|mr|mrs|ms|dr)\.$", _I
)
# What may follow a bare "and" for it to start a new clause: a pronoun, or a short noun phrase
# followed by a verb ("and the backend team owns it"). "the search and indexing project" stays.
_VERBISH = (r"(?:is|are|was|were|am|has|have|had|owns|leads|needs|depends|blocks|shipped"
            r"|finished|joined|took|cannot|can|will|reported|uses|belongs|started|keeps)")
_CLAUSE_START = (  # "Carol and I are…" is one subject, not two clauses
    rf"(?:I(?!\s+are\b)|we|it|they|he|she|you|that work|this work)\b"
    rf"|(?:the|our|my|their|a|an|(?!I\s)[A-Z][\w'-]*)\s+(?:[\w'-]+\s+){{0,4}}?{_VERBISH}\b"
)
# "We're on Enterprise and (are) seeing 504s": the second verb shares the first-person subject.
_SHARED_SUBJECT_VERB = (r"(?:(?:am|are|have been) )?(?:seeing|getting|hitting|experiencing"
                        r"|waiting|working|leading|blocked|stuck|running into)\b")
_A_DATE = (
    rf"(?:on\s+)?(?:{_MONTH_ALT})\.?\s+\d|\d{{4}}-\d"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTH_ALT})"
    rf"|last\s|yesterday|this\s|{_WEEKDAY_ALT}"
)
_AN_EVENT = rf"(?:the\s+|a\s+|an\s+|our\s+)?(?:[\w'-]+\s+){{0,3}}?(?:{_EVENT_ALT})s?\b"
# "until March 3" and "since the nightly backfill" are times, not reasons: the clause does not
# break there. Only "since" can introduce an event; "because the billing migration isn't ready"
# is a reason even though "migration" can name an event.
_NOT_A_DATE = rf"(?!(?i:{_A_DATE}))"
_NOT_A_DATE_OR_EVENT = rf"(?!(?i:{_A_DATE}|{_AN_EVENT}))"
_CLAUSE_BREAK = re.compile(
    r"(?=[\s,;:])(?:"  # every break starts at a space or a mark: other positions fail at once
    r"\s*;\s*"
    rf"|,?\s+(?P<reason>because\s+|until\s+{_NOT_A_DATE}|since\s+{_NOT_A_DATE_OR_EVENT})"
    r"|,?\s+(?P<relative>which)\s+"
    r"|,\s+(?P<reduced>(?=(?:owned|led|run|maintained|handled|driven) by\b))"
    r"|\s+(?P<conditional>if|unless)\s+"
    r"|\s*:\s+"
    rf"|,?\s+and\s+(?P<shared>(?={_SHARED_SUBJECT_VERB}))"
    r"|,\s+(?P<serial>and)\s+|,\s+(?:but|so)\s+|\s+(?:but|so)\s+"
    rf"|\s+(?P<plain>and)\s+(?={_CLAUSE_START})"
    r"|,\s+(?=(?:I|we|it|they|that work|this work)\s)"
    # "Released the benchmark last week, profiled all clients": the next done item
    r"|,\s+(?=(?:profiled|published|released|merged|fixed|added|implemented|finished"
    r"|completed|opened|closed|shipped|landed|wrote|created|launched|delivered)\s))"
)
# "Hi team, …" / "Quick update - …": a greeting says nothing.
_GREETING = re.compile(
    r"^(?:hi|hey|hello|ok|okay|fyi|update|quick update|status update|heads up|morning"
    r"|ugh|argh|sigh|oh no|oh|hmm|well|so|alright|dear [^,]{1,30}|good (?:morning|afternoon"
    r"|evening)|greetings|urgent|help)\b[^,:!.-]{0,30}[,:!-]\s*",
    _I,
)
# "If the refactor slips, …" asserts nothing; "Since we upgraded, …" is a clause of its own.
_LEADING_CLAUSE = re.compile(
    r"^(?P<word>if|unless|in case|since|after|because|once|although|though|while|when)\b"
    r"(?P<clause>[^,]+),\s+",
    _I,
)
# "Subject, which the backend team owns, predicate" / "Subject, owned by X, predicate".
_APPOSITIVE = re.compile(
    r"^(?P<head>[^,]+?),\s+(?P<relative>(?:which|that)\s+[^,]+"
    r"|(?:owned|led|run|maintained|handled|driven) by [^,]+),\s+(?P<rest>.+)$",
    _I,
)
_REDUCED_RELATIVE = ("owned", "led", "run", "maintained", "handled", "driven")
_AND = re.compile(r"\s+and\s+")
_COMMA_OR_AND = re.compile(r",\s+(?:and\s+)?|\s+and\s+")
# A bare "and" separates two clauses only if what comes before it has a verb of its own.
_HAS_VERB = re.compile(
    r"\b(?:is|are|was|were|am|been|has|have|had|do|does|did|can|cannot|will|would|could"
    r"|should|owns?|leads?|needs?|depends?|blocks?|belongs?|uses?|runs?|joined|took|shipped"
    r"|finished|completed|released|launched|merged|started|reported|got|went|seeing|getting"
    r"|waiting|working|leading|throwing|fails?|failed|failing|crashed|crashes)\b",
    _I,
)
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
# Standup style drops the "I": "Waiting on the auth refactor", "Shipped the billing migration!"
_SUBJECTLESS = re.compile(
    r"^(?:(?P<ing>waiting|working|leading|seeing|getting|blocked|stuck|implementing|improving"
    r"|building|driving|investigating|looking into|writing|drafting|designing)"
    r"|(?P<past>shipped|finished|completed|released|launched|delivered|merged|joined"
    r"|took over|picked up|implemented))\b",
    _I,
)

_EVENT = re.compile(
    r"(?:,\s*)?\b(?:ever since|right after|shortly after|since|after|following)\s+"
    r"(?:(?:the|a|an|our|last night's|yesterday's|today's|this morning's|last week's|last)\s+)?"
    # "since the update to 7.22.0": the update with its version, before the bare "update"
    r"(?P<event>(?:upgrading|updating|upgrade|update|moving|switching|migrating) to (?:the )?"
    r"(?:latest |new )?(?:version |v)?[\w.-]*\d[\w.-]*(?: [\w.-]*\d[\w.-]*)?"
    r"|(?:upgrading|updating|upgrade|update) to [A-Z][\w.-]*(?: [\w.-]+)?"
    rf"|(?:[\w'-]+\s+){{0,3}}?(?:[\w]+-)?(?:{_EVENT_ALT})s?"
    r"(?:\s+(?:window|run|runs|job|jobs|script|process))?(?:\s+\d{1,4}\b)?"
    r"|(?:version|v)\s?\d+(?:\.\d+)+"
    r"|zzref\d+zz (?:was |got |has been )?(?:merged|landed|released|deployed))\b,?",
    _I,
)
_DATE = re.compile(
    r"(?:,\s*)?\b(?:(?:on|since|as of|effective|from|starting|beginning)\s+)?"
    r"(?:(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
    rf"|(?P<mon>{_MONTH_ALT})\.?\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<my>\d{{4}}))?"
    rf"|(?P<dm>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_MONTH_ALT})"
    rf"(?:,?\s+(?P<my2>\d{{4}}))?)"
    r"\b",
    _I,
)

# ------------------------------------------------------------------------------ noun phrases

_FROM_OWNER = re.compile(r"^(?P<item>.+?) from (?P<owner>.+)$", _I)
_PLAN_PHRASE = re.compile(r"^(?P<name>.+?) (?:plan|tier|subscription|package|edition)$", _I)
_CUSTOMER_PREFIX = re.compile(r"^(?:customer|client|account) (?P<name>.+)$", _I)
_HTTP_CODE = re.compile(r"\b(?:http\s*)?(?P<code>[45]\d\d)s?\b", _I)
_TIMEOUT = re.compile(r"\btime[\s-]?outs?\b|\btim(?:ing|ed) out\b", _I)
_LOGIN_FAILURE = re.compile(
    r"\b(?:log ?in|sign ?in)\s+(?:failures?|errors?|issues?|problems?)\b", _I
)
_LATENCY = re.compile(r"\b(?:latency|slowness|slowdowns?|slow (?:responses|load times))\b", _I)
_ISSUE_WHERE = re.compile(rf"^(?P<issue>.+?) (?:{_SURFACE_PREP}) (?P<where>.+)$", _I)
_PLURAL = {"error": "errors", "failure": "failures", "crash": "crashes", "exception": "exceptions",
           "bug": "bugs", "outage": "outages", "incident": "incidents"}


def _clean(raw: str) -> str:
    if "  " in raw or "\t" in raw or "\n" in raw:  # the regex only when there is work for it
        raw = _SPACES.sub(" ", raw)
    return raw.strip(_TRIM)


@lru_cache(maxsize=4096)
def _key(name: str) -> str:
    """``normalize_name``, remembered: the same few names are compared many times."""
    return normalize_name(name)


@lru_cache(maxsize=4096)
def _display(phrase: str) -> str:
    """``display_name``, remembered for the same reason."""
    return display_name(phrase)


def _words(phrase: str) -> list[str]:
    words = phrase.split(" ")
    while len(words) > 1 and words[0].lower() in _DETERMINERS:
        words = words[1:]
    return words


def _noun_phrase(raw: str) -> str | None:
    """The phrase if it can name one thing: short, no verbs or pronouns, not a bare vague word,
    no link, code or quotation in it, and a noun phrase by its words' parts of speech."""
    phrase = _clean(raw)
    if not phrase or _NOT_IN_NAMES.search(phrase):
        return None
    if "zz" in phrase and PLACEHOLDER.search(phrase):
        return None  # a reference inside a longer phrase, a link, code or a quotation
    words = _words(phrase)
    lowered = [w.lower() for w in words]
    if len(words) > 7 or lowered[0] in _LEADING_PREPOSITIONS:
        return None
    if not _NOT_IN_NOUN_PHRASE.isdisjoint(lowered):
        return None
    if len(words) == 1 and (lowered[0] in _VAGUE_NOUNS or _singular_word(lowered[0])
                            in _VAGUE_NOUNS or lowered[0] in _BARE_CHANGES):
        return None
    if refers_back(lowered):
        return None
    if not _grammatical(tuple(words)):
        return None
    return phrase


def refers_back(words: list[str]) -> bool:
    """Whether lower-cased name words only point at a problem or document named elsewhere:
    a bare kind ("bug", "Spec", "Pending Issues") or "the same …" ("Same error")."""
    content = [w for w in words if w not in _INTENSITY_WORDS and w not in {"pending", "open",
                                                                             "known", "new"}]
    return bool(words) and (words[0] in _REFERRING_WORDS or (
        bool(content) and all(w in _REFERRING_NOUNS for w in content)))


_NOT_IN_NAMES = re.compile(r"[,:;!?()\[\]{}<>=/\\|*`\"#@$%^~+]")
# Tags a word of a name never has: pronouns, modals, wh-words, adverbs, finite verbs, "to".
_VETO_TAGS = frozenset(
    {"PRP", "MD", "WDT", "WP", "WP$", "WRB", "RB", "RBR", "RBS", "VBZ", "VBD", "TO", "EX", "UH",
     "PDT", "LS"}
)
# Adverbs that are particles of compound names ("Sign Up Flow", "Back Office", "Checkout").
_PARTICLES = frozenset({"up", "out", "down", "back", "off", "in", "over", "on", "forward",
                        "early", "ahead", "away", "home", "live", "upstream", "downstream"})
# Closed-class words allowed inside a name ("Head of Sales", "Search and Indexing Project").
_INNER_WORDS = frozenset({"of", "and", "for", "on", "in", "to", "with", "&", "at", "by"})
_HEAD_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "CD", "VBG", "VB", "VBP", "FW", "SYM"})
_QUANTIFIERS = frozenset({"both", "all", "each", "every", "some", "any", "many", "several",
                          "few", "no", "most", "other", "another", "such", "certain",
                          "nothing", "none", "nobody", "neither", "everything", "anything"})
_NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})


@lru_cache(maxsize=16384)
def _grammatical(words: tuple[str, ...]) -> bool:
    """Whether the words (articles already off) can be a noun phrase: no word is a pronoun,
    modal, adverb or finite verb by the tagger, and the last word can head a noun phrase (a
    noun, a number, a gerund, or a verb's base form, which is so often also a noun:
    "update", "build", "fix")."""
    if words[0].lower() in _QUANTIFIERS and len(words) > 1:
        return False  # "both Windows and macOS machines": a quantity of things, not one
    previous_tag = ""
    for index, word in enumerate(words):
        lowered = word.lower()
        if lowered in _INNER_WORDS and 0 < index < len(words) - 1:
            following = words[index + 1]
            if lowered == "to" and following.islower() and _tag_of(following) in {"VB", "VBP"}:
                return False  # "heavy lifting to instantiate": an infinitive, a clause
            previous_tag = ""
            continue
        word_tag = _tag_of(word)
        if word_tag in {"VBD", "VBN"} and len(words) > 1 and (
                index == 0 or previous_tag in _NOUN_TAGS):
            return False  # "Fixed bug in …", "mismatch caused failures": a clause
        previous_tag = word_tag
        if word_tag in _VETO_TAGS and lowered not in _PARTICLES:
            return False
        if word_tag == "PRP$" and index > 0:
            return False
        if word_tag in {"IN", "CC", "DT"} and index > 0 and not (
                word_tag == "DT" and words[index - 1].lower() in _INNER_WORDS):
            return False  # "the" only after "of"/"on"…: "errors on the checkout page"
    last = words[-1]
    last_tag = _tag_of(last)
    if last_tag in _HEAD_TAGS or last[:1].isupper() or last.lower() in _PARTICLES:
        return True
    return last_tag in {"JJ", "JJR", "JJS"} and any(c.isdigit() for c in last)


def _tag_of(word: str) -> str:
    """A word's tag; a hyphenated compound ("sig-scheduling", "log-in") takes its last part's."""
    if "-" in word.strip("-"):
        last = word.rstrip("-").rsplit("-", 1)[-1]
        if last and not last.isdigit():
            return tag(last)
    return tag(word)


def _singular_word(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _is_org(words: list[str]) -> bool:
    last = words[-1].rstrip(".")
    return len(words) > 1 and last[:1].isupper() and last.lower() in _ORG_SUFFIXES


def _name_keys(name: str) -> frozenset[str]:
    """The keys a name matches: itself, and for an organisation its name without the suffix."""
    words = _clean(name).split(" ")
    keys = {_key(name)}
    if _is_org(words):
        keys.add(_key(" ".join(words[:-1])))
    return frozenset(keys)


def _list_parts(raw: str) -> list[str]:
    """ "the API migration, the payments integration and the checkout flow" → three phrases;
    "the search and indexing project" stays one: a list's later items start with a determiner
    or are names ("Slack and Jira")."""
    phrase = _clean(raw)
    parts = _LIST_SEPARATOR.split(phrase)
    if len(parts) > 1 and all(_starts_list_item(part) for part in parts[1:]):
        return parts
    return [phrase]


def _starts_list_item(part: str) -> bool:
    words = part.split(" ")
    # "#123 and #124": a tracker reference is a name too
    return words[0].lower() in _DETERMINERS or _is_name(words) or bool(
        PLACEHOLDER_REF.fullmatch(words[0]))


def _is_name(words: list[str]) -> bool:
    """One to three capitalized words ("Bob", "Dana Scully", "Globex")."""
    return 0 < len(words) <= 3 and all(w[:1].isupper() and w.isalpha() for w in words)


def _head_type(words: list[str]) -> str | None:
    """The type a noun phrase's last word implies, if any."""
    last = words[-1].lower()
    if _is_org(words):
        return "Customer"
    if last in _TEAM_HEADS:
        return "Team"
    if last in _WORK_HEADS:
        return "WorkItem"
    if issue_name(" ".join(words)) is not None:
        return "Issue"
    if last in _SERVICE_HEADS:
        return "Service"
    return None


_CANONICAL_SYMPTOMS = {name.lower(): name for name in SYMPTOMS}


def issue_name(phrase: str) -> str | None:
    """The normalized name of an error-like phrase, or None if the phrase names no issue.

    Any HTTP status code → ``"<code> Errors"``; any timeout → ``"Timeout Errors"``; log-in
    failures → ``"Login Failures"``; latency/slowness → ``"Latency"``; otherwise a phrase ending
    with an issue word, without articles and intensity words, its last word made plural.
    """
    canonical = _CANONICAL_SYMPTOMS.get(phrase.strip().lower())
    if canonical is not None:
        return canonical  # already a symptom's canonical name ("High Memory Usage")
    code = _HTTP_CODE.search(phrase)
    if code:
        return f"{code.group('code')} Errors"
    if _TIMEOUT.search(phrase):
        return "Timeout Errors"
    if _LOGIN_FAILURE.search(phrase):
        return "Login Failures"
    if _LATENCY.search(phrase):
        return "Latency"
    words = [w for w in _clean(phrase).split(" ") if w]
    if not words:
        return None
    found = find_symptom(" ".join(words))
    if found is not None and found[2] == len(_symptom_tokens(" ".join(words))):
        return found[0]  # the phrase is (ends with) a symptom: "sign-in failures", "lag"
    if words[-1].lower() not in _ISSUE_HEADS:
        return None
    while len(words) > 1 and words[0].lower() in _INTENSITY_WORDS:
        words = words[1:]
    words[-1] = _PLURAL.get(words[-1].lower(), words[-1])
    return _display(" ".join(words))


def _plan_name(phrase: str) -> str | None:
    """``"the Standard plan"`` → ``"Standard"``; a bare plan word (``"Enterprise"``) too."""
    words = _words(_clean(phrase))
    if not words:
        return None
    named = _PLAN_PHRASE.match(" ".join(words))
    if named and len(named.group("name").split(" ")) <= 3:
        return _display(named.group("name"))
    # A bare "team" is a team, not the Team plan, unless written as a name.
    if len(words) == 1 and words[0].lower() in _PLAN_WORDS and (
        words[0].lower() != "team" or words[0][:1].isupper()
    ):
        return _display(words[0])
    return None


def _event_name(phrase: str) -> str | None:
    words = [w.removesuffix("'s") for w in _clean(phrase).split(" ") if w]
    if any(w.lower() in _NOT_IN_NOUN_PHRASE for w in words):
        return None
    return _display(" ".join(words)) if words else None


# ------------------------------------------------------------------------------------- dates


def _date_at(match: re.Match[str], reference_time: datetime) -> datetime | None:
    """The day a date expression names, at 00:00 in the reference time's zone. A date without a
    year is the latest such day not after the reference time."""
    tz = reference_time.tzinfo or UTC
    try:
        if match.group("y"):
            return datetime(int(match["y"]), int(match["m"]), int(match["d"]), tzinfo=tz)
        month_word = match.group("mon") or match.group("mon2")
        month = _MONTHS[month_word[:3].lower()]
        day = int(match.group("md") or match.group("dm"))
        year = match.group("my") or match.group("my2")
        if year:
            return datetime(int(year), month, day, tzinfo=tz)
        when = datetime(reference_time.year, month, day, tzinfo=tz)
        if when.date() > reference_time.date():
            when = when.replace(year=reference_time.year - 1)
        return when
    except ValueError:  # February 30th and friends: no date rather than a wrong one
        return None


# ---------------------------------------------------------------------------- episode state


class _AuthorsWorkItem:
    """Stands for "the author's current work item" until the episode is read to its end."""


_AUTHORS_WORK_ITEM = _AuthorsWorkItem()
_Subject = ExtractedEntity | _AuthorsWorkItem


@dataclass
class _Clause:
    text: str
    kind: str
    """``main``, ``reason`` (because/until/since), ``relative`` (which) or ``conditional``."""
    sentence: str
    ordinal: int
    valid_at: datetime | None = None
    topic: _Subject | None = None
    """The item the clause is about; a following reason clause says what it waits on."""
    antecedent: ExtractedEntity | None = None
    """What ``it`` means inside a relative clause."""
    antecedent_phrase: str | None = None
    """The noun phrase a mid-sentence relative clause is about ("X, owned by Y, is late")."""


class _ClauseText(NamedTuple):
    kind: str
    text: str
    antecedent: str | None = None


@dataclass
class _Record:
    kind: str
    """``fact``, ``closure`` or ``implied`` (the author's ownership of an item they report on)."""
    source: _Subject
    relation: str
    target: ExtractedEntity | None
    sentence: str
    ordinal: int
    valid_at: datetime | None = None
    reading: str = ""
    """The reading that recorded it (``memory.extraction.readings``)."""


@dataclass
class _Sentence:
    issues: list[ExtractedEntity] = field(default_factory=list)
    events: list[ExtractedEntity] = field(default_factory=list)


_Handler = Callable[["_Reader", re.Match[str], _Clause], bool]


class _Rule(NamedTuple):
    pattern: re.Pattern[str]
    handler: _Handler
    gate: frozenset[str] | None = None
    """Words one of which the clause must contain for the pattern to be worth trying."""


_Patterns = tuple[_Rule, ...]
# What a handler may change, to undo it when the handler declines: lengths of the records, notes,
# author items and issues of the sentence, and the last mentions.
_Checkpoint = tuple[int, int, int, int, ExtractedEntity | None, ExtractedEntity | None]


class _Reader:
    """Reads one episode clause by clause and collects what it says."""

    def __init__(
        self,
        *,
        author: ExtractedEntity | None,
        reference_time: datetime,
        ontology: Ontology,
        known: Mapping[str, str],
    ) -> None:
        self.author = author
        # "Acme" in Acme Corp's own ticket is the author too.
        self.author_keys = _name_keys(author.name) if author else frozenset()
        self.reference_time = reference_time
        self.ontology = ontology
        self.known = known
        self.records: list[_Record] = []
        self.dropped: list[str] = []
        self.author_items: list[tuple[int, ExtractedEntity]] = []
        self.last_thing: ExtractedEntity | None = None
        self.last_phrase: ExtractedEntity | None = None
        self.sentence = _Sentence()
        self.ordinal = 0
        self.masked = mask("")
        self.own: Reference | None = None
        self.thread: Thread | None = None
        self.own_is_section = False
        self.passage_speaker: ExtractedEntity | None = None
        """Who speaks in the passage being read ("**Vitalik**: …" in a transcript): the "I" of
        its sentences."""
        self.team_reporters: dict[tuple[str, ...], str] = {}
        self.headings_read: set[str] = set()
        """Who reported first under each team's heading (see _read_team_speaker)."""
        """The episode's own item, when its first line is a title with a number."""
        self.title_reported = False
        """The title already reports the problem: the body's symptoms restate it."""
        self.title_problem_unknown = False
        """...in words that state no known problem ("docker desktop wsl distro stopped"): the
        body's first statement of one says which (``_read_problem``)."""
        self.product: frozenset[str] = frozenset()
        """The words that name the product of the episode's tracker ("docker")."""
        self.title_report: ExtractedEntity | None = None
        """The issue the title reported (the body may say which product it affects)."""
        self.title_issue: ExtractedEntity | None = None
        """The issue the title reported, until the body says what it followed (see
        ``_read_problem``); None once it has its ``PRECEDED_BY``."""
        self.context: ExtractedEntity | None = None
        """The item the passage being read is about when it names none (see _context_of)."""
        self.context_is_own = False
        """That item is the episode's own (a thread's), not one an agenda lists above."""
        self.speakers: set[str] = set()
        """Names that speak in the document ("Mark: …"): people, whatever else the word means."""
        self.decided_item: ExtractedEntity | None = None
        """The item the sentence being read records a decision on."""
        self.standup_owner: ExtractedEntity | None = None
        """Whose standup update the passage is in ("@dryajov" above Done / Blocked / Next)."""
        self.heading_agent: ExtractedEntity | None = None
        """A team or person a heading names ("### Lighthouse"): who the first-person and
        subjectless lines under it speak for."""
        self.speaker: ExtractedEntity | None = None
        """Who said the clause being read, when the author reports someone else's words."""
        self.in_context = False
        """Reading a list item with its heading's or parent item's words: no ownership implied."""
        self.resolved_for_author = False
        """The customer said their problem is gone: an issue "resolved" in their words ends
        their report, not the issue for everyone."""
        self.vendor_voice = False
        """The message speaks for the vendor ("our API" and advice to the reader: see
        ``_VENDOR_WORDS``): whoever wrote it in a support thread, it reports no problem of its
        author's (GUIDE §6)."""
        self.addressed_condition = False
        """The sentence being read opens on a condition put to its reader ("So if you try to
        open…", ``conditioned``): an explanation or advice, no report."""
        self.reference_names: set[str] = set()
        """Names of the tracker items mentioned by reference (their author is not their
        owner)."""
        self.readings = ReadingStack()
        """Which readings are running: what each record is tagged with."""

    # ---------------------------------------------------------------------- reading the text

    def read(self, document: Document, thread: Thread | None = None) -> None:
        """``thread``: the tracker item the episode belongs to, as its address names it
        (``memory.language.threads``): its own item when no title line names one."""
        titled = title_line(document.first_line)
        if titled is not None and thread is not None and not same_item(titled.key,
                                                                        thread.item.key):
            titled = None  # "Closing this in favor of #12197" in #12196: a line, not a title
        self.own = titled or (thread.item if thread is not None else None)
        self.thread = thread
        if self.own is not None and not document.first_line.lstrip().startswith("##"):
            # "This is blocked on #12" in a tracker thread: the item's status, not a claim that
            # its author owns it (who opened an item is metadata, GUIDE §1)
            self.reference_names.add(self.own.name)
        # "### "Title" rust#88621" opening minutes: a section about an agenda item, whose
        # action items ("Mark to comment on issue") are about it — a tracker's title is "# …".
        self.own_is_section = document.first_line.lstrip().startswith("##")
        title = document.first_line.lstrip("# ").strip()
        # "Mark: I think…", "**Danny**: …": the people who speak in minutes are people
        self.speakers = {m["name"] for p in document.passages
                         if (m := _SPEAKER_PREFIX.match(p.text)) is not None}
        first = document.passages[0].text.strip() if document.passages else None
        if titled is not None:
            self._read_title(title)
        if document.first_line.lstrip().startswith("#"):
            self._read_heading_by((document.first_line,))  # a heading over a table, say
        for index, passage in enumerate(document.passages):
            if index == 0 and titled is not None and first == title:
                continue  # a title names its item; it is no sentence about it
            self.context = self._context_of(passage, title if titled is not None else None)
            self._read_heading_by(passage.headings)
            # under "### Parity" / "**Wei**", Wei's lines report Parity's work
            self.heading_agent = (
                self._read_team_speaker(passage.headings) if under_speaker_label(passage)
                else None) or _heading_agent(passage.headings,
                                             title if titled is not None else None)
            owner = standup_owner(passage.headings)
            self.standup_owner = ExtractedEntity(owner, "Person") if owner else None
            if self.context is not None:
                self.last_thing = self.context  # "it", "this" under an item mean that item
            marker = _TRANSCRIPT_SPEAKER.match(passage.text)
            self.passage_speaker = ExtractedEntity(marker["name"], "Person") if (
                marker is not None and not _NOT_AGENTS.match(marker["name"])) else None
            if self.passage_speaker is None:
                # "TL: I've been working on …", "DS: … will create a repo": minutes' speakers
                self.passage_speaker = minutes_speaker(passage.text,
                                                       anonymous=self.author is None)
            for sentence in split_sentences(passage.text):
                self.read_sentence(sentence, passage)
        owner_tables.read_rows(self, document.rows)  # "| Item | Owner | Status |"

    def _context_of(self, passage: Passage, title: str | None) -> ExtractedEntity | None:
        """The item a passage is about when it names none: the nearest item above it that a
        reference names (a parent list item, then a heading), else the episode's own item."""
        self.context_is_own = False
        for line in (*reversed(passage.parents), *reversed(passage.headings)):
            if title is not None and line.strip().lstrip("# ").strip() == title:
                continue
            reference = title_line(line) or next(
                (r for r in mask(line).references.values() if r.type == "WorkItem"), None)
            if reference is not None:
                return ExtractedEntity(reference.name, "WorkItem")
        if self.own is not None:
            self.context_is_own = True
            return ExtractedEntity(self.own.name, "WorkItem")
        return None

    @reading("title")
    def _read_title(self, title: str) -> None:
        """An issue's own title line is its author's report when it says what is wrong ("Docker
        stuck on Starting after latest update #5859"): the author REPORTED the item (as an
        issue, named by its title and number), with the product it names and the event it
        follows. A pull request's title ("Fix wrong directories in PATH") reports nothing."""
        own = self.own
        assert own is not None
        if own.title and "#" in own.title:
            # "Fix #1178 #1189": the title masks as one titled reference; its words hold the other
            self.masked = mask(own.title)
            self._read_closing_keywords(title)
        self.masked = mask(title)
        self._read_closing_keywords(title)
        words = _clean(_TITLE_END.split(own.title or "", maxsplit=1)[0])
        if not words or self.author is None:
            return
        context = titled_context(own.title or "", words, _REPORT_TITLE, _TITLE_END) if (
            self.author.type == "Customer") else None
        if context is not None:
            # "MacOS 13.4 update: Tailscale exit node functionality stops working": the problem
            # is after the colon, what it came after before it
            words = _clean(context.problem)
        if self.author.type == "Customer":
            asked = asked_problem(words)  # "How to solve this problem?" names none
            if asked is None:
                return
            words = asked
        if words.count('"') % 2:
            words = words.replace('"', "")  # 'stuck on "starting"' lost its closing quote
        # A customer's title that states a problem in the words of ``problem_name`` reports it
        # too ("Application Not Letting Me Log In").
        if not _REPORT_TITLE.search(words) and not (
                self.author.type == "Customer" and problem_name(words) is not None):
            return
        if _HEDGE.match(words) or _TITLE_GUESS.match(words):
            return  # "may has memory leaky": a guess, the body says what is seen (GUIDE §1)
        if _COMMIT_PREFIX.match(words) or _imperative(words) or (
                self.thread is not None and self.thread.change):
            return  # "Fix …", "feat: …", "Rework …", a pull request's: a change, not a report
        issue = ExtractedEntity(f"{words} ({own.key})", "Issue")
        self.reference_names.add(issue.name)
        clause = _Clause(text=words, kind="main", sentence=title, ordinal=self.ordinal)
        self.fact(self.author, REPORTED, issue, clause)
        where = _TITLE_WHERE.search(words)
        surface = None
        if where is not None and not _names_platform(where["np"] or where["lower"]):
            surface = self.surface(where["np"] or where["lower"], clause)
        if surface is not None and is_circumstance(surface.name):
            surface = None  # "crashes on start", "on High Sierra": when and where, not what
        if surface is None:
            # "MagicDNS not working", "'com.docker.hyperkit' process has a very high CPU
            # utilisation", "Client update … broke MagicDNS": the product the title names
            untagged = _TITLE_TAGS.sub("", words)  # "[Incident][Resolved] Postman 9.15.1 …"
            subject = _TITLE_SUBJECT.match(untagged) or _TITLE_OBJECT.search(untagged)
            candidate = self.surface(subject["np"], clause) if subject is not None else None
            if candidate is not None and _names_product(self, subject["np"], candidate):
                surface = candidate
        if surface is not None and surface.name[:1].isupper():
            self.fact(issue, AFFECTS, surface, clause)
        else:  # "hight memory when warp was started"
            self._tracker_product_affected(issue, words, clause)
        self.title_report = issue
        self.title_reported = True
        self.title_problem_unknown = problem_name(words) is None
        self.title_issue = issue
        flaky = _FLAKY_TITLE.match(words)
        said = (flaky["st"] or flaky["verb"]).lower() if flaky is not None else ""
        if flaky is not None and not said.startswith("flak") and (
                flaky["np"].lower().split(" ")[-1] not in _TEST_HEADS):
            flaky = None  # "Docker fails to start": a product's symptom, not a test's status
        if flaky is not None and (name := _noun_phrase(flaky["np"])) is not None:
            # "NodeProblemDetector [NodeFeature:…] is flaky": the test's status, as reported
            test = ExtractedEntity(_display(name), self._known_type(name) or "Service")
            word = "flaky" if said.startswith("flak") else "failing"
            with self.readings.running("flaky_title"):
                self.status(test, word, clause, reported=False)
        if context is not None and context.event is not None and (
                name := _event_name(context.event)):
            self.fact(issue, PRECEDED_BY, ExtractedEntity(name, self._known_type(name)
                                                          or "Event"), clause)
        event = _EVENT.search(words)
        broke = _TITLE_OBJECT.search(words)
        if event is None and broke is not None and (cause := _EVENT_SUBJECT.match(
                words[:broke.start()].strip())) is not None and (
                name := _event_name(cause["event"])):
            # "Client Update from 1.36.0 to 1.36.1 broke MagicDNS": the problem came after it
            self.fact(issue, PRECEDED_BY, ExtractedEntity(name, self._known_type(name)
                                                          or "Event"), clause)
        if event is not None and (name := _event_name(event["event"])):
            self.fact(issue, PRECEDED_BY, ExtractedEntity(name, self._known_type(name)
                                                          or "Event"), clause)
        if any(r.relation == PRECEDED_BY and r.source == issue for r in self.records):
            self.title_issue = None

    def read_sentence(self, sentence: str, passage: Passage) -> None:
        """One sentence as written (what its facts cite), read with its references masked."""
        if len(sentence) > MAX_SENTENCE_LENGTH or _is_question(sentence):
            return  # a question asserts nothing; a "sentence" that long is no status line
        self.masked = mask(sentence)
        if self.own is not None:
            self.masked = name_own_item(  # "This PR …" in its thread
                self.masked, self.own,
                issue=self.thread is not None and not self.thread.change)
        if self.thread is not None:
            self.masked = plain_emphasis(self.masked)  # "requires a *nightly compiler*"
        self.resolved_for_author = False
        self.addressed_condition = conditioned(self.masked.text)
        if self.author is not None and self.author.type == "Customer":
            self._customer_better(self.masked.text, sentence)
        text = _normalize(self.masked.text)
        text = _LEADING_REFERENCE_COLON.sub(r"\g<ref> ", text)
        if not asserts(text):
            return  # "Proposal: …", "Matteo thinks …" (``memory.extraction.assertions``)
        if self.own is not None:
            self._read_closing_keywords(sentence)
            self._read_item_links(sentence)
        if self._read_tracker_lines(text, sentence):
            return
        self._read_affiliations(text, sentence)
        minutes_reading.read_memberships(self, sentence)
        minutes_reading.read_decisions(self, sentence, passage)
        if self.context is not None:
            # "Niko would like to see a full matrix (Niko to comment)": the aside is an action
            for aside in _ASIDE.findall(self.masked.text):
                if _ACTION_ITEM.match(aside.strip()):
                    with self.readings.running("aside"):
                        self._read_about_context(aside.strip(), sentence)
        if self.context is not None and self._read_about_context(text, sentence):
            return
        if self._read_after_reference(text, sentence):
            return
        speech = _SPEECH.match(text)
        if speech is not None and _has_verb(speech["rest"]):
            # "Farah says (that) the migration slipped": Farah said it; the clause is read.
            speaker = self.agent(speech["speaker"], self._bare_clause(sentence), mention=False)
            if speaker is None:
                return
            text = speech["rest"]
            self.speaker = speaker
            if self.heading_agent is not None and speaker.type == "Person" and (
                    _SPEAKS_FOR.search(text)):
                # "## Artemis" / "Shahan advised that they…": Shahan speaks for Artemis
                with self.readings.running("speaks_for"):
                    self.fact(speaker, MEMBER_OF,
                              ExtractedEntity(self.heading_agent.name, "Team"),
                              self._bare_clause(sentence))
                self.speaker = self.heading_agent
        elif _HEDGE.match(text) or _HYPOTHETICAL.match(text):
            # "I think…", "Maybe…", "It would be nice if…": nothing asserted — but what follows
            # a "but" is ("Not sure if I'm facing the same problem but … it got stuck")
            text = _asserted_after_hedge(text) if _HEDGE.match(text) else ""
            if not text:
                return
        elif self.heading_agent is not None and (
                _SUBJECTLESS.match(text) or _FIRST_PERSON_START.match(text)):
            self.speaker = self.heading_agent  # "### Lighthouse" / "- Working on discv5"
        try:
            before = len(self.records)
            self._read_text(text, sentence)
            if len(self.records) == before and passage.item and passage.headings:
                self._read_in_context(text, sentence, passage)
            if all(record.relation == USES for record in self.records[before:]):
                # "I am on the latest version of Postman and it crashes on startup": what is
                # used is no reason to leave the problem unread
                self._read_problem(text, sentence)
            if len(self.records) == before and self.standup_owner is not None:
                minutes_reading.read_standup(self, text, sentence, passage)
            elif self.standup_owner is not None:
                self._keep_named_blocker_only(before)  # "Bitswap PoC is blocked on testground"
            if not any(record.relation == RESPONSIBLE_FOR for record in self.records[before:]):
                minutes_reading.read_commitment(self, text, sentence, passage)
            activity_lists.read_activities(self, sentence)  # "Rod: working on the build, …"
            if not any(record.relation == HAS_STATUS for record in self.records[before:]):
                item_status.read_item_status(self, sentence)  # "* Has been merged" under #12
            if not any(record.relation == RESPONSIBLE_FOR for record in self.records[before:]):
                task_items.read_action_item(self, text, sentence, passage)  # "- [ ] @bob …"
        finally:
            self.speaker = None
            self.in_context = False

    @reading("problem")
    def _read_problem(self, text: str, sentence: str) -> None:
        """A customer's sentence that states a problem in words no pattern above reads whole
        ("I noticed MagicDNS stops working after there is IP change", "spikes of 100% CPU
        use"): their report of the problem, named by the words that state it (``find_problem``;
        resolution gives it its canonical name, ``memory.support.by_problem``). Once the title
        reported the problem, or when someone else speaks, nothing is added."""
        if (self.author is None or self.author.type != "Customer" or self.speaker is not None
                or self.resolved_for_author or not self._may_report()):
            return
        if self.sentence.events and _ONLY_AN_EVENT.match(_EVENT.sub(" ", self.masked.text)):
            # "Since yesterday's update.", "Issue came up after update.": what the problem the
            # message reported followed
            self._reported_problem_followed(self.sentence.events[0], sentence)
            return
        if self.title_reported and not self.title_problem_unknown and (
                self.title_issue is None or not self.sentence.events):
            if self.title_report is not None and (
                    same := find_problem(self.masked.text)) is not None and (
                    _same_problem(same.name, problem_name(_bare_title(self.title_report.name)))
                    and not denied(self.masked.text, same.phrase)):
                # "Warp uses a significant amount of memory" under "High Memory Usage"
                self._tracker_product_affected(self.title_report, self.masked.text,
                                               self._bare_clause(sentence))
            return
        # The words as written (not normalized: "doesn't" stays), references still masked.
        if a_consequence(self.masked.text) and any(
                r.relation == REPORTED and r.source == self.author for r in self.records):
            return  # "…, therefore I cannot edit my settings": what the reported problem keeps
            # the customer from (unread, it is the best statement of the problem there is)
        problem = find_problem(self.masked.text, self.product)
        if problem is None or denied(self.masked.text, problem.phrase) or conditioned(
                self.masked.text, problem.phrase) or explained(self.masked.text, problem.phrase):
            return
        if self.title_reported and not self.title_problem_unknown:
            # "Autofill and CTRL+Shift+L stopped working after version 2024.5.0." under the
            # title "Autofill and CTRL+Shift+L not working": the title's problem followed it
            assert self.title_issue is not None
            self._fact(self.title_issue, PRECEDED_BY, self.sentence.events[0], sentence,
                       self.ordinal)
            self.title_issue = None
            return
        name = self.masked.unmask(problem.phrase)  # as written: "MagicDNS stops working"
        issue = ExtractedEntity(name, self._known_type(name) or "Issue")
        if issue.type != "Issue":
            return
        self.sentence.issues.append(issue)
        if self.title_reported:  # the title's problem, said in known words: once
            self.title_problem_unknown = False
            self.fact(self.author, REPORTED, issue, self._bare_clause(sentence))
        else:
            self.reports(self.author, issue, None, self._bare_clause(sentence))
        if issue in self.sentence.issues:  # "After update, docker could not run."
            for event in self.sentence.events[:1]:
                self._fact(issue, PRECEDED_BY, event, sentence, self.ordinal)
        self._tracker_product_affected(issue, self.masked.text, self._bare_clause(sentence))

    @reading("tracker_product")
    def _tracker_product_affected(self, issue: ExtractedEntity, text: str,
                                  clause: _Clause) -> None:
        """``issue AFFECTS`` the product of the episode's tracker when the words say it was in
        use ("i'm stuck in white screen when open postman", "… on startup with Postman"; see
        ``memory.extraction.support_products``): a customer's words, once per issue."""
        if not self.product or self.author is None or self.author.type != "Customer" or any(
                r.relation == AFFECTS and r.source == issue for r in self.records):
            return
        named = product_in_use(text, self.product)
        if named is None or names_product_inside(issue.name, self.product):
            return
        surface = self.surface(named, clause)
        if surface is not None:
            self.fact(issue, AFFECTS, surface, clause)

    def _reported_problem_followed(self, event: ExtractedEntity, sentence: str) -> None:
        """The problem the message reported last followed ``event``, unless it is known to
        follow one already."""
        issue = next((r.target for r in reversed(self.records) if r.kind == "fact"
                      and r.relation == REPORTED and r.source == self.author
                      and r.target is not None and r.target.type == "Issue"), None)
        if issue is None or any(r.relation == PRECEDED_BY and r.source == issue
                                for r in self.records):
            return
        self._fact(issue, PRECEDED_BY, event, sentence, self.ordinal)
        if issue == self.title_issue:
            self.title_issue = None

    def _may_report(self) -> bool:
        """Whether the sentence being read can be its author's report of a problem: not in a
        message that speaks for the vendor, nor under a condition put to the reader."""
        return not (self.vendor_voice or self.addressed_condition)

    @reading("customer_better")
    def _customer_better(self, text: str, sentence: str) -> None:
        """ "It's working again", "the timeouts are resolved for us": the customer's own report
        ends (a closure of *their* REPORTED fact: the issue itself may go on for others)."""
        better = _BETTER_AGAIN.search(text)
        if better is None or _NEGATED_BEFORE.search(text[: better.start()]):
            return
        assert self.author is not None
        found = find_symptom(_normalize(text))
        named = None
        if found is not None:
            named = ExtractedEntity(found[0], self._known_type(found[0]) or "Issue")
        else:
            issue = _ISSUE_IN.search(_normalize(text))
            named = self.issue(issue["i"]) if issue else None
        self.records.append(_Record("closure", self.author, REPORTED, named, sentence,
                                    self.ordinal, reading=self.readings.path()))
        self.resolved_for_author = True

    @reading("closing_keywords")
    def _read_closing_keywords(self, sentence: str) -> None:
        """ "Fixes #123", "Closes org/repo#45, #46" in a pull request: each item waits on the
        pull request that resolves it (``#123 DEPENDS_ON`` the episode's own item)."""
        assert self.own is not None
        own = ExtractedEntity(self.own.name, "WorkItem")
        for keyword in _CLOSING_KEYWORD.finditer(self.masked.text):
            if hedged(self.masked.text[:keyword.start()]):
                continue  # "I think this closes #4645": a guess (GUIDE §1)
            for word in PLACEHOLDER_REF.findall(keyword["refs"]):
                reference = self.masked.references.get(word)
                if reference is None or reference.type != "WorkItem" or (
                        same_item(reference.key, self.own.key)) or reference.comment:
                    continue  # "Fixes <a link to a comment>": not the item itself
                clause = _Clause(text="", kind="main", sentence=sentence, ordinal=self.ordinal)
                self.reference_names.add(reference.name)
                self.fact(ExtractedEntity(reference.name, "WorkItem"), DEPENDS_ON, own, clause)

    @reading("item_links")
    def _read_item_links(self, sentence: str) -> None:
        """Which item tracks the episode's own and which it duplicates ("as part of #14039",
        "Duplicate of #1780": ``memory.extraction.trackers``)."""
        assert self.own is not None
        clause = self._bare_clause(sentence)
        for link in read_item_links(self.masked, self.own):
            with self.readings.running(link.reading or "item_links"):
                if link.relation == HAS_STATUS:
                    self.status(ExtractedEntity(link.source, "WorkItem"), link.target, clause,
                                reported=False)
                    continue
                self.reference_names.update({link.source, link.target})
                self.fact(ExtractedEntity(link.source, "WorkItem"), link.relation,
                          ExtractedEntity(link.target, "WorkItem"), clause)
        change = self.thread is not None and self.thread.change
        if change and (partner := co_author(self.masked, sentence)) is not None:
            with self.readings.running("co_author"):  # "Co-authored-by: Bob <bob@…>"
                self.fact(ExtractedEntity(*partner), RESPONSIBLE_FOR,
                          ExtractedEntity(self.own.name, "WorkItem"), clause)
        if not change and not (self.author is not None and self.author.type == "Customer"):
            for link in read_own_states(self.masked, self.own):  # "Summary test is green"
                with self.readings.running(link.reading):
                    if link.relation == PRECEDED_BY:  # "… flaked since <link> merged"
                        self.fact(ExtractedEntity(link.source, "Issue"), PRECEDED_BY,
                                  ExtractedEntity(link.target, "Event"), clause)
                        continue
                    subject = ExtractedEntity(link.source, "WorkItem" if link.source == (
                        self.own.name) else self._known_type(link.source) or "Service")
                    self.status(subject, link.target, clause, reported=False)
        if self.author is not None and self.author.type != "Customer":
            # "Happened again in <link>", "+1", "I have a fix, will send CL"
            for relation, name in read_author_claims(self.masked, self.own, change=change):
                with self.readings.running(name):
                    self.fact(self.author, relation,
                              ExtractedEntity(self.own.name, "WorkItem"), clause)

    @reading("tracker_lines")
    def _read_tracker_lines(self, text: str, sentence: str) -> bool:
        """A tracker's own ways of saying things: slash commands ("/assign @a @b", "/sig node",
        "/close", "/lgtm"), "I filed #12", "while investigating #12", "this is prep for #12",
        "I'll take a look", "worked on this with @bob"."""
        clause = _Clause(text=text, kind="main", sentence=sentence, ordinal=self.ordinal)
        before = len(self.records)
        context = self.context
        command = _SLASH_COMMAND.match(text)
        if command is not None:
            if context is None:
                return True  # a command for a thread we cannot see
            verb, rest = command["verb"].lower(), command["rest"] or ""
            if rest.strip().lower().startswith("cancel"):
                return True  # "/hold cancel", "/lgtm cancel": the command is taken back
            if verb == "assign":
                for word in PLACEHOLDER_REF.findall(rest):
                    reference = self.masked.references.get(word)
                    if reference is not None and reference.type in {"Person", "Team"}:
                        self.tagged("assign", ExtractedEntity(reference.name, reference.type),
                                    RESPONSIBLE_FOR, context, clause)
                if not rest.strip() and self.author is not None:
                    self.tagged("assign", self.author, RESPONSIBLE_FOR, context, clause)
            elif verb == "sig" and rest.strip():
                team = ExtractedEntity(f"sig {rest.split()[0]}", "Team")
                self.tagged("sig", team, RESPONSIBLE_FOR, context, clause)
            elif verb in _COMMAND_STATUSES:
                with self.readings.running("command_status"):
                    self.status(context, _COMMAND_STATUSES[verb], clause, reported=False)
            return True
        filed = _FILED.match(text)
        if filed is not None and self.author is not None:
            reference = self.masked.references.get(filed["ref"])
            if reference is not None and reference.type == "WorkItem":
                issue = ExtractedEntity(reference.name, "Issue")
                self.reference_names.add(issue.name)
                self.tagged("filed", self.author, REPORTED, issue, clause)
                return True
        working = _WORKING_ON_REF.match(text)
        if working is not None and self.author is not None:
            reference = self.masked.references.get(working["ref"])
            if reference is not None and reference.type == "WorkItem":
                item = ExtractedEntity(reference.name, "WorkItem")
                self.reference_names.add(item.name)
                self.tagged("working_on", self.author, RESPONSIBLE_FOR, item, clause)
        prep = _PREP_FOR.search(text)
        if prep is not None and self.own is not None:
            reference = self.masked.references.get(prep["ref"])
            if reference is not None and reference.type == "WorkItem" and (
                    not same_item(reference.key, self.own.key)):
                self.tagged("prep_for", ExtractedEntity(reference.name, "WorkItem"), DEPENDS_ON,
                            ExtractedEntity(self.own.name, "WorkItem"), clause)
        if context is not None and self.author is not None and _TAKING_IT.match(text):
            self.tagged("taking_it", self.author, RESPONSIBLE_FOR, context, clause)
        if context is not None:
            for word in _WORKED_WITH.findall(text):
                reference = self.masked.references.get(word)
                if reference is not None and reference.type == "Person":
                    self.tagged("worked_with", ExtractedEntity(reference.name, "Person"),
                                RESPONSIBLE_FOR, context, clause)
        return len(self.records) > before

    @reading("affiliation")
    def _read_affiliations(self, text: str, sentence: str) -> None:
        """ "an update from Raúl of Protocol Labs", "Potuz from Prysm": a person named with the
        organisation they come from is its member (both written as names, the person's no
        common word)."""
        for match in _AFFILIATION.finditer(text):
            person, team = match["person"], match["team"]
            if in_capitals(person) or not all(
                    _names_a_person(w, bare=True) for w in person.split(" ")):
                continue  # (nor "4-6 GB of RAM": a unit)
            clause = _Clause(text=text, kind="main", sentence=sentence, ordinal=self.ordinal)
            self.fact(ExtractedEntity(person, "Person"), MEMBER_OF,
                      ExtractedEntity(team, "Team"), clause)

    @reading("heading_by")
    def _read_heading_by(self, headings: tuple[str, ...]) -> None:
        """ "## Pres 04: Gossipsub V2 by @ppopth": the handle is responsible for the item the
        heading names (once per heading)."""
        if not headings or headings[-1] in self.headings_read:
            return
        heading = headings[-1]
        self.headings_read.add(heading)
        masked = mask(heading.strip("*_# "))
        by = _BY_HANDLE.match(masked.text.strip())
        if by is None:
            return
        who = masked.references.get(by["who"])
        if who is None or who.type != "Person":
            return
        refs = [r for w in PLACEHOLDER_REF.findall(by["item"])
                if (r := masked.references.get(w)) is not None and r.type == "WorkItem"]
        if refs:
            item = ExtractedEntity(refs[-1].name, "WorkItem")
        elif (phrase := _noun_phrase(by["item"])) is not None:
            item = ExtractedEntity(_display(phrase), "WorkItem")
        else:
            return
        clause = _Clause(text="", kind="main", sentence=heading, ordinal=self.ordinal)
        self.fact(ExtractedEntity(who.name, "Person"), RESPONSIBLE_FOR, item, clause)

    @reading("team_speaker")
    def _read_team_speaker(self, headings: tuple[str, ...]) -> ExtractedEntity | None:
        """ "## 3.1 Teku" then "**Ben**:" on a line of its own: in a round of team updates, who
        reports first under a team's heading speaks for it — a member of that team (whoever
        speaks after, "**Tim Beiko**" moderating, does not)."""
        if len(headings) < 2:
            return None
        name = headings[-1].strip("*_#: ")
        team = _heading_agent(headings[:-1], None)
        if team is None or not _PERSON_HEADING.fullmatch(name) or _NOT_AGENTS.match(name) or (
                _key(name) == _key(team.name)) or not all(
                _names_a_person(word, bare=False) for word in name.split(" ")):
            return None
        if self.team_reporters.setdefault(headings[:-1], name) != name:
            return None
        clause = _Clause(text="", kind="main", sentence=headings[-1], ordinal=self.ordinal)
        self.fact(ExtractedEntity(name, "Person"), MEMBER_OF, team, clause)
        return team

    @reading("after_reference")
    def _read_after_reference(self, text: str, sentence: str) -> bool:
        """ "Improving Diversity … [#699](…) Tobie to coordinate some follow up meetings": an
        agenda line that names its item, then says something about it, reads the words after
        the reference with the item as their context."""
        after = _AFTER_REFERENCE.match(text)
        if after is None:
            return False
        reference = self.masked.references.get(after["ref"])
        if reference is None or reference.type != "WorkItem" or (
                self.own is not None and same_item(reference.key, self.own.key)):
            return False
        context, is_own = self.context, self.context_is_own
        self.context, self.context_is_own = ExtractedEntity(reference.name, "WorkItem"), False
        try:
            return self._read_about_context(after["rest"], sentence)
        finally:
            self.context, self.context_is_own = context, is_own

    @reading("about_context")
    def _read_about_context(self, text: str, sentence: str) -> bool:
        """Lines about the item above them, which they do not name: action items ("ACTION:
        Michael to comment and then close", "Brian will start the application") make their
        people responsible for it; a status said alone ("Needs more reviews", "can land",
        "Joe landed", "This can be closed") is its status; a subjectless dependency ("Blocked
        on #432") is its dependency."""
        assert self.context is not None
        words = _ACTION_PREFIX.sub("", _clean(text))
        if not words:
            return False
        clause = _Clause(text=words, kind="main", sentence=sentence, ordinal=self.ordinal)
        before = len(self.records)
        self.in_context = True
        try:
            action = _ACTION_ITEM.match(words)
            if action is None and words != _clean(text):
                # "ACTION ITEM: scottmcm to cancel FCP": after the label, a handle in lower case
                action = _LABELLED_ACTION_ITEM.match(words)
            if action is not None and action["verb"] == "to" and self.context_is_own and (
                    not self.own_is_section):
                action = None  # "Docker to start": an agenda's action item needs an agenda
            if action is not None and not commits_to_work(action["verb"], words[action.end():]):
                action = None  # "Joe will attend the board meeting": no work taken on
            who, verb = (action["who"], action["verb"]) if action is not None else ("", "")
            if action is None and (
                    done_by := _DONE_BY.match(words)) is not None and not (
                    done_by["by"] and self.context_is_own and not self.own_is_section
                    and not _ABOUT_IT.fullmatch(words[done_by.end():].strip(" .!"))) and not (
                    done_by["by"] and names_something_new(words[done_by.end():])):
                # ("Beth proposed a new bot that would …": something else, not the item above)
                # (in a thread, "@gopherbot opened two backport issues" opened other items)
                who, verb = done_by["who"] or done_by["by"], "by"
            names = [n for n in _NAMES_SPLIT.split(who) if n]
            # "Robin and Kilye to look into it": beside a name no lexicon knows, a proper noun
            # that is also a word ("Robin") is a name too; so is one the graph knows as a person
            # ("Mark to comment on issue" where Mark spoke before).
            beside_a_name = len(names) > 1 and any(
                _names_a_person(name, bare=True) for name in names)
            asked_to_act = action is not None and verb == "to" and bool(
                _ACTION_VERB.match(words, action.end()))
            clear = beside_a_name or asked_to_act
            # In a tracker thread (no agenda) "Branch will open for 1.29 soon" names no one: a
            # sentence's first word there is a name only when it is no common word.
            in_thread = self.context_is_own and not self.own_is_section
            if names and not _NOT_AGENTS.match(who) and all(
                    name in self.speakers or _names_a_person(
                        name, bare=(verb == "to" and not clear) or in_thread)
                    or self._known_type(name) == "Person" for name in names) and not any(
                    name.lower() in _NEVER_NAMES for name in names):
                with self.readings.running("done_by" if verb == "by" else "action_item"):
                    for name in names:
                        person = self.agent(name, clause) or ExtractedEntity(name, "Person")
                        self.fact(person, RESPONSIBLE_FOR, self.context, clause)
                return len(self.records) > before
            covered = _COVERED_BY.match(self.masked.text.strip()) or _COVERED_BY.match(words)
            if covered is not None:
                reference = self.masked.references.get(covered["ref"] or covered["ref2"])
                if reference is not None and reference.type == "WorkItem" and (
                        reference.name != self.context.name):
                    # "discussed #321 which covers this": the item waits on what resolves it
                    with self.readings.running("covered_by"):
                        self.fact(self.context, DEPENDS_ON,
                                  ExtractedEntity(reference.name, "WorkItem"), clause)
                    return True
            for pattern, word in _CONTEXT_STATUSES:
                if pattern.match(words):
                    with self.readings.running("context_status"):
                        self.status(self.context, word, clause, reported=False)
                    return True
            if _SUBJECTLESS_STATUS.match(words) and not (
                    self.author is not None and self.author.type == "Customer"
                    and words.lower().startswith("stuck")):
                # (a customer "stuck on 'syncing contacts'" states a symptom, not a dependency)
                self.masked.references[_CONTEXT_WORD] = _as_reference(self.context)
                self._read_text(f"{_CONTEXT_WORD} {_with_verb(words)}", sentence)
                if not self.context_is_own:
                    self._keep_named_blocker_only(before)
                return len(self.records) > before
        finally:
            self.in_context = False
        return False

    def _keep_named_blocker_only(self, before: int) -> None:
        """Under an agenda item, "Blocked on #432" says what the item waits on: the dependency
        is the fact, not a Blocked status beside it (corpus GUIDE §5 and §10: "blocked by #910"
        → `#851 DEPENDS_ON #910`)."""
        new = self.records[before:]
        waiting = [r.source for r in new if r.relation == DEPENDS_ON]
        if waiting:
            self.records[before:] = [
                r for r in new if not (r.relation == HAS_STATUS and r.source in waiting
                                       and r.target is not None
                                       and r.target.name.lower() == _BLOCKED)]

    def _read_text(self, text: str, sentence: str) -> None:
        self.sentence = _Sentence()
        previous: _Clause | None = None
        for part in _split_clauses(text):
            clause = self._prepare(part.text, part.kind, sentence)
            clause.antecedent_phrase = part.antecedent
            self._read_clause(clause, previous)
            previous = clause
        self._link_events(sentence)

    @reading("in_context")
    def _read_in_context(self, text: str, sentence: str, passage: Passage) -> bool:
        """A list item read with what is above it: an item that only names something takes the
        status its heading gives ("## Blocked" / "PRs waiting on review" → "- #123 Title"); an
        item that only says a status ("- waiting on @bob") is about the item it is nested
        under."""
        words = _clean(text)
        if not words:
            return False
        before = len(self.records)
        self.in_context = True
        subject = self._context_subject(words)
        if subject is None:
            return False
        for heading in reversed(passage.headings):
            predicate = _heading_predicate(mask(heading).text)
            if predicate is None:
                continue
            self._read_text(f"{subject} {predicate}", sentence)
            if len(self.records) > before:
                return True
        return False

    def _context_subject(self, text: str) -> str | None:
        """The words of an item that is nothing but a tracker reference (and its title): a
        heading's status is about such items, not about every short line under it."""
        text = _clean(text)
        if self.masked.reference(text) is not None:
            return text
        return None

    def _bare_clause(self, sentence: str) -> _Clause:
        return _Clause(text="", kind="main", sentence=sentence, ordinal=self.ordinal)

    def _prepare(self, raw: str, kind: str, sentence: str) -> _Clause:
        """The clause without its event phrase, date and time adverbs (each only looked for
        when a word it needs is there)."""
        self.ordinal += 1
        words = frozenset(_WORD.findall(raw.lower()))
        text = raw if _EVENT_WORDS.isdisjoint(words) else _EVENT.sub(self._take_event, raw)
        valid_at = None
        date = _DATE.search(text) if _DIGIT.search(text) else None
        if date:
            valid_at = _date_at(date, self.reference_time)
            text = text[: date.start()] + text[date.end():]
        if not _ADVERBIAL_WORDS.isdisjoint(words):
            text = _ADVERBIAL.sub("", text)
        text = _clean(without_manner_adverbs(text))
        return _Clause(text=text, kind=kind, sentence=sentence, ordinal=self.ordinal,
                       valid_at=valid_at)

    def _take_event(self, match: re.Match[str]) -> str:
        name = _event_name(match.group("event"))
        if name is None:
            return match.group(0)
        self.sentence.events.append(ExtractedEntity(name, self._known_type(name) or "Event"))
        return " "

    def _read_clause(self, clause: _Clause, previous: _Clause | None) -> None:
        if not clause.text or clause.kind == "conditional":
            return
        if clause.kind == "relative":
            clause.antecedent = (self.thing(clause.antecedent_phrase, clause)
                                 if clause.antecedent_phrase else self.last_phrase)
            if clause.antecedent is None:
                return
            if self._match(_RELATIVE_PATTERNS, clause):
                return
            clause.text = f"it {clause.text}"  # "which is blocked" → "<antecedent> is blocked"
        if clause.kind == "reason" and previous is not None and previous.topic is not None:
            clause.topic = previous.topic
            if self._match(_REASON_PATTERNS, clause):
                return
            clause.topic = None
        elif clause.kind == "reason" and previous is not None:
            # "These tests have flaked consistently since #92442 merged" (k8s-93210): the
            # time or reason of a statement not read says nothing of its own
            return
        noticed = _NOTICED.match(clause.text)
        if noticed is not None and _has_verb(noticed["rest"]):
            clause.text = noticed["rest"]  # "I noticed MagicDNS stops working": what was seen
        subjectless = _SUBJECTLESS.match(clause.text)
        if subjectless is not None:
            clause.text = f"I am {clause.text}" if subjectless["ing"] else f"I {clause.text}"
        if self._match(_PATTERNS, clause) or clause.kind != "main":
            return
        # Not understood whole: maybe two clauses joined by a plain "and" ("The release went live
        # and customers are happy"). Reading the whole first keeps "search and indexing project".
        parts = _AND.split(clause.text)
        if len(parts) == 1 and ", " in clause.text:
            # "Gossip sub 1.1 is done, fork choice … and validator changes are done"
            parts = _COMMA_OR_AND.split(clause.text)
        if len(parts) > 1:
            for part in parts:
                if not self._match(_PATTERNS, replace(clause, text=part)) and (
                        _COPULA_INSIDE.search(part)):
                    # "Gossip sub 1.1 is done, fork choice, state transition": the first list
                    # item said whole before the "and"
                    for piece in _COMMA_OR_AND.split(part):
                        self._match(_PATTERNS, replace(clause, text=piece))

    def _match(self, patterns: _Patterns, clause: _Clause) -> bool:
        """Try the patterns in order; the first whose handler understands the clause wins. A
        handler that declines leaves nothing behind (no fact, note or mention)."""
        words = frozenset(_WORD.findall(clause.text.lower()))
        notes: list[str] = []  # why declining handlers declined, kept if nothing understands
        for pattern, handler, gate in patterns:
            if gate is not None and gate.isdisjoint(words):
                continue
            match = pattern.match(clause.text)
            if match is None:
                continue
            saved = self._checkpoint()
            with self.readings.running(handler.__name__.removeprefix("_on_")):
                understood = handler(self, match, clause)
            if understood:
                return True
            notes += self._rollback(saved)
        self.dropped.extend(dict.fromkeys(notes))
        return False

    def _checkpoint(self) -> _Checkpoint:
        return (len(self.records), len(self.dropped), len(self.author_items),
                len(self.sentence.issues), self.last_thing, self.last_phrase)

    def _rollback(self, saved: _Checkpoint) -> list[str]:
        """Undo what a declining handler did; return the notes it wrote."""
        records, dropped, items, issues, self.last_thing, self.last_phrase = saved
        notes = self.dropped[dropped:]
        del self.records[records:], self.dropped[dropped:], self.author_items[items:]
        del self.sentence.issues[issues:]
        return notes

    def _link_events(self, sentence: str) -> None:
        """Issues said in the same sentence as "after/since/following <event>" followed it."""
        for issue in self.sentence.issues:
            for event in self.sentence.events:
                self._fact(issue, PRECEDED_BY, event, sentence, self.ordinal)

    # ------------------------------------------------------------------------- noun phrases

    def _known_type(self, name: str) -> str | None:
        return self.known.get(_key(name))

    def _mention(self, entity: ExtractedEntity) -> ExtractedEntity:
        self.last_phrase = entity
        if entity.type in _THINGS:
            self.last_thing = entity
        return entity

    def is_first_person(self, raw: str) -> bool:
        return _clean(raw).lower() in _FIRST_PERSON

    def _pronoun(self, raw: str, clause: _Clause) -> ExtractedEntity | bool | None:
        """The entity a pronoun stands for; None if it stands for nothing known; False if the
        phrase is no pronoun."""
        words = _clean(raw).lower().split(" ")
        is_pronoun = " ".join(words) in _PRONOUNS or (
            len(words) == 2 and words[0] in {"this", "that"} and words[1] in _PRONOUN_NOUNS
        )
        if not is_pronoun:
            return False
        if clause.antecedent is not None and words == ["it"]:
            return clause.antecedent
        return self.last_thing

    def thing(self, raw: str, clause: _Clause) -> ExtractedEntity | None:
        """A work item, service, product or issue named by a noun phrase (a work item unless its
        words or the graph say otherwise)."""
        referent = self._pronoun(raw, clause)
        if referent is not False:
            if referent is None:
                self.dropped.append(f"nothing for {_clean(raw)!r} to refer to: {clause.sentence}")
                return None
            return self._mention(referent)
        reference = self.masked.reference(raw)
        if reference is not None:
            if reference.type != "WorkItem":
                return None
            self.reference_names.add(reference.name)
            return self._mention(ExtractedEntity(reference.name, "WorkItem"))
        # "the auth refactor from the backend team": the team owns it. A "from" that names no
        # owner ("data from the warehouse") stays part of the name.
        owned = _FROM_OWNER.match(_clean(raw))
        owner = None
        if owned is not None:
            owner = self.agent(owned.group("owner"), clause, mention=False)
            if owner is not None:
                raw = owned.group("item")
        phrase = _noun_phrase(raw)
        if phrase is None or names_a_group(_clean(raw)):
            return None  # (nor "multiple frontend frameworks": no one thing)
        entity = self._typed_thing(phrase)
        self._mention(entity)
        if owner is not None and owner.type in {"Person", "Team"}:
            self._fact(owner, RESPONSIBLE_FOR, entity, clause.sentence, clause.ordinal)
        return entity

    def _typed_thing(self, phrase: str) -> ExtractedEntity:
        type_ = _head_type(_words(phrase))
        name = issue_name(phrase) if type_ == "Issue" else _display(phrase)
        assert name is not None  # the head said Issue, so the phrase names one
        return ExtractedEntity(name, self._known_type(name) or type_ or "WorkItem")

    def agent(
        self, raw: str, clause: _Clause, *, reporter: bool = False, mention: bool = True
    ) -> ExtractedEntity | None:
        """A person, team or customer named by a noun phrase (the doer of something)."""
        if self.is_first_person(raw):
            if self.speaker is None and self.passage_speaker is not None and (
                    _clean(raw).lower() in _FIRST_PERSON_SINGULAR):
                return self.passage_speaker  # "**Alex**: I will spec the Gwei change"
            return self.speaker or self.author
        if self.speaker is not None and self.speaker.type == "Team" and _clean(raw).lower() in {
                "they", "them", "the team"}:
            return self.speaker  # "Shahan advised that they…" under "## Artemis"
        reference = self.masked.reference(raw)
        if reference is not None:
            if reference.type not in {"Person", "Team"}:
                return None
            entity = ExtractedEntity(reference.name, reference.type)
            return self._mention(entity) if mention else entity
        if _DEMONSTRATIVE.match(_clean(raw)):
            return None  # "This PR picks up #636": an item said again, nobody's name
        prefixed = _CUSTOMER_PREFIX.match(_clean(raw))
        if prefixed is not None:
            phrase = _noun_phrase(prefixed.group("name"))
            return ExtractedEntity(_display(phrase), "Customer") if phrase else None
        phrase = _noun_phrase(raw)
        if phrase is None:
            return None
        name = _display(phrase)
        if self.author is not None and _key(name) in self.author_keys:
            return self.author
        words = _words(phrase)
        if _TEAM_SLUG.match(phrase):
            name = phrase  # "sig-scheduling", "wg-batch", "t-compiler": kept as written
        type_ = self._known_type(name) or _head_type(words) or (
            "Team" if _TEAM_SLUG.match(phrase) else None)
        if type_ is None and _is_name(words):
            # Support context: a third party who reports an issue is a customer.
            type_ = "Customer" if reporter else "Person"
        if type_ not in _AGENTS:
            return None
        entity = ExtractedEntity(name, type_)
        return self._mention(entity) if mention else entity

    def surface(self, raw: str, clause: _Clause) -> ExtractedEntity | None:
        """Where an issue shows up: a product ("the checkout page") or a service."""
        if " ".join(_words(_clean(raw))).lower() in _GENERIC_SUBJECTS:
            return None
        if self.masked.reference(raw) is not None:
            return None
        referent = self._pronoun(raw, clause)
        if referent is not False:
            return self._mention(referent) if referent else None
        phrase = _noun_phrase(raw)
        if phrase is None:
            return None
        name = _display(phrase)
        last = _words(phrase)[-1].lower()
        type_ = self._known_type(name) or ("Service" if last in _SERVICE_HEADS else "Product")
        return self._mention(ExtractedEntity(name, type_))

    def issue(self, raw: str) -> ExtractedEntity | None:
        phrase = _noun_phrase(raw)
        name = issue_name(phrase) if phrase else None
        if name is None:
            return None
        entity = self._mention(ExtractedEntity(name, self._known_type(name) or "Issue"))
        self.sentence.issues.append(entity)
        return entity

    def plan(self, raw: str) -> ExtractedEntity | None:
        name = _plan_name(raw)
        return ExtractedEntity(name, "Plan") if name else None

    def team(self, raw: str, clause: _Clause) -> ExtractedEntity | None:
        phrase = _noun_phrase(raw)
        if phrase is None:
            return None
        name = _display(phrase)
        type_ = self._known_type(name) or _head_type(_words(phrase))
        return self._mention(ExtractedEntity(name, "Team")) if type_ == "Team" else None

    def subjects(self, raw: str, clause: _Clause) -> list[_Subject]:
        """The items a status or dependency is about; first person means the author's item
        (in someone else's reported words, it names no item we know)."""
        if self.is_first_person(raw):
            return [] if self.speaker is not None else [_AUTHORS_WORK_ITEM]
        return list(self.things(raw, clause))

    def things(self, raw: str, clause: _Clause) -> list[ExtractedEntity]:
        """One thing, or each of a list ("the API migration and the checkout flow"); nothing if
        any of them names no thing."""
        found = [self.thing(part, clause) for part in _list_parts(raw)]
        return [t for t in found if t is not None] if all(found) else []

    def blockers(self, raw: str, clause: _Clause) -> list[ExtractedEntity]:
        """What something waits on: things that can be waited on — a tracker item, a known
        entity, work or a service by its last word, a version, a name of several words — never
        an abstraction ("unresolved concerns", "feedback") or a bare common noun ("reviewer")."""
        quoted = _clean(raw).removeprefix("the ")
        if PLACEHOLDER.fullmatch(quoted) and quoted.startswith("zzquote"):
            # waiting on "confirm no other regressions": a named concern, as quoted
            words = self.masked.spans.get(quoted, "").strip("\"'“”‘’ ")
            if 1 < len(words.split()) <= 8:
                return [ExtractedEntity(words, "WorkItem")]
        parts = _list_parts(raw)
        found = []
        for part in parts:
            entity = self.thing(part, clause)
            if entity is None or not self._concrete(part, entity):
                return []
            found.append(entity)
        return found

    def _concrete(self, raw: str, entity: ExtractedEntity) -> bool:
        if entity.name in self.reference_names or self._known_type(entity.name):
            return True
        if self._pronoun(raw, _Clause("", "main", "", 0)) is not False:
            return True  # "it": something named before
        words = entity.name.split(" ")
        last = words[-1].lower()
        if last in _WORK_HEADS or last in _SERVICE_HEADS:
            return True
        if last in _VAGUE_NOUNS or (_singular_word(last) in _ABSTRACT_HEADS and not any(
                tag(w) in _NOUN_TAGS for w in words[:-1])):
            # "unresolved concerns", "more reviews": nothing to wait on; "the security review",
            # "attorney reviews" name a piece of work
            return False
        if any(c.isdigit() for c in entity.name):
            return True  # a version or a numbered thing ("11.0.1", "LLVM 17")
        if len(words) == 1:
            written = _words(_clean(raw))
            return len(written) == 1 and tag(written[0]) in {"NNP", "NNPS"}
        return True

    def agents(self, raw: str, clause: _Clause, *, reporter: bool = False
               ) -> list[ExtractedEntity]:
        """ "Carol and I", "Grace, Heidi and Ivan": every one of them, or none if one is not an
        agent (then the phrase was something else)."""
        parts = _LIST_SEPARATOR.split(_clean(raw))
        found = [self.agent(part, clause, reporter=reporter) for part in parts]
        return [a for a in found if a is not None] if all(found) else []

    def surfaces(self, raw: str, clause: _Clause) -> list[ExtractedEntity]:
        found = [self.surface(part, clause) for part in _list_parts(raw)]
        return [s for s in found if s is not None] if all(found) else []

    # ------------------------------------------------------------------------------ records

    def _fact(
        self,
        source: _Subject,
        relation: str,
        target: ExtractedEntity,
        sentence: str,
        ordinal: int,
        valid_at: datetime | None = None,
    ) -> None:
        self.records.append(_Record("fact", source, relation, target, sentence, ordinal, valid_at,
                                    self.readings.path()))

    def fact(
        self, source: _Subject, relation: str, target: ExtractedEntity, clause: _Clause
    ) -> None:
        if relation == USES and self.thread is not None and self.thread.change:
            return  # "We use a similar strategy to …" in a pull request: how the code works
        if not can_name(target.name) or (
                isinstance(source, ExtractedEntity) and not can_name(source.name)):
            return  # "Onboarded zzref0zz", "or commented on …": a cut, no name
        self._fact(source, relation, target, clause.sentence, clause.ordinal, clause.valid_at)

    def tagged(self, reading_name: str, source: _Subject, relation: str,
               target: ExtractedEntity, clause: _Clause) -> None:
        """``fact``, tagged with a reading inside the one running."""
        with self.readings.running(reading_name):
            self.fact(source, relation, target, clause)

    def closure(self, source: _Subject, relation: str, target: ExtractedEntity | None,
                clause: _Clause) -> None:
        self.records.append(_Record("closure", source, relation, target, clause.sentence,
                                    clause.ordinal, clause.valid_at, self.readings.path()))

    def status(
        self, subject: _Subject, word: str, clause: _Clause, *, reported: bool = True
    ) -> None:
        """``subject HAS_STATUS <word>``. ``reported``: the author tells the status of their own
        work (not a reason they give for something else), so the item may be theirs."""
        if not isinstance(subject, ExtractedEntity):
            return  # "I'm blocked" says nothing about which item
        if not can_name(subject.name):
            return  # "Accepted or commented on …": a cut, no item
        canonical = _STATUS_WORDS.get(word.lower(), word.lower())
        if self.thread is not None and word.lower() in TRACKER_RELEASED:
            canonical = "released"  # a tracker's "shipped in 1.29" (GUIDE §9), not Done
        if word.lower() in {"stuck", "held up"} and (subject.type != "WorkItem" or (
                self.author is not None and self.author.type == "Customer")):
            # "Docker Desktop is stuck", a customer's "it was still stuck": a symptom of a
            # product, not a work status
            return
        if subject.type == "Issue" and (canonical in _COMPLETE or canonical == "fixed"):
            canonical = _RESOLVED
            if self.resolved_for_author:
                return  # "resolved for us": the customer's report closes, not the issue
        # A status said in passing about something else ("…because Y is late", "…Y, which is
        # late") is no report on the author's own work.
        reported = (reported and clause.kind not in {"reason", "relative"}
                    and self.speaker is None and not self.in_context
                    and subject.name not in self.reference_names)
        if reported and self.author is not None:
            with self.readings.running("implied_owner"):
                self.records.append(_Record("implied", self.author, RESPONSIBLE_FOR, subject,
                                            clause.sentence, clause.ordinal,
                                            reading=self.readings.path()))
        if reported and subject.type == "WorkItem":
            self.author_items.append((clause.ordinal, subject))
        self.fact(subject, HAS_STATUS, ExtractedEntity(_display(canonical), "Status"), clause)

    def owns(self, owner: ExtractedEntity | None, item: ExtractedEntity | None,
             clause: _Clause) -> bool:
        if owner is None or item is None:
            return False
        self.fact(owner, RESPONSIBLE_FOR, item, clause)
        if owner is self.author and item.type == "WorkItem":
            self.author_items.append((clause.ordinal, item))
        return True

    def reports(self, reporter: ExtractedEntity | None, issue: ExtractedEntity,
                surface: ExtractedEntity | None, clause: _Clause) -> bool:
        """``reporter REPORTED issue`` and ``issue AFFECTS surface``. Without a named reporter, an
        issue in a customer's own episode is theirs. Once the episode's title reported the
        problem, its author's sentences describe that report: no second one."""
        if reporter is None and self.author is not None and self.author.type == "Customer":
            reporter = self.author
        if describes_its_fix(self.thread, reporter == self.author or reporter is None):
            return True  # understood: "Prior to this change, we failed to narrow …"
        if reporter is not None and reporter == self.author and not self._may_report():
            return True  # understood: the vendor's words, or advice on a condition
        if self.title_reported and (reporter is None or reporter == self.author):
            if issue in self.sentence.issues:
                self.sentence.issues.remove(issue)  # nor does it follow an event a second time
            return True
        if reporter is not None:
            self.fact(reporter, REPORTED, issue, clause)
        if surface is not None and not is_circumstance(surface.name):
            self.fact(issue, AFFECTS, surface, clause)
        return True


# ------------------------------------------------------------------------------------ handlers
# Each handler gets a pattern's match on a clause; it returns False when the words matched but
# do not mean what the pattern is about (the reader then undoes what it did and tries the next
# pattern). Noun phrases may be lists: "the API migration and the checkout flow are blocked".


def _dependency(r: _Reader, waiting: list[_Subject], blockers: list[ExtractedEntity],
                c: _Clause) -> bool:
    """Every waiting item ``DEPENDS_ON`` every blocker."""
    if not waiting or not blockers:
        return False
    for item in waiting:
        for blocker in blockers:
            r.fact(item, DEPENDS_ON, blocker, c)
    c.topic = waiting[-1]
    return True


def _statuses(r: _Reader, items: list[_Subject], word: str, c: _Clause,
              reported: bool = True) -> bool:
    for item in items:
        r.status(item, word, c, reported=reported)
    if items:
        c.topic = items[-1]
    return bool(items)


def _closures(r: _Reader, waiting: list[_Subject], blockers: list[ExtractedEntity],
              c: _Clause) -> bool:
    if not waiting or not blockers:
        return False
    for item in waiting:
        for blocker in blockers:
            r.closure(item, DEPENDS_ON, blocker, c)
    return True


def _on_no_longer_waiting(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "I'm no longer waiting on X", "X is no longer blocked on Y", "X no longer needs Y"."""
    return _closures(r, r.subjects(m["s"], c), r.things(m["o"], c), c)


def _on_no_longer_seeing(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "We're no longer seeing 502 errors": the reporter's report of that issue ends."""
    reporter = r.agent(m["s"], c, reporter=True)
    issue = r.issue(m["i"])
    if reporter is None or issue is None:
        return False
    r.closure(reporter, REPORTED, issue, c)
    return True


def _on_no_longer_blocking(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    blockers = r.things(m["o"], c)
    return _closures(r, r.subjects(m["s"], c), blockers, c)


def _on_unblocked(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "X is unblocked": X waits on nothing any more (closes every DEPENDS_ON of X)."""
    items = r.subjects(m["s"], c)
    for item in items:
        r.closure(item, DEPENDS_ON, None, c)
    return _statuses(r, items, "unblocked", c)


def _on_plan_change(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "We upgraded to Enterprise", "Initech moved to the Business plan" — or, for a person,
    "Dana moved to the platform team"."""
    if _on_plan(r, m, c):
        return True
    moved = m["verb"].lower() in {"moved", "switched", "transferred"}
    return moved and _membership(r, m["s"], m["p"], c)


def _on_plan(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "We have the Pro plan" (only a plan: "we have 3 users" is nothing). The holder is a
    customer (the ontology drops a person's plan)."""
    plan = r.plan(m["p"])
    if plan is None:
        return False
    holder = r.author if r.is_first_person(m["s"]) else r.agent(m["s"], c, reporter=True)
    if holder is None:
        return False
    r.fact(holder, ON_PLAN, plan, c)
    return True


def _on_is_on(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "Acme is on the Standard plan" or "I'm on the platform team"; a customer "on the
    latest version of docker desktop" uses it (``support_products``)."""
    return _on_plan(r, m, c) or _membership(r, m["s"], m["p"], c) or _on_version_of(r, m, c)


def _on_version_of(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    if r.author is None or r.author.type != "Customer" or not r.is_first_person(m["s"]):
        return False
    used = [t for named in product_versions_in_use(r.masked.unmask(m["p"]), r.product)
            if (t := r.surface(named, c)) is not None]
    for thing in used:
        r.fact(r.author, USES, thing, c)
    return bool(used)


def _membership(r: _Reader, member_raw: str, team_raw: str, c: _Clause) -> bool:
    members = r.agents(member_raw, c)
    team = r.team(team_raw, c)
    if not members or team is None:
        return False
    for member in members:
        r.fact(member, MEMBER_OF, team, c)
    return True


def _on_member(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    return _membership(r, m["s"], m["t"], c)


# Support: who reports which issue, and where it shows.


_IN_LOGS = re.compile(r"\b(?:in|from|on) (?:the |your |my |these |those )?(?:\w+ )?(?:logs?"
                      r"|diagnostics|log files?|console output)\b", _I)


def _on_reporter(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "We're seeing 502 errors on the checkout page", "Globex reported timeouts". In a pull
    request nobody reports a problem: "The new ARM runners report a permission error" (uv-pr-10697)
    says what the change is about (its title reports nothing either)."""
    if r.thread is not None and r.thread.change:
        return False
    subject = m["s"]
    reporter = r.agent(subject, c, reporter=True)
    surface = None
    if reporter is None:  # "the checkout page is getting 502s": the subject is where it shows
        surface = r.surface(subject, c)
        if surface is None:
            return False
        reporter = r.author if subject.lower().startswith(_POSSESSIVE_FIRST_PERSON) else None
    if _IN_LOGS.search(c.text):
        return False  # "I see WMI errors in the logs": read off someone's logs, not a report
    issue = r.issue(m["i"])
    if issue is None:
        return False
    if m["p"]:
        surface = r.surface(m["p"], c) or surface
    return r.reports(reporter, issue, surface, c)


def _on_surface_issue(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "Our dashboard has been throwing 500 errors", "Exports fail with timeout errors"."""
    return _surface_has(r, m["s"], m["i"], c)


def _surface_has(r: _Reader, subject: str, issue_raw: str, c: _Clause,
                 where: str | None = None) -> bool:
    """An issue shows on the subject (or on ``where``); "we"/"our …" make it the author's
    report."""
    if _imperative(_clean(subject)):
        return False  # "Add more information on parse_macro fail": a change, not a report
    first_person = r.is_first_person(subject)
    reporter = r.author if first_person or subject.lower().startswith(
        _POSSESSIVE_FIRST_PERSON) else None
    surface = None if first_person else r.surface(subject, c)
    issue = r.issue(issue_raw)
    if issue is None:
        return False
    if where:
        surface = r.surface(where, c) or surface
    return r.reports(reporter, issue, surface, c)


def _on_times_out(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    return _surface_has(r, m["s"], "timeouts", c, m["p"])


def _on_cannot_log_in(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    return _surface_has(r, m["s"], "login failures", c, m["p"])


def _on_fails_to(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "Exports fail to load" → Load Failures."""
    verb = m["v"].lower().replace("log in", "login").replace("sign in", "login")
    return _surface_has(r, m["s"], f"{verb} failures", c)


def _on_failing(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "Our exports keep failing" → Export Failures, named after what fails so that the same
    failure said by two customers matches and different failures do not."""
    phrase = _noun_phrase(m["s"])
    if phrase is None or r.is_first_person(phrase) or whole_product_fails(
            phrase, "stopped working" if "work" in m.group(0).lower() else "", r.product):
        return False
    words = " ".join(_words(phrase))
    if words.lower() in _GENERIC_SUBJECTS:
        return False
    return _surface_has(r, m["s"], f"{_singular(words)} failures", c)


def _singular(phrase: str) -> str:
    """A naive singular for a name's last word ("exports" → "export", "deliveries" →
    "delivery"; "status" stays)."""
    head, _, last = phrase.rpartition(" ")
    if len(last) > 4 and last.endswith("ies"):
        last = last[:-3] + "y"
    elif len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        last = last[:-1]
    return f"{head} {last}".strip()


def _on_slow(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "The checkout page is slow" — in a support ticket only: from a project update, "progress
    is slow" is no latency."""
    ours = m["s"].lower().startswith(_POSSESSIVE_FIRST_PERSON)
    if not ours and (r.author is None or r.author.type != "Customer"):
        return False
    return _surface_has(r, m["s"], "latency", c)


def _on_down(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    kind = "outage" if "down" in m["how"].lower() else "crashes"
    return _surface_has(r, m["s"], kind, c)


_PROBLEM_PATTERN = (
    r"^(?P<s>(?:(?:my|our|the|this|your) )?[\w.+-]+(?: [\w.+-]+){0,4}?)"
    r" (?:(?:is|are|was|were|has been|have been|seems|seem|keeps|keep|got|gets|is still"
    r"|was still) )?(?P<p>stuck (?:in|on|at) [^,;]{2,40}"
    r"|not (?:working|starting|loading|running|opening|responding|resolving|connecting)"
    r"|(?:stopped|stops) (?:working|responding|resolving|loading)"
    r"|(?:does|do|did) not (?:work|start|load|open|run|resolve|connect)"
    r"|no longer (?:works?|starts?|loads?|resolves?)"
    r"|(?:does|do|did) no longer (?:work|start|load|open|run|resolve|connect)"
    r"|(?:will not|cannot|can not|could not|fails to|failed to|unable to|never) (?:start|open"
    r"|load|run|launch|connect|resolve|sync|work|boot|come up|log in|sign in)s?"
    r"|loads? forever|(?:very |really |extremely |so )?(?:unusable|unresponsive))"
    r"(?P<rest>[ ,.].*)?$"
)


# What "does not work" without being a product: a remedy, a step, a piece of text.
_NOT_PRODUCTS = frozenset(
    {"workaround", "solution", "fix", "reset", "restart", "reinstall", "update", "upgrade",
     "suggestion", "trick", "command", "step", "steps", "method", "approach", "link", "it",
     "this", "that", "anything", "nothing", "everything", "thing", "one", "above", "same",
     "button", "option", "setting", "issue", "problem", "error", "bug"}
)


def _on_same_problem(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "I have the same issue of Docker stuck in starting": a customer who names the problem
    they share reports it, in those words."""
    if r.author is None or r.author.type not in {"Customer", "Person"} or r.speaker is not None:
        return False
    words = _OBJECT_END.split(_clean(m["i"]), maxsplit=1)[0]
    if same_issue_of_an_area(words):
        words = f"{words} issue"  # "the same issue with my self-signed cert": the cert's problem
    elif len(words.split(" ")) < 2 or not _REPORT_TITLE.search(words):
        return False  # "… with the same version of macOS": a circumstance, no problem named
    issue = ExtractedEntity(_display(words), "Issue")
    r.sentence.issues.append(issue)
    return r.reports(r.author, issue, None, c)


def _on_first_person_problem(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "I am no longer able to auto fill on a website": the author's problem, in their words
    (the symptoms of the synonym table are read before, under their canonical names)."""
    if r.author is None or r.speaker is not None or r.in_context:
        return False
    predicate = _OBJECT_END.split(_clean(m["p"]), maxsplit=1)[0]
    predicate = re.split(r"\s+(?:on|in|with|for|from|at)\s+", predicate, maxsplit=1)[0]
    if len(predicate.split(" ")) < 3:
        return False
    issue = ExtractedEntity(_display(predicate), "Issue")
    r.sentence.issues.append(issue)
    return r.reports(r.author, issue, None, c)


def _on_problem(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "Docker Desktop fails to start", "MagicDNS stops working", "Docker is stuck in starting
    mode": a problem named by the customer's own words (subject and predicate), reported by the
    author, affecting the product it is about."""
    if r.speaker is not None or r.in_context:
        return False
    subject = _clean(m["s"])
    if subject.split(" ")[-1].lower() in _NOT_PRODUCTS:
        return False  # "the workaround does not work": no product of theirs
    if whole_product_fails(subject, m["p"], r.product):
        return False  # "my docker stopped working and was unable to start": the symptom is after
    surface = r.surface(subject, c)
    if surface is None or surface.type not in {"Product", "Service"}:
        return False
    predicate = r.masked.unmask(_clean(m["p"])).replace("will not", "won't").replace(
        "does not", "doesn't")
    words = " ".join(_words(subject))
    name = _display(f"{words} {predicate}") if not words.lower().startswith(
        ("it ", "this ")) else _display(predicate)
    if " same " in f" {predicate.lower()} ":
        return False  # "still stuck in the same stage": the thread's problem, said again
    issue = ExtractedEntity(name, r._known_type(name) or "Issue")
    r.sentence.issues.append(issue)
    reporter = r.author if r.author is not None and r.author.type in {"Customer", "Person"} else (
        None)
    # "Docker fails to start" affects Docker; "… on the web vault" affects the web vault.
    where = _WHERE.match(r.masked.unmask(m["rest"] or "").strip(" ,.").lower())
    elsewhere = None
    if where is not None and not _names_platform(where["np"]):
        elsewhere = r.surface(where["np"], c)
    if elsewhere is None and _names_product(r, subject, surface):
        elsewhere = surface
    return r.reports(reporter, issue, elsewhere, c)


def _same_problem(one: str, other: str | None) -> bool:
    """Whether two canonical problem names are one problem, its degree aside ("Memory Usage",
    "High Memory Usage")."""
    return other is not None and (one.removeprefix("High ") == other.removeprefix("High "))


def _bare_title(name: str) -> str:
    """A title issue's words without its ``(#12)``."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", name)


def _names_platform(phrase: str) -> bool:
    """ "my windows 10 pro", "macOS": where a problem happens, not the product it is in."""
    words = [w for w in phrase.lower().split() if w not in _DETERMINERS]
    return bool(words) and (words[0] in _PLATFORMS or words[-1] in _PLATFORMS)


_PRODUCT_CASE = re.compile(r"[a-z][A-Z]|[A-Z][A-Z0-9]|\w\.\w")


def _names_product(r: _Reader, subject: str, surface: ExtractedEntity) -> bool:
    """Whether the subject of a symptom names a product ("Docker fails to start", "MagicDNS
    stops working") rather than a feature or a part said in lower case ("autofill does not
    work", "the terminal will not open"): a product the graph knows, or a name written as one
    (a capital inside the words — "MagicDNS", "Docker Desktop" — or a dotted name)."""
    if surface.type not in {"Product", "Service"} or _names_platform(subject):
        return False
    if r._known_type(surface.name) in {"Product", "Service"}:
        return True
    words = subject.split()
    if words and words[0].lower() in {"my", "our", "the", "this", "your", "it"}:
        words = words[1:]
    if not words:
        return False
    # A lone capitalised first word ("Autofill does not work") may only open the sentence.
    return bool(_PRODUCT_CASE.search(" ".join(words))) or any(
        w[:1].isupper() for w in words[1:])


def _on_issue_said(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "The timeouts (on the export) started (after the nightly backfill)", or a ticket title
    that is only an issue: "502 errors on the checkout page"."""
    issue_raw, where = m["i"], m["p"]
    if _imperative(_clean(issue_raw)):
        return False  # "Fix test failure in …", "Add more information on … failures"
    inner = _ISSUE_WHERE.match(_clean(issue_raw))
    if inner is not None and where is None:
        issue_raw, where = inner["issue"], inner["where"]
    issue = r.issue(issue_raw)
    if issue is None:
        return False
    surface = r.surface(where, c) if where else None
    if where and surface is None:
        return False  # "… on <something that is no place>": the clause says more than this
    return r.reports(None, issue, surface, c)


def _on_symptom(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "Unable to log in", "I'm locked out of my account", "the app takes forever to load":
    a symptom of the synonym table, reported by the customer whose episode it is (or by whoever
    says it in the first person), affecting the product named before or after it."""
    text = m["all"]
    found = find_symptom(text)
    if found is None:
        return False
    name, start, end = found
    if name == "Latency":
        name = slow_action(text) or name  # "takes forever to start": the start's failure
    before = _symptom_tokens(text)[:start]
    # "I can't log in" is a report; "we crash when…" is a team describing its own code.
    first_person = any(w in _FIRST_PERSON_SINGULAR for w in before)
    customer = r.author is not None and r.author.type == "Customer"
    if not (customer or first_person) or r.speaker is not None:
        return False
    reporter = r.author
    surface = None
    subject = _SUBJECT_BEFORE_VERB.match(" ".join(before))
    if subject is not None and not first_person:
        surface = r.surface(subject["np"], c)
        if surface is None:
            return False  # "the rollout is slow": said of something no product is
    where = _WHERE.match(tokens_after(text, end))
    if _IN_LOGS.search(text):
        return False  # "I see errors in the logs": read off someone's logs, not a report
    if where is not None and where["np"].split(" ")[-1] not in _NOT_SURFACES:
        surface = r.surface(where["np"], c) or surface
    issue = r.issue(name)
    if issue is None:
        return False
    return r.reports(reporter, issue, surface, c)


_FIRST_PERSON_WORDS = frozenset({"i", "we", "me", "us", "my", "our"})
_FIRST_PERSON_SINGULAR = frozenset({"i", "me", "my"})
_SUBJECT_BEFORE_VERB = re.compile(
    r"^(?P<np>(?:the |this |that |your )?[a-z0-9][\w-]*(?: [a-z0-9][\w-]*){0,3}?)"
    r"(?: (?:is|are|was|were|has been|have been|keeps|keep|kept|seems|seem|gets|get|got"
    r"|started|starts|has|have|will|would|does|do|did|cannot))*"
    # "Warp uses a significant amount of memory": the product eats the resource
    r"(?: (?:uses|use|used|eats|eat|ate|consumes|consume|consumed|takes|take|took)"
    r"(?: (?:a|an|the|so|too|way too))?(?: (?:significant|large|huge|big|massive|high|crazy"
    r"|insane|ridiculous|unreasonable|excessive))?)?$"
)
_WHERE = re.compile(
    r"^(?:to|into|on|in|with|from|when using|when opening|while using|for|of) "
    r"(?P<np>(?:the |your |our |my )?[a-z0-9][\w-]*(?: [a-z0-9][\w-]*){0,3})$"
)
_NOT_SURFACES = frozenset({"account", "accounts", "it", "this", "that", "us", "me", "them",
                           "everything", "anything", "time", "times", "while", "minute",
                           "minutes", "hour", "hours", "second", "seconds", "day", "days"})


# Statuses and completion.


def _on_status(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    if _COPULA_INSIDE.search(m["s"]):
        return False  # "Gossip sub 1.1 is done, fork choice … are done": two clauses, read apart
    return _statuses(r, r.subjects(m["s"], c), m["st"], c)


_COPULA_INSIDE = re.compile(r"\b(?:is|are|was|were)\b[^,]*,", _I)


def _on_cannot_move(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "The checkout flow can't move forward": Blocked."""
    return _statuses(r, r.subjects(m["s"], c), _BLOCKED, c)


def _on_custom_completion(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """A graph's own completion word ("X is deployed") from its ontology."""
    if not r.ontology.is_completion_status(m["w"]):
        return False
    return _statuses(r, r.subjects(m["s"], c), _DONE, c)


def _on_completed_by(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "The auth refactor was shipped by the backend team"; "#12 is fixed by #34": a change
    fixes the item, which waited on it (as "Fixes #12" in #34 says) and now has its status."""
    items = r.things(m["o"], c)
    reference = r.masked.reference(m["d"])
    if reference is not None and reference.type == "WorkItem" and items:
        change = ExtractedEntity(reference.name, "WorkItem")
        r.reference_names.add(change.name)
        if not _dependency(r, list(items), [change], c):
            return False
        return _statuses(r, list(items), m["st"], c, reported=False)
    return _completed(r, r.agents(m["d"], c), items, m["st"], c)


def _on_completed(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "The backend team shipped the auth refactor", "We finished the pipeline rewrite"; in
    notes with no author, "Released Client benchmark" says only that the thing is released."""
    doers = r.agents(m["d"], c)
    if not doers and r.is_first_person(m["d"]) and r.author is None and r.speaker is None:
        items = r.things(_OBJECT_END.split(_clean(m["o"]), maxsplit=1)[0], c)
        return _statuses(r, list(items), m["st"], c, reported=False)
    return _completed(r, doers, r.things(m["o"], c) if doers else [], m["st"], c)


def _completed(r: _Reader, doers: list[ExtractedEntity], items: list[ExtractedEntity], word: str,
               c: _Clause) -> bool:
    """A completion with its doer: the doer is responsible (not the author), the item is done."""
    if not doers or not items:
        return False
    for item in items:
        for doer in doers:
            if r.heading_agent is not None and doer == r.speaker == r.heading_agent:
                continue  # "## Lighthouse" / "- Released X": a done item, no one's work now
            r.owns(doer, item, c)
    return _statuses(r, list(items), word, c, reported=False)


# Dependencies.


def _on_waiting(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "I'm waiting on X", "X depends on Y", "X is waiting for Y". Waiting on someone or on
    something no work item is ("#123 is waiting on review / on the team") is a status. Someone
    waiting ("Thomas waiting for repository on other side") is neither: people wait, work
    depends (``names_evidence.waits_in_person``)."""
    waiting = [w for w in r.subjects(m["s"], c) if not waits_in_person(w)]
    if _dependency(r, waiting, r.blockers(m["o"], c), c):
        return True
    if not waiting or any(not isinstance(w, ExtractedEntity) for w in waiting):
        return False
    if " waiting " not in f" {c.text.lower()} ":
        return False  # "depends on the security team": no status is said
    if _REVIEW.match(_clean(m["o"])):
        return _statuses(r, waiting, "in review", c)
    return _statuses(r, waiting, "waiting", c)


_REVIEW = re.compile(r"^(?:a |the |code |final |their |your |another )*reviews?\b", _I)


def _on_blocked_by(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "X is blocked by/on Y", "X can't move forward without Y": X depends on Y and X's status
    is Blocked. Blocked on what no work item is ("unresolved concerns") is still Blocked."""
    waiting = r.subjects(m["s"], c)
    blockers = r.blockers(m["o"], c)
    if blockers and not _dependency(r, waiting, blockers, c):
        return False
    if not blockers and any(not isinstance(w, ExtractedEntity) for w in waiting):
        return False
    return _statuses(r, waiting, _BLOCKED, c)


def _on_needs(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    if r.is_first_person(m["s"]):
        return False  # "we need more time" names no work item
    items = r.things(m["s"], c)
    if items and _REVIEW.match(_clean(m["o"])):
        return _statuses(r, list(items), "in review", c)
    if names_an_amount(_clean(m["o"])):
        return False  # "needs more work": an amount of effort, no item depended on
    return _dependency(r, items, r.blockers(m["o"], c), c)


def _on_blocking(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "Y is blocking X" / "Y blocks X" → X DEPENDS_ON Y (stored with the waiting item first)."""
    blockers = r.blockers(m["o"], c)
    return _dependency(r, r.subjects(m["s"], c), blockers, c)


# Ownership.


def _on_owned_by(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    items = r.things(m["o"], c)
    return _owned(r, r.agents(m["s"], c), items, c)


def _on_owns(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    owners = r.agents(m["s"], c)
    if not owners:
        return False
    items = r.things(m["o"], c)
    if not items:
        # "working on X to make Y", "improving X, and Z": the work is the noun phrase before
        # the purpose or the next clause
        head = _OBJECT_END.split(_clean(m["o"]), maxsplit=1)[0]
        if head != _clean(m["o"]):
            items = r.things(head, c)
    return _owned(r, owners, items, c)


def _on_will_do(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """Someone named (or "I" with a known speaker) says they will do a piece of work: they are
    responsible for it. "We will …" names no one."""
    if _clean(m["s"]).lower() in {"we", "us", "our team", "they", "you", "it", "this", "that"}:
        return False
    if r.is_first_person(m["s"]) and (r.speaker is None and r.passage_speaker is None
                                       and r.author is None):
        return False
    return _on_owns(r, m, c)


_OBJECT_END = re.compile(r"\s+(?:to|so|so that|in order to|because|which|that|as)\s+|\s*[,;(]\s*")


def _on_works_with(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "I'm working with Bob on the API migration": both of them."""
    owners = r.agents(m["s"], c) + r.agents(m["with"], c)
    return _owned(r, owners, r.things(m["o"], c), c)


def _owned(r: _Reader, owners: list[ExtractedEntity], items: list[ExtractedEntity],
           c: _Clause) -> bool:
    if not owners or not items:
        return False
    for item in items:
        for owner in owners:
            r.owns(owner, item, c)
    return True


def _on_assigned(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "I've been assigned (to) the SSO rollout" vs "The SSO rollout is assigned to Erin"."""
    left, right = m["a"], m["b"]
    if m["to"] and not r.is_first_person(left):
        assignees = r.agents(right, c)
        if assignees:
            return _owned(r, assignees, r.things(left, c), c)
    owners = r.agents(left, c)
    return _owned(r, owners, r.things(right, c) if owners else [], c)


_RESOURCE_AMOUNT = re.compile(
    r"^(?:(?:a |an |the )?(?:\w+ )?(?:amount|lot|lots|ton|tons|bit|deal|share|percent|%)\b"
    r"|(?:too much|so much|way too much|much|more|less|all|most|up to|over|nearly|almost"
    r"|about|around|\d)|.*\b(?:memory|ram|cpu|cpus|cores?|battery|bandwidth|disk space"
    r"|resources)$)", _I)


_INDEFINITE = re.compile(r"^\s*(?:a|an|some|any|another)\s", _I)
_FOR_A_WHILE = re.compile(
    r"\s+(?:for (?:a (?:while|long time|few \w+)|(?:some|many|several|\d+) \w+|years|months|weeks"
    r"|days|ages)|since (?:\d{4}|years|months|a while|forever))(?: now)?\W*$", _I)
_ON_PLATFORM = re.compile(r"\s+(?:on|under)\s+(?P<platform>[\w.+ -]+?)\W*$", _I)


def _on_uses(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "We use the reporting API": standing context."""
    customer_context = r.author is not None and r.author.type == "Customer"
    users: list[ExtractedEntity] = r.agents(m["s"], c, reporter=customer_context)
    if not users and names_a_document(_clean(m["s"])):
        return False  # "The new proposal uses static methods on Map": its design, no product
    if not users:
        users = r.things(m["s"], c)
    if _RESOURCE_AMOUNT.match(m["o"]):
        return False  # "Warp uses a significant amount of memory": a symptom, not a product
    if _INDEFINITE.match(m["o"]):
        return False  # "I was using a proxy in Code": a kind of thing, no product named
    used_words = _FOR_A_WHILE.sub("", m["o"])  # "… for a while now": how long, not what
    on = _ON_PLATFORM.search(used_words)
    if on is not None and _names_platform(on["platform"]):
        # "tailscale cli on Ubuntu": the product, not the platform it runs on (GUIDE §8.5)
        used_words = used_words[:on.start()]
    used = [r.plan(used_words)] if r.plan(used_words) else r.surfaces(used_words, c)
    if not users or not used:
        return False
    if _tag_of(_clean(m["s"]).split(" ")[0]) in {"VB", "VBP"} or not all(
            r.plan(used_words) or _names_software(r, t.name, part)
            for t, part in zip(used, _list_parts(used_words), strict=False) if t is not None):
        # "need real-world use cases", "The current API uses integers": no product is used
        return False
    for user in users:
        for thing in used:
            if thing is not None:
                r.fact(user, USES, thing, c)
    return True


def _names_software(r: _Reader, name: str, written: str) -> bool:
    """Whether a used thing's name can name software: a name (a capital or a digit), a word
    no English lexicon knows ("tailscale cli"), a service's head word or a known entity — not
    a plain common noun ("integers")."""
    words = _words(_clean(written))
    return bool(r._known_type(name)) or words[-1].lower() in _SERVICE_HEADS or any(
        not w.islower() or any(ch.isdigit() for ch in w) or not is_common_word(w)
        for w in words)


# Relative clauses: "…, which the backend team owns" (the antecedent is the object).


def _on_relative_owns(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    assert c.antecedent is not None
    return _owned(r, r.agents(m["s"], c), [c.antecedent], c)


def _on_relative_waiting(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    assert c.antecedent is not None
    return _dependency(r, r.subjects(m["s"], c), [c.antecedent], c)


# Reason clauses: what the previous clause's item waits on ("…because Y isn't ready").


def _on_reason(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    assert c.topic is not None
    return _dependency(r, [c.topic], r.things(m["o"], c), c)


def _on_reason_status(r: _Reader, m: re.Match[str], c: _Clause) -> bool:
    """ "…because the payments integration is delayed": a dependency, and Y's stated status
    (which does not make Y the author's)."""
    assert c.topic is not None
    blockers = r.things(m["o"], c)
    if not _dependency(r, [c.topic], blockers, c):
        return False
    return _statuses(r, list(blockers), m["st"], c, reported=False)


# ------------------------------------------------------------------------------------ patterns


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _I)


def _rule(pattern: str, handler: _Handler, gate: str | frozenset[str] = "") -> _Rule:
    """A pattern, what understands its match, and the words (space-separated) one of which the
    clause must contain for the pattern to be worth trying: a set lookup that spares most
    clauses most regexes. No gate: always try."""
    words = _word_set(gate) if isinstance(gate, str) else gate
    return _Rule(_p(pattern), handler, words or None)


# A status pattern can only match when the clause holds a status word's last word ("risk").
_STATUS_GATE = frozenset(phrase.rsplit(" ", 1)[-1] for phrase in _STATUS_WORDS)
_BE_GATE = "is are am was were been remains remain seems seem looks look got gets get went"


_OWN_VERBS = (r"owns|own|owned|leads|lead|drives|drive|runs|run|manages|manage|maintains|maintain"
              r"|handles|handle")
_COMPLETION_VERBS = (r"shipped|finished|completed|released|launched|delivered|merged|closed"
                     r"|resolved|fixed|wrapped up|landed|implemented")
_REPORT_VERBS = (r"seeing|getting|hitting|experiencing|encountering|noticing|running into"
                 r"|reporting|ran into|hit|got|saw|see|get|have|has|had|reported|report|reports"
                 r"|noticed|notice|complained about|complain about|complains about")
_MOVE_ON = r"move forward|proceed|progress|continue|go ahead|start|ship|launch|go live|move"
_CANNOT = r"cannot|could not|(?:is|are|am) unable to|(?:is|are|am) not able to"

_PATTERNS: _Patterns = (
    # closures — "no longer" first, before anything reads "blocked on" as a dependency
    _rule(r"^(?P<s>.+?) (?:is|are|am) no longer (?:blocked|waiting|held up|stuck|gated)"
          r" (?:on|by|for|behind) (?P<o>.+)$", _on_no_longer_waiting, "longer"),
    _rule(r"^(?P<s>.+?) no longer (?:depends|depend|needs|need|requires|require|waits|wait)"
          r"(?: on| for)? (?P<o>.+)$", _on_no_longer_waiting, "longer"),
    _rule(r"^(?P<o>.+?) (?:is|are) no longer (?:blocking|holding up|gating) (?P<s>.+)$",
          _on_no_longer_blocking, "longer"),
    _rule(r"^(?P<s>.+?) (?:(?:is|are|am) )?no longer (?:seeing|getting|hitting|experiencing"
          r"|having) (?P<i>.+)$", _on_no_longer_seeing, "longer"),
    _rule(rf"^(?P<s>.+?) (?:{_BE} )?(?:unblocked|no longer blocked)$", _on_unblocked,
          "unblocked longer"),
    # plans (and "moved to the platform team")
    _rule(r"^(?P<s>.+?) (?:has |have |had )?(?P<verb>upgraded|downgraded|moved|switched|changed"
          r"|migrated|went|signed up|subscribed|transferred)(?: (?:us|our account|our plan))?"
          r"(?: from (?P<from>.+?))? (?:to|for|onto) (?P<p>.+)$", _on_plan_change,
          "upgraded downgraded moved switched changed migrated went signed subscribed"
          " transferred"),
    _rule(rf"^(?P<s>.+?) {_BE} (?:on|subscribed to|using) (?P<p>.+)$", _on_is_on,
          "on subscribed using"),
    _rule(r"^(?P<s>.+?) (?:have|has|bought|purchased|pay for|pays for) (?P<p>.+)$", _on_plan,
          "have has bought purchased pay pays"),
    # support: issues and where they show
    _rule(rf"^(?P<s>.+?) (?:{_BE} |keeps |keep |kept |started |starts )?(?:throwing|throws|threw"
          r"|returning|returns|returned|showing|shows|showed|giving|gives|gave|raising|raises"
          rf"|spitting out|producing) (?:us |me )?{_QUANTITY}(?P<i>.+)$", _on_surface_issue,
          "throwing throws threw returning returns returned showing shows showed giving"
          " gives gave raising raises spitting producing"),
    _rule(rf"^(?P<s>.+?) (?:fail|fails|failed|{_BE} failing|keep failing|keeps failing|error out"
          r"|errors out|errored out|crash|crashes|crashed) (?:with|due to|because of|on)"
          rf" {_QUANTITY}(?P<i>.+)$", _on_surface_issue,
          "fail fails failed failing error errors errored crash crashes crashed"),
    _rule(rf"^(?P<s>.+?) (?:time out|times out|timed out|{_BE} timing out|keep timing out"
          rf"|keeps timing out)(?: (?:{_SURFACE_PREP}) (?P<p>.+))?$", _on_times_out,
          "time times timed timing"),
    _rule(rf"^(?P<s>.+?) (?:{_CANNOT}) (?:log in|login|sign in)(?: (?:to|on|into) (?P<p>.+))?$",
          _on_cannot_log_in, "log login sign"),
    # "I have the same issue of Docker stuck in starting": the thread's problem, named
    _rule(r"^I (?:have|had|am having|was having|am facing|am seeing|get|got|see|hit|am hitting)"
          r" (?:the |a |exactly the |the exact )?(?:same|similar) (?:exact )?(?:issue|problem|bug)"
          r" (?:of|with|where|that|as in) (?P<i>.{4,80})$", _on_same_problem, "same similar"),
    # "I am no longer able to auto fill": the customer's own words
    _rule(r"^I (?:am|was) (?P<p>(?:no longer|not|now not) able to [a-z].{2,40}|unable to [a-z]"
          r".{2,40})$", _on_first_person_problem, "able unable"),
    # a product that will not start, is stuck, stopped working: the customer's own words
    _rule(_PROBLEM_PATTERN, _on_problem,
          "stuck not stopped stops does do did longer will cannot can could fails failed unable"
          " never forever unusable unresponsive"),
    _rule(rf"^(?P<s>.+?) (?:fail|fails|failed|{_BE} failing|keep failing|keeps failing) to"
          r" (?P<v>log in|sign in|[a-z]+)(?: .*)?$", _on_fails_to, "fail fails failed failing"),
    _rule(rf"^(?P<s>.+?) (?:{_BE} |keep |keeps |kept |started |start |have started )?"
          rf"(?:{_REPORT_VERBS}) {_QUANTITY}(?P<i>.+?)(?: (?:{_SURFACE_PREP}) (?P<p>.+))?$",
          _on_reporter,
          "seeing getting hitting experiencing encountering noticing running reporting"
          " ran hit got saw see get have has had reported report reports noticed notice"
          " complained complain complains"),
    _rule(rf"^(?P<s>.+?) (?:fail|fails|failed|{_BE} failing|keep failing|keeps failing"
          rf"|{_BE} broken|broke|{_BE} not working|stopped working|{_BE} erroring|keeps erroring"
          r"|keep erroring)$", _on_failing,
          "fail fails failed failing broken broke working erroring"),
    _rule(rf"^(?P<s>.+?) {_BE} (?:very |so |extremely |super )?(?:slow|sluggish|laggy"
          r"|unresponsive)$", _on_slow, "slow sluggish laggy unresponsive"),
    _rule(rf"^(?P<s>.+?) (?P<how>{_BE} down|went down|{_BE} crashing|keeps crashing"
          r"|keep crashing|crashes|crashed|crash)$", _on_down,
          "down crashing crashes crashed crash"),
    _rule(rf"^(?P<i>.+?) (?:started|start|starts|began|begin|appeared|showed up|came back"
          rf"|{_BE} back|returned|spiked|keep happening|keeps happening|{_BE} happening|happen"
          rf"|happens|occur|occurs|{_BE} occurring|persist|persists|continue|continues)"
          r"(?: (?:on|in|at|for|with) (?P<p>.+))?$", _on_issue_said,
          "started start starts began begin appeared showed came back returned spiked"
          " happening happen happens occur occurs occurring persist persists continue"
          " continues"),
    # completion with its doer, statuses, completion without a doer
    _rule(rf"^(?P<o>.+?) {_BE} (?P<st>{_COMPLETION_VERBS}) by (?P<d>.+)$", _on_completed_by, "by"),
    _rule(rf"^(?P<s>.+?) {_BE} (?:back )?(?P<st>{_STATUS_ALT})$", _on_status, _STATUS_GATE),
    _rule(r"^(?P<s>.+?) (?:has |have )?(?:been )?(?P<st>shipped|launched|landed|stalled|slipped"
          r"|went live|released|merged|reverted)(?: (?:into|in|to|on) (?:the |our |own )?"
          r"[\w.-]+(?: [\w.-]+)?)?$", _on_status,
          "shipped launched landed stalled slipped live released merged reverted"),
    _rule(rf"^(?P<s>.+?) (?:{_CANNOT}) (?:{_MOVE_ON})$", _on_cannot_move, "cannot not unable"),
    _rule(rf"^(?P<s>.+?) {_BE} (?P<w>[a-z]+)$", _on_custom_completion, _BE_GATE),
    _rule(rf"^(?P<d>.+?) (?:has |have |had )?(?P<st>{_COMPLETION_VERBS}) (?P<o>.+)$",
          _on_completed,
          "shipped finished completed released launched delivered merged closed resolved"
          " fixed wrapped landed implemented"),
    # dependencies
    _rule(rf"^(?P<s>.+?) (?:{_BE} )?waiting (?:on|for) (?P<o>.+)$", _on_waiting, "waiting"),
    _rule(rf"^(?P<s>.+?) (?:{_BE} )?(?:blocked|stuck|held up|gated) (?:on|by|behind) (?P<o>.+)$",
          _on_blocked_by, "blocked stuck held gated"),
    _rule(rf"^(?P<s>.+?) (?:depends|depend|depended|{_BE} dependent) on (?P<o>.+)$", _on_waiting,
          "depends depend depended dependent"),
    _rule(r"^(?P<s>.+?) (?:needs|need|requires|require) (?P<o>.+)$", _on_needs,
          "needs need requires require"),
    _rule(rf"^(?P<o>.+?) (?:{_BE} )?(?:blocking|blocks|block|holding up|holds up|gating|gates)"
          r" (?P<s>.+)$", _on_blocking, "blocking blocks block holding holds gating gates"),
    _rule(rf"^(?P<s>.+?) (?:{_CANNOT}) (?:{_MOVE_ON}) (?:without|before) (?P<o>.+)$",
          _on_blocked_by, "without before"),
    # ownership
    _rule(rf"^(?P<o>.+?) (?:{_BE} )?(?:being )?(?:owned|led|run|driven|handled|managed"
          r"|maintained|worked on|built) by (?P<s>.+)$", _on_owned_by, "by"),
    _rule(r"^(?P<o>.+?) (?:belongs|belong|belonged) to (?P<s>.+)$", _on_owned_by,
          "belongs belong belonged"),
    _rule(rf"^(?P<a>.+?) (?:{_BE} )?assigned (?P<to>to )?(?P<b>.+)$", _on_assigned, "assigned"),
    _rule(r"^(?P<s>.+?) (?:(?:has|have|had) taken|took|takes|take|(?:is|are|am) taking|picked"
          r"|picks|(?:is|are|am) picking) (?:over|up) (?P<o>.+)$", _on_owns, "over up"),
    _rule(rf"^(?P<s>.+?) {_BE} working (?:together )?with (?P<with>.+?) on (?P<o>.+)$",
          _on_works_with, "working"),
    _rule(rf"^(?P<s>.+?) {_BE} (?:working on|leading|driving|handling|running|building"
          r"|implementing|owning|tackling|in charge of|responsible for|on point for"
          r"|the owner of|owner of|the lead on|accountable for|improving|investigating"
          r"|looking into|writing|drafting|designing) (?P<o>.+)$", _on_owns,
          "working leading driving handling running building implementing owning tackling"
          " charge responsible point owner lead accountable improving investigating looking"
          " writing drafting designing"),
    # "I'll be making a release for the weak subjectivity server", "Ana will draft the RFC"
    _rule(r"^(?P<s>.+?) (?:will|is going to|am going to) (?:be )?(?:(?:spec|write|draft|implement"
          r"|build|prepare|publish|make|ship|review|update|create|open|file|finish|lead|own"
          r"|handle|investigate|fix|release|document)(?:ing|ning)?|writing|making|taking|shipping"
          r"|working on|looking into|take care of|taking care of) (?P<o>.+)$", _on_will_do,
          "will going"),
    _rule(rf"^(?P<s>.+?) (?:{_OWN_VERBS}) (?P<o>.+)$", _on_owns,
          "owns own owned leads lead drives drive runs run manages manage maintains"
          " maintain handles handle"),
    # membership
    _rule(rf"^(?P<s>.+?) {_BE} (?:a |an )?(?:member of|part of|in|on|with) (?P<t>.+)$",
          _on_member, "member part in on with"),
    _rule(r"^(?P<s>.+?) (?:has |have )?(?:joined|joins|join) (?P<t>.+)$", _on_member,
          "joined joins join"),
    # standing context
    _rule(rf"^(?P<s>.+?) (?:use|uses|used|{_BE} using|run on|runs on|{_BE} running on|rely on"
          r"|relies on) (?P<o>.+)$", _on_uses, "use uses used using run runs running rely relies"),
    # a ticket title that is only an issue
    _rule(rf"^(?P<i>.+?)(?: (?:{_SURFACE_PREP}) (?P<p>.+))?$", _on_issue_said),
    # any symptom of the synonym table, said by a customer or in the first person
    _rule(r"^(?P<all>.+)$", _on_symptom),
)

_RELATIVE_PATTERNS: _Patterns = (
    _rule(rf"^(?P<s>.+?) (?:{_OWN_VERBS}|{_BE} (?:working on|leading|building|handling"
          r"|responsible for|in charge of))$", _on_relative_owns),
    _rule(rf"^(?P<s>.+?) (?:{_BE} )?(?:waiting on|waiting for|blocked on|blocked by"
          r"|depending on|depend on|depends on|need|needs)$", _on_relative_waiting),
)

_REASON_PATTERNS: _Patterns = (
    _rule(rf"^(?P<o>.+?) (?:is|are|has|have)(?: still)? not(?: yet)? (?:been )?(?:{_READY})$",
          _on_reason),
    _rule(rf"^(?P<o>.+?) (?:is |are |has been |have been |gets |get |becomes )?(?:{_READY}"
          r"|lands|land|ships|ship|goes live|go live)$", _on_reason),
    _rule(r"^of (?P<o>.+)$", _on_reason),
    _rule(rf"^(?:I|we) (?:{_BE} )?(?:waiting|blocked|stuck|held up) (?:on|for|by) (?P<o>.+)$",
          _on_reason),
    _rule(rf"^(?P<o>.+?) {_BE} (?P<st>delayed|stalled|blocked|late|stuck|at risk|on hold)$",
          _on_reason_status),
)

# ---------------------------------------------------------------------------- text → clauses


# "It's working again", "fixed for us", "that fixed it", "back to normal": a customer's problem
# is gone (read before fillers like "again" and "for us" are taken out).
_BETTER_AGAIN = re.compile(
    r"\b(?:working|works|work|running|loading|loads|up|online|fine|ok|okay|good)"
    r" (?:again|now|fine|normally|properly|as expected)\b"
    r"|\b(?:resolved|fixed|solved|sorted|sorted out|gone)"
    r" (?:for us|for me|on our end|on our side)\b"
    r"|\b(?:that|this|the (?:fix|patch|update|workaround|hotfix)) (?:fixed|solved|resolved"
    r"|sorted) (?:it|the (?:issue|problem))\b|\bback to normal\b|\ball good now\b"
    r"|\bno longer (?:an issue|a problem|happening)\b",
    _I,
)
_NEGATED_BEFORE = re.compile(r"\b(?:not|n't|no|never|still|isn't|aren't)\s+(?:\w+\s+)?$", _I)
_ISSUE_IN = re.compile(rf"^(?:the |our |these |those )?(?P<i>.+?) (?:{_BE}|have|has) ", _I)

_CONTEXT_WORD = "zzref9999zz"
"""The placeholder that stands for the context item in a sentence read about it."""
PLACEHOLDER_REF = re.compile(r"zzref\d+zz")
# "Fixes #1", "closes: org/repo#2, #3", "Resolves https://…/issues/4" (GitHub's keywords).
_CLOSING_KEYWORD = re.compile(
    r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|this (?:pr |change )?(?:fixes|closes|resolves))"
    r"\s*:?\s+(?:(?:issue|bug)s?\s+)?(?P<refs>zzref\d+zz(?:\s*(?:,|and|&|/)?\s*(?:(?:fix(?:es)?"
    r"|close[sd]?|resolve[sd]?)\s+)?zzref\d+zz)*)",
    _I,
)
_ACTION_PREFIX = re.compile(
    r"^(?:(?:action items?|actions?|ai|todo|to do|next steps?|owner)\s*[:\-–]\s*)+", _I)
_NAME = r"(?:zzref\d+zz|[A-Z][\w'.-]*)"
_ACTION_VERBS = (
    r"(?P<verb>to|will|is going to"
    r"|are going to|volunteered to|agreed to|offered to|has (?:an |the )?action item"
    r"|have (?:an |the )?action items?|(?:is|are) working on (?:it|this)|are working on (?:it|this)"
    r"|(?:is|are) looking into (?:it|this)|owns (?:it|this)|receiving"
    r"|spent some time|is driving|are driving|(?:is|are) handling"
    # "Josh: doing it", "Mara: I'll take it": volunteering for the item
    r"|doing (?:it|this)|on (?:it|this)|(?:will|can) do (?:it|this)|taking (?:it|this)"
    r"|I will (?:do|take|handle) (?:it|this)|I can (?:do|take) (?:it|this)"
    # "Brian has working draft", "Ben created a draft Google form": work under way on the item
    r"|(?:has|have|created|wrote|drafted|opened|prepared|submitted|started)"
    r" (?:a |an |the )?(?:[\w-]+ ){0,2}?(?:draft|pr|proposal|patch|form|doc|document|write-?up))\b"
)
_ACTION_ITEM = re.compile(
    rf"^(?P<who>{_NAME}(?:\s*(?:,|and|\+|&)\s*{_NAME})*)\s*[:,]?\s+{_ACTION_VERBS}")
_LOWER_NAME = r"(?:zzref\d+zz|[A-Za-z][\w'.-]*)"
_LABELLED_ACTION_ITEM = re.compile(
    rf"^(?P<who>{_LOWER_NAME}(?:\s*(?:,|and|\+|&)\s*{_LOWER_NAME})*)\s*[:,]?\s+{_ACTION_VERBS}")


# What people are asked to do in minutes ("Mark to comment on issue"): after one of these, a
# proper noun that is also a word ("Mark", "Robin") is the person's name.
_ACTION_VERB = re.compile(
    r"\s+(?:comment|ping|follow up|review|write|draft|look|investigate|reach out|update|check"
    r"|coordinate|document|open|file|send|schedule|cancel|summari[sz]e|circle back|create"
    r"|contact|reply|respond|post|share|propose|nominate|organi[sz]e|prepare|ask|talk|email"
    r"|present|drive|lead|own|fix|add|land|merge|close|rebase|test|triage|implement|help"
    r"|work|start|finish|continue|sync|set up|figure out|confirm|verify|bring|put|edit)\b",
    _I)
# Words that open "X to …" lines without naming anyone ("Time to merge", "Plan to ship").
_NEVER_NAMES = frozenset(
    {"time", "hope", "plan", "plans", "move", "need", "needs", "want", "try", "ready", "going",
     "nice", "good", "happy", "back", "able", "hard", "easy", "free", "way", "decision", "vote",
     "proposal", "agreed", "consensus", "motion", "goal", "goals", "steps", "next", "ok",
     "okay", "due", "subject", "open", "close", "start", "continue", "remember", "note",
     "reminder", "action", "todo", "pr", "issue", "rfc", "fcp", "switch", "change"})


def _names_a_person(word: str, *, bare: bool) -> bool:
    """Whether a word of an action item is someone's name: a handle, a capitalised proper noun
    that is no common English word, or (not before a bare "to", where "Hope to …" and "Move
    to …" are sentences) a proper noun the lexicon also knows as a word ("Robin will …")."""
    if PLACEHOLDER_REF.fullmatch(word):
        return True
    if word[:1].islower():
        return not is_common_word(word) and word.isascii() and len(word) > 2
    if bare:
        return not is_common_word(word)
    return tag(word) in {"NNP", "NNPS"}
_SPEAKS_FOR = re.compile(r"\b(?:they|their|we|our)\b", _I)
_CAPITALISED = r"[A-Z][\w'-]+"
_AFFILIATION = re.compile(
    rf"\b(?P<person>{_CAPITALISED}(?: {_CAPITALISED})?) (?:of|from) (?P<team>{_CAPITALISED}"
    rf"(?: {_CAPITALISED}){{0,2}})\b"
)
_SPEAKER_PREFIX = re.compile(r"^\W{0,3}(?P<name>[A-Z][\w'-]+)\W{0,3}:\s")
# "proposed by RalfJ", "pnkfelix opened …": who brought the item.
_ANY_NAME = r"(?:zzref\d+zz|[A-Za-z][\w'.-]*)"
_DONE_BY = re.compile(
    rf"^(?:(?:proposed|opened|filed|authored|created|raised|nominated|championed|drafted"
    rf"|written) by (?P<who>{_ANY_NAME})(?P<verb>)(?: |$)"
    rf"|(?P<by>{_ANY_NAME}) (?:opened|proposed|filed|authored|drafted|nominated|championed)\b)"
)
_ABOUT_IT = re.compile(r"|(?:this|it|the (?:issue|pr|pull request|bug|item))\b.*", _I)
_DEMONSTRATIVE = re.compile(r"^(?:this|that|these|those)\b", _I)
_NAMES_SPLIT = re.compile(r"\s*(?:,|\band\b|\+|&)\s*")
_NOT_AGENTS = re.compile(
    r"^(?:I|We|You|They|He|She|It|This|That|These|Those|There|Someone|Everyone|Anyone|Nobody"
    r"|Somebody|Everybody|People|Folks|All|Each|Both|Who|What|Which|How|Why|When|Where|The"
    r"|A|An|Our|My|Your|Their|Please|Need|Needs|Plan|Agreed|Decision|Discussion|Group"
    r"|Team)\b"
)
# "I noticed (that) …", "we found …": the author saw what the clause says, and says it.
_NOTICED = re.compile(
    r"^(?:I|we) (?:have |had |also |just )?(?:noticed|notice|found|find|realized|realised"
    r"|observed|discovered|saw) (?:that )?(?P<rest>.+)$", _I)
# "**Aditya Asgaonkar**: …", "**Danny** [1:07](…): …": a transcript's speaker.
_TRANSCRIPT_SPEAKER = re.compile(
    r"^\*\*(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})\*\*(?:\s*\[[^\]]*\]\([^)]*\))?:\s")
_ASIDE = re.compile(r"\(([^()]{4,80})\)")
# "## Pres 04: Gossipsub V2 by @ppopth": a talk or proposal and who gives it
_BY_HANDLE = re.compile(
    r"^(?:[\w .'-]{1,30}:\s*)?(?P<item>[^:]{3,100}?)\s+by\s+(?P<who>zzref\d+zz)$", _I)
_PERSON_HEADING = re.compile(r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}")
# An agenda line: the item's title and reference, then a sentence about it.
_AFTER_REFERENCE = re.compile(r"^(?:[^.;!?]{0,160}\s)?(?P<ref>zzref\d+zz)\s+(?P<rest>[A-Z@].{3,})$")
_SLASH_COMMAND = re.compile(r"^/(?P<verb>[a-z][a-z-]*)\b(?P<rest>.*)$")
_COMMAND_STATUSES = {"close": "closed", "reopen": "open", "lgtm": "approved",
                     "approve": "approved", "hold": "on hold"}
_FILED = re.compile(r"^I (?:have )?(?:filed|opened|created|reported|raised)\s+(?P<ref>zzref\d+zz)"
                    r"(?! to (?:fix|address|resolve|solve|close)\b)")  # a fix: trackers.py
_WORKING_ON_REF = re.compile(
    r"^(?:when|while|whilst) (?:I was |I am |we were )?(?:working on|investigating|looking (?:at"
    r"|into)|implementing|fixing|debugging) (?P<ref>zzref\d+zz)", _I)  # (reviewing: no work on it)
_PREP_FOR = re.compile(
    r"\b(?:prep(?:aration)? for|in preparation for|(?:is )?needed for|required for"
    r"|prepares? [\w\s-]{0,40}? for) (?:the )?(?:issue |pr )?(?P<ref>zzref\d+zz)", _I)
_TAKING_IT = re.compile(
    r"^I (?:will|am going to|am|have been|can)? ?(?:continue (?:this|it|working on (?:this|it))"
    r"|take (?:a look|this|it|care of (?:this|it))|taking (?:a look|this|it)|look(?:ing)? into"
    r" (?:this|it)|work(?:ing)? on (?:this|it)|fix(?:ing)? (?:this|it)|investigat(?:e|ing)"
    r"(?: (?:this|it))?|pick(?:ing)? (?:this|it) up)\b")
_WORKED_WITH = re.compile(r"\b(?:worked on (?:this|it) with|co-authored with|paired with)"
                          r" (zzref\d+zz)", _I)
_COVERED_BY = re.compile(
    r"^(?:discussed |see )?(?P<ref>zzref\d+zz),? (?:which |that )?(?:covers|addresses|fixes"
    r"|resolves|closes|supersedes|will cover|will address|will fix|will resolve) (?:this|it)\b"
    r"|^(?:(?:this|it) (?:is|was|will be|has been) )?(?:covered|addressed|fixed|resolved"
    r"|superseded) (?:by|in) (?P<ref2>zzref\d+zz)", _I)
_CONTEXT_STATUSES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, _I), word) for pattern, word in (
        (r"^(?:(?:this|it|that) )?(?:can|could) (?:now )?(?:land|merge)\b"
         r"|^(?:(?:this|it) is )?(?:good|ready|ok|okay|fine) to (?:land|merge)\b"
         r"|^we can (?:land|merge) (?:this|it)\b|^lgtm\b|^approved\b", "approved"),
        (r"^(?:(?:this|it) )?(?:needs|need) (?:more |another |a |some )?(?:code )?reviews?\b"
         r"|^requests? for (?:more )?reviews?\b|^please review\b"
         r"|^(?:(?:this|it) is )?ready for (?:official |final |a )?review\b"
         r"|^(?:awaiting|waiting (?:on|for)) (?:a |more )?reviews?\b", "in review"),
        (r"^(?:agreed|consensus|decided|decision) to (?:move forward|proceed|accept|adopt)\b"
         r"|^accepted\b", "accepted"),
        (r"^(?:(?:this|it) )?(?:can|could|should|will) be closed\b|^(?:closing|closed)\b"
         r"|^close (?:it|this)\b|^[A-Z][\w'-]* closed(?: (?:it|this))?(?: as\b|$)", "closed"),
        (r"^(?:[A-Z][\w'-]* )?(?:landed|merged)(?: (?:it|this))?$"
         r"|^(?:this|it) (?:has been|was|got) (?:landed|merged)\b", "merged"),
        (r"^keep(?:ing)? (?:it |this )?open\b|^open until\b|^(?:remains |stays )?open$",
         "open"),
        (r"^(?:postponed|deferred|punted)\b", "postponed"),
    )
)
# An issue title that says what is wrong: a failing predicate, not only a word like "error"
# (a pull request's title talks about errors too).
_REPORT_TITLE = re.compile(
    r"\b(?:not (?:working|work|showing|loading|starting|running|receiving|able)|no longer"
    # a failing action in any form ("window is not show", "app not open")
    r"|(?:is|are|does|do|did) not (?:show|load|start|run|open|launch|respond|connect|sync"
    r"|display|appear|boot)\w*"
    r"|never (?:starts?|loads?|works?|finish(?:es)?)|cannot|can't|cant|can not|unable|won't"
    r"|wont|doesn't|doesnt|does not|don't work|didn't|fails?(?: to)?|failing|failed|broken"
    r"|broke|breaks|stuck|stucked|hangs?|hanging|freezes?|frozen|crash(?:es|ed|ing)?"
    r"|slow|sluggish|laggy|high (?:cpu|memory)|memory (?:leak|usage)|cpu (?:usage"
    r"|consumption|consuption)|leaks?|(?:login|sign[- ]in|captcha) loop|endless loop"
    r"|flak(?:e|y|es|ing)|stopped|stops|missing|forever|timeout|timed out|times out|unusable"
    r"|unresponsive|disappear(?:s|ed)?|problem|issues? with"
    r"|(?:login|log-in|sign[- ]in|auth|connection|network|dns|memory|cpu|performance|sync)"
    r" (?:issues?|problems?|bugs?)|works? (?:only )?partially|only works? partially"
    r"|hight? (?:cpu|memory|ram)|amount of (?:cpu|memory|ram))\b",
    _I,
)
_TITLE_END = re.compile(r"(?<=[a-z0-9)\]\"'])[.:;!]\s+(?=\S)|\s+-\s+|\s*\((?=[a-z])")
_COMMIT_PREFIX = re.compile(r"^[a-z][\w-]*(?:\([^)]*\))?!?:\s")
# First words of a change's title: what a pull request does, not what is wrong.
_IMPERATIVES = frozenset(
    {"fix", "add", "remove", "use", "make", "improve", "update", "support", "allow", "implement",
     "refactor", "rework", "bump", "move", "rename", "handle", "avoid", "prevent", "ensure",
     "show", "don't", "do", "stop", "start", "switch", "change", "replace", "introduce", "drop",
     "enable", "disable", "deprecate", "document", "clean", "cleanup", "simplify", "extract",
     "teach", "let", "honor", "respect", "skip", "warn", "emit", "report", "pass", "set",
     "unify", "split", "merge", "revert", "reland", "more", "less", "better", "properly",
     "correctly", "always", "never", "only", "create", "expose", "preserve", "try", "keep",
     "mark", "treat", "check", "test", "tests", "feat", "chore", "docs", "doc", "ci", "perf",
     "internal", "minor", "cargo", "rustdoc", "print", "provide", "specify", "commit",
     "upgrade", "migrate", "added", "fixed", "fixes", "improved", "removed", "adds",
     "removes", "improves", "makes", "uses", "updates", "reworks", "implements", "supports"}
)
# Operating systems: where a problem happens, not the product it is in.
_PLATFORMS = frozenset(
    {"ubuntu", "windows", "macos", "mac", "linux", "android", "ios", "debian", "fedora", "wsl",
     "wsl2", "catalina", "mojave", "monterey", "ventura", "sonoma", "sequoia", "osx", "arch",
     "centos", "rhel", "10", "11", "win10", "win11", "m1", "m2", "intel"}
)


def _imperative(text: str) -> bool:
    """Whether a title or line starts like a change or an instruction ("Fix …", "Add …")."""
    first = text.split(" ", 1)[0].lower().strip("`'\"[(")
    return first in _IMPERATIVES
_TITLE_TAGS = re.compile(r"^(?:\[[^\]]{1,30}\]\s*)+")
_TITLE_SUBJECT = re.compile(
    r"^['\"`]?(?P<np>[\w.+-]+(?: [\w.+-]+){0,3}?)['\"`]?(?: process| app| client)?"
    r" (?:(?:is|are|was|has|have|keeps|keep|still|seems|getting) )*(?:not |no longer |never |wont "
    r"|won't |will not |does not |doesn't |doesnt |cannot |can't |can not |stuck |stucked |fails "
    r"|failed |refuses to |crash(?:es|ed|ing)? |hangs |freezes |stopped |stops "
    r"|shows (?:a |an )?(?:blank|white|black|empty) |(?:a )?(?:very |really |extremely "
    r"|so )?(?:slow|laggy|unusable|unresponsive|high)\b)", _I)
_FLAKY_TITLE = re.compile(
    r"^(?P<np>[\w.:/-]+(?: [\w.:/-]+){0,3}?)(?: \[[^\]]*\])*"
    r" (?:(?:is|are|keeps|keep) (?P<st>flaky|failing|flaking)|(?P<verb>flaking|flakes|fails"
    r"|failed))\b(?! to\b)", _I)
_TEST_HEADS = frozenset({"test", "tests", "suite", "job", "jobs", "check", "checks", "ci", "e2e",
                         "build", "builds", "pipeline", "lane"})
_EVENT_SUBJECT = re.compile(
    rf"^(?:the |a |an |latest |last |recent )*(?P<event>(?:[\w.-]+ ){{0,2}}?(?:{_EVENT_ALT})s?"
    r"(?: (?:from|to) [\w.-]*\d[\w.-]*){0,2})$", _I)
_TITLE_OBJECT = re.compile(
    r"\b(?:broke|breaks|broken|crashes|crashed|freezes|froze)"
    r" (?P<np>[\w.+-]+(?: [\w.+-]+){0,2})$", _I)
_TITLE_WHERE = re.compile(
    r"\b(?:on|in|with) (?P<np>(?:the )?[A-Z][\w.+-]*(?: [A-Z0-9v][\w.+-]*){0,3})\s*$"
    # "… when logging into desktop app", "… when using exit node": where, in lower case too
    r"|\b(?:into|when using|while using|when using the|via|through) (?:the |my )?"
    r"(?P<lower>[a-z][\w.+-]*(?: [a-z][\w.+-]*){0,2})\s*$")

MAX_SENTENCE_LENGTH = 600
"""A longer "sentence" (a pasted log line, a paragraph without stops) is not read: no status
statement is that long, and reading it could only guess."""

# "Is the migration blocked", "Does anyone know…", "Can you…" — questions even without "?".
_QUESTION_START = re.compile(
    r"^\s*(?:is|are|am|was|were|does|do|did|can|could|should|would|will|has|have|had|shall"
    r"|may|might|must)\s+(?:the|a|an|this|that|these|those|it|we|you|they|he|she|i|anyone"
    r"|anybody|someone|somebody|there|any|our|your|my)\b"
    r"|^\s*(?:why|how|what|who|which|where|when)\s+(?:is|are|was|were|do|does|did|can|could"
    r"|should|would|will|has|have)\b|^\s*any\s+(?:idea|ideas|update|updates|news|eta)\b",
    _I,
)


def _is_question(sentence: str) -> bool:
    stripped = sentence.rstrip()
    return stripped.endswith("?") or stripped.endswith("?)") or bool(
        _QUESTION_START.match(stripped))


# "Farah says (that) …": reported speech. "reports"/"confirms" only with "that" (else "Globex
# reports timeouts" is a report of an issue).
_SPEECH_VERBS = (r"says|said|mentions|mentioned|notes|noted|writes|wrote|tells me|told me"
                 r"|advised|advises|shared|shares|reported back|explained that|updated that"
                 r"|tells us|told us|explains|explained|adds|added|points out|pointed out"
                 r"|thinks|thought|believes|claims|claimed|argues|argued|feels|suggests"
                 r"|suggested|commented|comments|replied|replies|answered|answers")
_SPEECH = re.compile(
    rf"^(?P<speaker>[A-Z@][\w.@'-]*(?: [A-Z][\w.'-]*){{0,3}}|zzref\d+zz) (?:(?:{_SPEECH_VERBS})"
    r"(?: that)?|(?:reports|reported|confirms|confirmed|says|said) that),? (?P<rest>.+)$"
)
# "I think…", "We believe…", "Probably…", "Maybe…": hedged, asserts nothing.
# A sentence that says nothing but when the problem came ("Since yesterday's update.", "Issue
# came up after update."), its event taken out.
_ONLY_AN_EVENT = re.compile(
    r"^\W*(?:(?:the |this |my |same )?(?:issue|problem|bug|error|it) (?:only |first )?"
    r"(?:came up|started|began|appeared|showed up|happened|occurred|happens|occurs))?\W*$", _I)
_BUT = re.compile(r",?\s+but\s+", _I)


def _asserted_after_hedge(text: str) -> str:
    """The clause a "but" sets against a hedge, when it is no hedge itself."""
    parts = _BUT.split(text, maxsplit=1)
    if len(parts) < 2 or _HEDGE.match(parts[1]) or _HYPOTHETICAL.match(parts[1]):
        return ""
    return parts[1]


# A title that opens on a guess ("may has memory leaky", "Might be a memory leak").
_TITLE_GUESS = re.compile(r"^(?:it |this )?(?:may|might)(?! not\b)(?: be| have| has)?\b", _I)
_HEDGE = re.compile(
    r"^(?:(?:I|we) (?:think|believe|guess|suspect|assume|hope|feel|wonder|expect|doubt"
    r"|am not sure|are not sure)\b|(?:maybe|perhaps|probably|possibly|hopefully|ideally"
    r"|presumably|apparently)\b|it (?:would|might|could|may) be\b|not sure\b)",
    _I,
)
# The vendor speaking: of its product as "ours" ("our API server", "our app") or thanking for
# the report, *and* advising the reader ("You can do a number of things", "I recommend you
# contact support"). Only agents write so in the dev support threads (4 agents' messages, no
# customer's); either alone a customer may write ("our API calls time out", "+1, thanks for
# reporting"), so both are needed.
_VENDOR_WORDS = re.compile(
    r"\bour (?:api|apps?|servers?|website|site|guides?|docs|documentation|engineers"
    r"|developers|backend|infrastructure|beta)\b"
    r"|\bthanks? (?:you )?for (?:the |your )?(?:report|reporting|raising|flagging)\b", _I)
_READER_ADVISED = re.compile(
    r"\b(?:you can|you could|you should|you may want|i recommend|i'd recommend|feel free"
    r"|please try|if you are willing)\b", _I)
# A condition put to the reader: "… if your network/VPN isn't blocking requests", "So if you
# try to open a database …, it will report a database error" — not "not sure if you can
# reproduce it" (whether), nor "when you open it, it crashes" (a customer's generic "you").
_ADDRESSED_CONDITION = re.compile(r"\b(?:if|unless) (?:you|your)\b", _I)
_WHETHER_BEFORE = re.compile(r"\b(?:sure|wonder(?:ing)?|know|see|check|ask(?:ing)?|tell|curious)"
                             r"\W*$", _I)
_OPENING_CONDITION = re.compile(r"^\W*(?:(?:so|and|but|then|also|now)\b\W*)?$", _I)


def conditioned(text: str, phrase: str | None = None) -> bool:
    """Whether the sentence opens on a condition put to the reader ("So if you try…"), or
    ``phrase`` is said inside one ("… if your VPN isn't blocking requests")."""
    for found in _ADDRESSED_CONDITION.finditer(text):
        before = text[:found.start()]
        if _WHETHER_BEFORE.search(before):
            continue
        if _OPENING_CONDITION.match(before):
            return True
        at = text.find(phrase, found.end()) if phrase else -1
        if at >= 0 and not re.search(r"\bbut\b|[;]", text[found.end():at], _I):
            return True
    return False
# A problem that is only there to be denied: "does not, by itself, cause a memory leak", "if
# your VPN isn't blocking requests". (A failure's own negation — "doesn't work", "can't log
# in" — is the problem, and is not looked at here.)
_DENIAL = re.compile(r"\b(?:not|never|no|without)\b|n't\b", _I)
_POSITIVE_PROBLEM = re.compile(
    r"\b(?:block\w*|break\w*|broke\w*|leak\w*|usage|use|consumption|utili[sz]ation|cpu"
    r"|memory|ram|crash\w*|freez\w*|froze\w*|loop\w*)\b", _I)
_FAILURE_WORDS = re.compile(
    r"\b(?:work\w*|function\w*|start\w*|load\w*|open\w*|run\w*|connect\w*|sync\w*"
    r"|log\w*|sign\w*|able|let)\b|\bcan(?:no|')t\b|\bunable\b", _I)


def denied(text: str, phrase: str) -> bool:
    """Whether a problem that something does (blocks, leaks, uses CPU) is said not to happen:
    a negation in its phrase or in the five words before it, and no failure word that the
    negation could be about ("doesn't work and leaks memory" is still a problem)."""
    at = text.find(phrase)
    if at < 0 or not _POSITIVE_PROBLEM.search(phrase) or _FAILURE_WORDS.search(phrase):
        return False
    before = " ".join(text[:at].split()[-5:])
    return bool(_DENIAL.search(phrase) or _DENIAL.search(before))


_HYPOTHETICAL = re.compile(
    r"^(?:(?:we|I|you|they|it) (?:would|could|might|should|may) |let us |let's |please |"
    r"(?:we|I) (?:need|want|plan|intend|hope|would like|will need) to |to do\b|todo\b"
    r"|(?:if|unless) )",  # "If X is set, the test fails": a consequence of a condition
    _I,
)
# "zzref0zz : now depends on …" — a reference as the label of its own line.
_LEADING_REFERENCE_COLON = re.compile(r"^(?P<ref>zzref\d+zz)\s*[:\-–—]\s+")
# A list item that only says a status or a dependency, with no subject of its own.
_SUBJECTLESS_STATUS = re.compile(
    r"^(?:(?:now|still|currently) )?(?:blocked|waiting|stalled|stuck|depends|needs|needing"
    r"|requires|on hold|at risk|merged|shipped|landed|released|done|closed|fixed|resolved"
    r"|reverted|postponed|delayed|slipped|in progress|in review|approved|owned by|assigned to"
    r"|led by|unblocked|no longer|ready for|awaiting)\b",
    _I,
)
# The plural noun a status heading starts with ("PRs waiting on team", "MCPs blocked on …").
_HEADING_SUBJECT = re.compile(
    r"^(?:(?:[A-Z]{2,8}s|issues|items|bugs|tickets|prs|pull requests|mcps|rfcs|keps|tasks"
    r"|stories|epics|nominations|proposals|changes|features|projects|work items) )?",
    _I,
)


def _as_reference(entity: ExtractedEntity) -> Reference:
    """A reference standing for an entity already named (its name as given)."""
    return _NamedReference(entity.name, entity.type)


@dataclass(frozen=True)
class _NamedReference(Reference):
    @property
    def name(self) -> str:
        return self.key


def _has_verb(text: str) -> bool:
    """Whether a clause has a verb of its own (so it can be a claim, not only a name)."""
    if _HAS_VERB.search(text):
        return True
    return any(tag(word) in {"VBD", "VBZ", "VBP", "MD"} for word in _WORD.findall(text.lower()))


# "3.1 ", "2.1—", "B) ", "C. ": a section's number or letter (a letter only with its mark:
# "Parity" is a name, not section "P")
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?\s*[-–—:.]?\s*|[A-Z](?:[.)]|\s+[-–—:])\s*)")
_FIRST_PERSON_START = re.compile(r"^(?:I|we)\s", _I)
# Section names that are no one's name.
_SECTION_WORDS = frozenset(
    {"agenda", "notes", "minutes", "updates", "update", "action", "actions", "items", "item",
     "decisions", "decision", "summary", "attendees", "discussion", "discussions", "client",
     "clients", "research", "testing", "other", "q&a", "links", "next", "steps", "announcements",
     "background", "overview", "status", "open", "closed", "new", "old", "misc", "general",
     "topics", "questions", "review", "reviews", "prs", "issues", "meeting", "call", "week",
     "spec", "specs", "testnets", "testnet", "tooling", "roadmap", "introduction", "intro",
     "context", "proposal", "proposals", "implementation", "implementations", "conclusion",
     "follow", "ups", "updates:", "team", "teams", "session", "part", "day", "blockers",
     "blocked", "done", "todo", "progress", "in"}
)


def _heading_agent(headings: tuple[str, ...], title: str | None) -> ExtractedEntity | None:
    """The team a heading names, for the lines under it: a short proper name ("Lighthouse",
    "Prysm", "2.1—Teku") that is no section word, no reference and says nothing."""
    if not headings:
        return None
    heading = _clean(_SECTION_NUMBER.sub("", headings[-1].strip("*_# ")))
    if not heading or heading == title or "zz" in mask(heading).text:
        return None
    words = heading.split(" ")
    if len(words) > 3 or any(w.lower().strip(":") in _SECTION_WORDS for w in words):
        return None
    if not all(w[:1].isupper() or w[:1].isdigit() for w in words) or _has_verb(heading):
        return None
    if not _grammatical(tuple(words)):
        return None
    return ExtractedEntity(_display(heading), "Team")


def _with_verb(predicate: str) -> str:
    """ "blocked on X" → "is blocked on X"; "needs review" stays."""
    first = predicate.split(" ", 1)[0]
    if tag(first) in {"VBZ", "VBD"} or first.lower() in {"depends", "needs", "requires",
                                                          "awaiting", "no"}:
        return predicate
    return f"is {predicate}"


@lru_cache(maxsize=1024)
def _heading_predicate(heading: str) -> str | None:
    """What a heading says about every item under it ("PRs waiting on team" → "is waiting on
    team", "Blocked" → "is blocked"), or None when it names a topic, not a status."""
    words = _clean(_normalize(heading)).strip("*_#: ")
    rest = _HEADING_SUBJECT.sub("", words, count=1).strip()
    if not rest or not _SUBJECTLESS_STATUS.match(rest):
        return None
    return _with_verb(rest)


def split_sentences(text: str) -> list[str]:
    """Sentences of a text: lines and bullets first, then ``.``/``!``/``?`` (not after "Inc.")."""
    sentences: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        pending = ""
        for piece in _SENTENCE_END.split(line):
            pending = f"{pending} {piece}" if pending else piece
            if not _ABBREVIATION_END.search(pending):
                sentences.append(pending.strip())
                pending = ""
        if pending.strip():
            sentences.append(pending.strip())
    return [s for s in sentences if s]


def _normalize(sentence: str) -> str:
    """The sentence as the patterns read it: plain quotes, contractions expanded, no fillers."""
    text = sentence.translate(_TYPOGRAPHY)
    if "(" in text:
        text = _PARENTHETICAL.sub("", text)
    if "'" in text or "an not" in text or "wont" in text:
        text = _CONTRACTION.sub(_expand, text)
    if "more" in text:
        text = _NOT_ANYMORE.sub(r"\1 no longer \2\3", text)
    if not _FILLER_WORDS.isdisjoint(_WORD.findall(text.lower())):
        text = _FILLER.sub("", text)
    text = _SPACES.sub(" ", text).strip().rstrip(".!?").strip()
    return _DISCOURSE.sub("", _GREETING.sub("", text))


def _expand(match: re.Match[str]) -> str:
    word = match.group(0)
    expanded = _CONTRACTIONS[word.lower()]
    return expanded[:1].upper() + expanded[1:] if word[:1].isupper() else expanded


def _split_clauses(sentence: str) -> list[_ClauseText]:
    """The clauses of a sentence. Kinds: ``main``; ``reason`` (because/until/since: what the
    previous clause's item waits on); ``relative`` (which: about the phrase before it);
    ``conditional`` (if/unless: asserts nothing)."""
    lead: list[_ClauseText] = []
    leading = _LEADING_CLAUSE.match(sentence)
    if leading is not None:
        if leading["word"].lower() not in {"if", "unless", "in case"}:
            lead.append(_ClauseText("main", f"{leading['word']}{leading['clause']}"))
        sentence = sentence[leading.end():]
    appositive = _APPOSITIVE.match(sentence)
    if appositive is not None and _noun_phrase(appositive["head"]) is not None:
        main = _split_breaks(f"{appositive['head']} {appositive['rest']}")
        relative = _relative_text(re.sub(r"^(?:which|that)\s+", "", appositive["relative"]))
        return [*lead, *main, _ClauseText("relative", relative, appositive["head"])]
    return [*lead, *_split_breaks(sentence)]


_SERIAL_NAMES = re.compile(r"\W{0,3}[A-Z@][\w.'’-]*(?:,\s*[A-Z@][\w.'’-]*)+")
"""Names before a list's ", and" ("Ivana, Gary"): the serial comma ends no clause."""


def _split_breaks(sentence: str) -> list[_ClauseText]:
    clauses: list[_ClauseText] = []
    kind, start, prefix = "main", 0, ""
    for match in _CLAUSE_BREAK.finditer(sentence):
        if match["plain"] and not _HAS_VERB.search(sentence, start, match.start()):
            continue  # "The API migration, the payments integration and the checkout flow are…"
        if match["serial"] and _SERIAL_NAMES.fullmatch(sentence, start, match.start()):
            continue  # "Ivana, Gary, and Prasad will …": the last name of a list, no clause
        clauses.append(_ClauseText(kind, prefix + sentence[start: match.start()]))
        kind = _break_kind(match)
        start = match.end()
        prefix = _shared_subject(clauses[-1].text, sentence[start:]) if match["shared"] else ""
    clauses.append(_ClauseText(kind, prefix + sentence[start:]))
    return [
        _ClauseText(c.kind, _relative_text(c.text) if c.kind == "relative" else c.text)
        for c in clauses if c.text.strip()
    ]


def _break_kind(match: re.Match[str]) -> str:
    if match.group("reason"):
        return "reason"
    if match.group("relative") or match.group("reduced") is not None:
        return "relative"
    if match.group("conditional"):
        return "conditional"
    return "main"


def _shared_subject(previous: str, following: str) -> str:
    """ "We are on Enterprise and seeing 504s": the words that give "seeing 504s" its subject
    back ("we are "). Only a first-person subject is carried over."""
    subject = previous.split(" ", 1)[0]
    if subject.lower() not in {"i", "we"}:
        return ""
    if re.match(r"(?:am|are|have)\b", following):
        return f"{subject} "
    return f"{subject} am " if subject == "I" else f"{subject} are "


def _relative_text(text: str) -> str:
    """ "owned by the backend team" reads as "(which) is owned by the backend team"."""
    return f"is {text}" if text.startswith(_REDUCED_RELATIVE) else text


# ---------------------------------------------------------------------------- settling facts


def _resolve_author_item(record: _Record, reader: _Reader) -> ExtractedEntity | None:
    """The author's work item for a first-person dependency: the latest one the author reported
    on before it, else the first one after it in the episode."""
    before = [item for ordinal, item in reader.author_items if ordinal <= record.ordinal]
    if before:
        return before[-1]
    after = [item for ordinal, item in reader.author_items if ordinal > record.ordinal]
    return after[0] if after else None


def _settle(reader: _Reader) -> tuple[list[ExtractedFact], list[ExtractedClosure]]:
    records = _with_sources(reader)
    owned = {_key(r.target.name) for r in records
             if r.kind == "fact" and r.relation == RESPONSIBLE_FOR and r.target is not None}
    kept: list[_Record] = []
    for record in records:
        if record.kind == "implied" and not _author_owns(record, reader.author, owned):
            continue
        if _allowed(record, reader):
            kept.append(record)
    kept = _deduplicated(kept, reader.ontology)
    facts = [_as_fact(r) for r in kept if r.kind != "closure"]
    closures = [_as_closure(r) for r in kept if r.kind == "closure"]
    return facts, closures


def _with_sources(reader: _Reader) -> list[_Record]:
    """Records with "the author's work item" replaced by the item, or dropped with a note."""
    resolved: list[_Record] = []
    for record in reader.records:
        if isinstance(record.source, ExtractedEntity):
            resolved.append(record)
            continue
        item = _resolve_author_item(record, reader)
        if item is None:
            reader.dropped.append(
                f"no work item of the author's to attach {record.relation} to: {record.sentence}"
            )
            continue
        record.source = item
        resolved.append(record)
    return resolved


def _author_owns(record: _Record, author: ExtractedEntity | None, owned: set[str]) -> bool:
    """The author owns the item they report on: only a Person, only a work item, and only when
    the episode names no other owner."""
    assert record.target is not None
    return (
        author is not None
        and author.type == "Person"
        and record.target.type == "WorkItem"
        and _key(record.target.name) not in owned
    )


def _allowed(record: _Record, reader: _Reader) -> bool:
    """The ontology knows the relation and its types, and the fact is no self-loop."""
    source = record.source
    assert isinstance(source, ExtractedEntity)
    relation = reader.ontology.relation(record.relation)
    if relation is None:
        reader.dropped.append(f"relation {record.relation} not in the ontology: {record.sentence}")
        return False
    target = record.target
    if target is not None and _key(source.name) == _key(target.name):
        reader.dropped.append(f"self-loop {source.name} {record.relation}: {record.sentence}")
        return False
    if source.type not in relation.source_types or (
        target is not None and target.type not in relation.target_types
    ):
        target_text = f"{target.name} ({target.type})" if target else "*"
        reader.dropped.append(
            f"{source.name} ({source.type}) {record.relation} {target_text} "
            f"does not fit the ontology: {record.sentence}"
        )
        return False
    return True


def _deduplicated(records: list[_Record], ontology: Ontology) -> list[_Record]:
    """One record per signature (the first), and for a single-valued relation one per source:
    the last said, so "was blocked, now on track" ends on track."""
    single = {name for name, rel in ontology.relations.items() if rel.single_valued}
    seen: set[tuple[str, str, str, str | None]] = set()
    last_single: dict[tuple[str, str], int] = {}
    for index, record in enumerate(records):
        if record.kind != "closure" and record.relation in single:
            assert isinstance(record.source, ExtractedEntity)
            last_single[(_key(record.source.name), record.relation)] = index
    kept = []
    for index, record in enumerate(records):
        assert isinstance(record.source, ExtractedEntity)
        source_key = _key(record.source.name)
        if record.kind != "closure" and last_single.get((source_key, record.relation),
                                                        index) != index:
            continue
        target_key = _key(record.target.name) if record.target else None
        key = ("closure" if record.kind == "closure" else "fact", source_key, record.relation,
               target_key)
        if key in seen:
            continue
        seen.add(key)
        kept.append(record)
    return kept


def _as_fact(record: _Record) -> ExtractedFact:
    assert isinstance(record.source, ExtractedEntity) and record.target is not None
    return ExtractedFact(
        source=record.source.name,
        source_type=record.source.type,
        relation=record.relation,
        target=record.target.name,
        target_type=record.target.type,
        sentence=record.sentence,
        valid_at=record.valid_at,
        reading=record.reading,
    )


def _as_closure(record: _Record) -> ExtractedClosure:
    assert isinstance(record.source, ExtractedEntity)
    return ExtractedClosure(
        source=record.source.name,
        source_type=record.source.type,
        relation=record.relation,
        target=record.target.name if record.target else None,
        target_type=record.target.type if record.target else None,
        sentence=record.sentence,
        at=record.valid_at,
    )


# -------------------------------------------------------------------------------------- API


def author_entity_type(author: str, known: Mapping[str, str], given: str | None = None) -> str:
    """Person by default; Customer for an organisation's name ("Acme Corp") or a known customer;
    whatever the caller says when it says."""
    if given:
        return given
    known_type = known.get(normalize_name(author))
    if known_type in _AGENTS:
        return known_type
    return "Customer" if _is_org(_clean(author).split(" ")) else "Person"


def extract_with_rules(
    text: str,
    *,
    author: str,
    reference_time: datetime,
    ontology: Ontology | None = None,
    known_entities: Mapping[str, str] | None = None,
    author_type: str | None = None,
    thread: Thread | None = None,
    product: frozenset[str] = frozenset(),
) -> Extraction:
    """Entities, facts and closures of one episode's text (see the module docstring).
    ``thread``: the tracker item the episode belongs to, from its address
    (``memory.language.threads.thread_of_address``): its own item when no title line names
    one, and whether it is a pull request. ``product``: the words that name the product of the
    tracker a customer's message was written in (``support_products.product_words``)."""
    known = known_entities if known_entities is not None else {}
    author_entity = None
    if author and author.strip():
        # as written: a login keeps its case ("dannyneira", never "Dannyneira")
        author_entity = ExtractedEntity(
            author_name(author), author_entity_type(author, known, author_type)
        )
    language = language_of(text)
    if language not in {None, "en"}:
        return Extraction(extractor=RULES_EXTRACTOR, author=author_entity,
                          entities=[author_entity] if author_entity else [],
                          unread=UNREAD_LANGUAGE, dropped=[f"language: {language}"])
    document = read_document(without_struck_text(text))  # "~~will send a PR~~": withdrawn
    # "Ticket from Globex: …" names who wrote the words, whoever relayed them; a sign-off
    # ("Thanks, Jane") only when the episode names no author.
    sender = document.sender or (document.signature if author_entity is None else None)
    if sender and (author_entity is None or _key(sender) not in _name_keys(author_entity.name)):
        author_entity = ExtractedEntity(_display(sender), "Customer")
    reader = _Reader(author=author_entity, reference_time=reference_time,
                     ontology=ontology or default_ontology(), known=known)
    reader.vendor_voice = bool(author_entity is not None and author_entity.type == "Customer"
                               and _VENDOR_WORDS.search(text) and _READER_ADVISED.search(text))
    reader.product = product or (product_words(thread.item.key) if thread else frozenset())
    reader.read(document, thread)
    facts, closures = _settle(reader)
    goals = unchecked_goals(document)  # "- [ ] These tests are no longer flaky.": a goal
    facts = [fact for fact in facts  # "one proposal went …", "if …", "that fix"
             if states_a_fact(fact) and states_a_status(fact, goals)]
    extraction = Extraction(extractor=RULES_EXTRACTOR, facts=facts, closures=closures,
                            author=author_entity, dropped=reader.dropped)
    if author_entity is not None and author_entity.type == "Customer":
        extraction = one_report_per_problem(extraction, author_entity.name)
    extraction.entities = extraction.all_entities()
    if not facts and not closures and text.strip():
        extraction.unread = UNREAD_RULES
    return extraction


# The minutes hooks read with the reader above (a module of their own, imported last: it uses
# this module's reader and helpers).
from memory.extraction import (  # noqa: E402
    activity_lists,
    item_status,
    minutes_reading,
    owner_tables,
    task_items,
)
from memory.extraction.responsibility import commits_to_work  # noqa: E402
