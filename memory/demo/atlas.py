"""Project Atlas: four weeks of a twelve-person project, as its people wrote them.

Who is who
----------
* Priya leads Project Atlas.
* Platform team: Marco (the identity service upgrade), Wei (the database upgrade), Sofia (CI, the
  staging database refresh).
* Backend team: Dana (the notification service), Erik (the warehouse migration), Farah (the
  reporting revamp).
* Mobile team: Grace (the SSO rollout), Hiro (the billing migration, the usage report), Ines (the
  enterprise onboarding flow, the in-app inbox), Jonas (the mobile release, load testing), Kenji
  (new; the analytics dashboard, the digest email feature).

Priya, the team leads and the platform and backend engineers write a weekly status note every
Monday from a template; the mobile team posts short daily standups in Slack.

What a PM should see
--------------------
* The identity service upgrade (platform team) blocks the SSO rollout and the billing migration,
  and the enterprise onboarding flow waits on the SSO rollout: the seed's shape. The platform team
  ships the upgrade on Tuesday of week 2; the chain re-forms around the SSO rollout, which still
  holds up onboarding at the end of the month.
* A deep chain: the database upgrade ← the warehouse migration ← the reporting revamp ← the
  analytics dashboard and the usage report. Wei finishes the database upgrade on Monday of week 2
  and the warehouse migration becomes the root blocker of the rest.
* A wide chain that keeps growing: the mobile release, the in-app inbox, the digest email feature
  and the partner webhooks integration all end up waiting on the backend team's notification
  service.
* A short chain that ends: load testing and the performance report wait on the staging database
  refresh until the platform team finishes it on Wednesday of week 1; its observation retires.
* The hub trap: every weekly note's template starts with "Project Atlas is led by Priya." (a
  person's standing ownership of the whole project) and ends with "Reminder: the Atlas launch
  depends on the security review." (boilerplate). Either would chain every note into one blob;
  clustering suppresses both in every run (see the runs' audit).
* Backfills: Farah's Friday standup of week 0 reaches the system on Tuesday of week 1; one of
  Hiro's standups of week 1 only on Thursday of week 2, after the blocker it mentions shipped.
* Distractors: updates about unrelated work, and chatter with nothing to extract.

Writing notes (what the rules extractor and the clustering need)
----------------------------------------------------------------
* A reason clause about a work item named like an event ("because the warehouse migration isn't
  ready", "until the database upgrade is done") yields nothing — migration, upgrade, release...
  read as event heads there. Such dependencies are written "X is blocked on Y" or "X is waiting
  for Y" instead.
* "It" refers to the last work item mentioned, not to the previous sentence's subject, so the
  notes repeat the name ("The SSO rollout is holding up ...").
* An owner's weekly note names what waits on their work ("The notification service is holding up
  the mobile release"). Besides being what leads write, this keeps the restated ownership
  connected to the rest of the note: next to the template's two boilerplate lines, a note whose
  only other facts had been superseded would make the ownership look like boilerplate too, and
  the clustering would suppress it, leaving the chain's root blocker without its owner.
"""

from __future__ import annotations

from memory.demo import DemoGraph, DemoUpdate

HEADER = "Project Atlas is led by Priya."
FOOTER = "Reminder: the Atlas launch depends on the security review."


def weekly(*bullets: str) -> str:
    """A weekly status note as the team's template lays it out."""
    lines = "\n".join(f"- {bullet}" for bullet in bullets)
    return f"{HEADER}\n{lines}\n{FOOTER}"


UPDATES: tuple[DemoUpdate, ...] = (
    # --- Week 0 ----------------------------------------------------------------------------
    {"external_id": "atlas-w0-mon-priya", "week": 0, "day": 0, "hour": 9, "minute": 0,
     "author": "Priya", "source": "weekly-status",
     "content": weekly("The launch checklist is on track.", "Kenji joined the mobile team.")},
    {"external_id": "atlas-w0-mon-marco", "week": 0, "day": 0, "hour": 9, "minute": 10,
     "author": "Marco", "source": "weekly-status",
     "content": weekly("The identity service upgrade, owned by the platform team, is at risk.")},
    {"external_id": "atlas-w0-mon-grace", "week": 0, "day": 0, "hour": 9, "minute": 20,
     "author": "Grace", "source": "weekly-status",
     "content": weekly("The SSO rollout is blocked. I'm waiting on the identity service upgrade, "
                       "which the platform team owns.")},
    {"external_id": "atlas-w0-mon-wei", "week": 0, "day": 0, "hour": 9, "minute": 35,
     "author": "Wei", "source": "weekly-status",
     "content": weekly("I own the database upgrade. It is in progress.")},
    {"external_id": "atlas-w0-mon-dana", "week": 0, "day": 0, "hour": 9, "minute": 50,
     "author": "Dana", "source": "weekly-status",
     "content": weekly("The notification service, owned by the backend team, is in progress.")},
    {"external_id": "atlas-w0-mon-erik", "week": 0, "day": 0, "hour": 10, "minute": 5,
     "author": "Erik", "source": "weekly-status",
     "content": weekly("The warehouse migration is in progress.",
                       "The warehouse migration is holding up the reporting revamp.")},
    {"external_id": "atlas-w0-mon-sofia", "week": 0, "day": 0, "hour": 10, "minute": 20,
     "author": "Sofia", "source": "weekly-status",
     "content": weekly("The CI pipeline cleanup is on track.")},
    {"external_id": "atlas-w0-mon-farah", "week": 0, "day": 0, "hour": 10, "minute": 30,
     "author": "Farah", "source": "weekly-status",
     "content": weekly("I'm leading the reporting revamp.")},
    {"external_id": "atlas-w0-tue-hiro", "week": 0, "day": 1, "hour": 9, "minute": 40,
     "author": "Hiro", "source": "slack-standup", "type": "message",
     "content": "The billing migration is stalled. I'm also waiting on the identity service "
                "upgrade from the platform team."},
    {"external_id": "atlas-w0-tue-jonas", "week": 0, "day": 1, "hour": 9, "minute": 45,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "The mobile release is on track."},
    {"external_id": "atlas-w0-tue-ines", "week": 0, "day": 1, "hour": 9, "minute": 50,
     "author": "Ines", "source": "slack-standup", "type": "message",
     "content": "Pairing with Grace on the SSO test plan today."},
    {"external_id": "atlas-w0-wed-kenji", "week": 0, "day": 2, "hour": 9, "minute": 30,
     "author": "Kenji", "source": "slack-standup", "type": "message",
     "content": "Setting up my laptop and reading the Atlas docs."},
    {"external_id": "atlas-w0-wed-erik", "week": 0, "day": 2, "hour": 10,
     "author": "Erik", "source": "slack-standup", "type": "message",
     "content": "The warehouse migration is blocked on the database upgrade, which Wei owns."},
    {"external_id": "atlas-w0-wed-farah", "week": 0, "day": 2, "hour": 14,
     "author": "Farah", "source": "slack-standup", "type": "message",
     "content": "The team offsite was a lot of fun."},
    {"external_id": "atlas-w0-thu-ines", "week": 0, "day": 3, "hour": 10,
     "author": "Ines", "source": "slack-standup", "type": "message",
     "content": "The enterprise onboarding flow can't move forward because the SSO rollout "
                "isn't ready. That work belongs to Grace."},
    {"external_id": "atlas-w0-thu-hiro", "week": 0, "day": 3, "hour": 11, "minute": 30,
     "author": "Hiro", "source": "slack-standup", "type": "message",
     "content": "Reviewed the pricing copy with marketing."},
    {"external_id": "atlas-w0-fri-jonas", "week": 0, "day": 4, "hour": 10,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "The load testing is blocked on the staging database refresh."},
    # Backfilled: posted while Slack's export was broken, imported the following Tuesday.
    {"external_id": "atlas-w0-fri-farah", "week": 0, "day": 4, "hour": 11,
     "arrives": {"week": 1, "day": 1, "hour": 16},
     "author": "Farah", "source": "slack-standup", "type": "message",
     "content": "The reporting revamp is stalled because we're waiting on the warehouse "
                "migration, which Erik owns."},
    {"external_id": "atlas-w0-fri-priya", "week": 0, "day": 4, "hour": 16,
     "author": "Priya", "source": "slack-standup", "type": "message",
     "content": "Great demo today, thanks everyone! See you all on Monday."},
    # --- Week 1 ----------------------------------------------------------------------------
    {"external_id": "atlas-w1-mon-priya", "week": 1, "day": 0, "hour": 9, "minute": 0,
     "author": "Priya", "source": "weekly-status",
     "content": weekly("The performance report is waiting for the staging database refresh.")},
    {"external_id": "atlas-w1-mon-marco", "week": 1, "day": 0, "hour": 9, "minute": 10,
     "author": "Marco", "source": "weekly-status",
     "content": weekly("The identity service upgrade, owned by the platform team, is delayed.")},
    {"external_id": "atlas-w1-mon-grace", "week": 1, "day": 0, "hour": 9, "minute": 20,
     "author": "Grace", "source": "weekly-status",
     "content": weekly("The SSO rollout is still blocked on the identity service upgrade.",
                       "The SSO rollout is holding up the enterprise onboarding flow.")},
    {"external_id": "atlas-w1-mon-wei", "week": 1, "day": 0, "hour": 9, "minute": 35,
     "author": "Wei", "source": "weekly-status",
     "content": weekly("The database upgrade is at risk.")},
    {"external_id": "atlas-w1-mon-dana", "week": 1, "day": 0, "hour": 9, "minute": 50,
     "author": "Dana", "source": "weekly-status",
     "content": weekly("The notification service, owned by the backend team, is behind "
                       "schedule. The notification service is holding up the mobile release.")},
    {"external_id": "atlas-w1-mon-erik", "week": 1, "day": 0, "hour": 10, "minute": 5,
     "author": "Erik", "source": "weekly-status",
     "content": weekly("The warehouse migration is still blocked on the database upgrade.")},
    {"external_id": "atlas-w1-mon-sofia", "week": 1, "day": 0, "hour": 10, "minute": 20,
     "author": "Sofia", "source": "weekly-status",
     "content": weekly("I'm working on the staging database refresh.")},
    {"external_id": "atlas-w1-mon-farah", "week": 1, "day": 0, "hour": 10, "minute": 30,
     "author": "Farah", "source": "weekly-status",
     "content": weekly("The reporting revamp is still blocked on the warehouse migration.")},
    {"external_id": "atlas-w1-tue-jonas", "week": 1, "day": 1, "hour": 9, "minute": 40,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "The mobile release is waiting for the notification service, which the backend "
                "team owns."},
    {"external_id": "atlas-w1-tue-hiro", "week": 1, "day": 1, "hour": 9, "minute": 45,
     "author": "Hiro", "source": "slack-standup", "type": "message",
     "content": "The billing migration is waiting for the identity service upgrade."},
    {"external_id": "atlas-w1-tue-kenji", "week": 1, "day": 1, "hour": 10,
     "author": "Kenji", "source": "slack-standup", "type": "message",
     "content": "The analytics dashboard can't move forward until the reporting revamp is "
                "ready. Farah owns the reporting revamp."},
    {"external_id": "atlas-w1-wed-jonas", "week": 1, "day": 2, "hour": 9, "minute": 40,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "Load tests are running again."},
    # Backfilled: a standup Hiro wrote offline and pasted in a week later.
    {"external_id": "atlas-w1-wed-hiro", "week": 1, "day": 2, "hour": 10,
     "arrives": {"week": 2, "day": 3, "hour": 17},
     "author": "Hiro", "source": "slack-standup", "type": "message",
     "content": "The billing migration is still waiting for the identity service upgrade."},
    {"external_id": "atlas-w1-wed-sofia", "week": 1, "day": 2, "hour": 11,
     "author": "Sofia", "source": "slack-standup", "type": "message",
     "content": "The platform team finished the staging database refresh."},
    {"external_id": "atlas-w1-thu-ines", "week": 1, "day": 3, "hour": 10,
     "author": "Ines", "source": "slack-standup", "type": "message",
     "content": "The in-app inbox is blocked by the notification service."},
    {"external_id": "atlas-w1-thu-jonas", "week": 1, "day": 3, "hour": 15,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "The app store screenshots are done."},
    {"external_id": "atlas-w1-fri-hiro", "week": 1, "day": 4, "hour": 10,
     "author": "Hiro", "source": "slack-standup", "type": "message",
     "content": "The usage report is blocked by the reporting revamp."},
    {"external_id": "atlas-w1-fri-grace", "week": 1, "day": 4, "hour": 14,
     "author": "Grace", "source": "slack-standup", "type": "message",
     "content": "Ran the SSO test plan against staging."},
    # --- Week 2 ----------------------------------------------------------------------------
    {"external_id": "atlas-w2-mon-priya", "week": 2, "day": 0, "hour": 9, "minute": 0,
     "author": "Priya", "source": "weekly-status",
     "content": weekly("The pricing page refresh is on track.")},
    {"external_id": "atlas-w2-mon-marco", "week": 2, "day": 0, "hour": 9, "minute": 10,
     "author": "Marco", "source": "weekly-status",
     "content": weekly("The identity service upgrade, owned by the platform team, is in "
                       "progress.")},
    {"external_id": "atlas-w2-mon-grace", "week": 2, "day": 0, "hour": 9, "minute": 20,
     "author": "Grace", "source": "weekly-status",
     "content": weekly("The SSO rollout is still blocked on the identity service upgrade.",
                       "The SSO rollout is holding up the enterprise onboarding flow.")},
    {"external_id": "atlas-w2-mon-wei", "week": 2, "day": 0, "hour": 9, "minute": 35,
     "author": "Wei", "source": "weekly-status",
     "content": weekly("We finished the database upgrade.")},
    {"external_id": "atlas-w2-mon-dana", "week": 2, "day": 0, "hour": 9, "minute": 50,
     "author": "Dana", "source": "weekly-status",
     "content": weekly("The notification service, owned by the backend team, is delayed.",
                       "The notification service is holding up the mobile release and the "
                       "in-app inbox.")},
    {"external_id": "atlas-w2-mon-erik", "week": 2, "day": 0, "hour": 10, "minute": 5,
     "author": "Erik", "source": "weekly-status",
     "content": weekly("The warehouse migration is back on track.",
                       "The warehouse migration is holding up the reporting revamp.")},
    {"external_id": "atlas-w2-mon-sofia", "week": 2, "day": 0, "hour": 10, "minute": 20,
     "author": "Sofia", "source": "weekly-status",
     "content": weekly("The build cache rollout is done.")},
    {"external_id": "atlas-w2-mon-farah", "week": 2, "day": 0, "hour": 10, "minute": 30,
     "author": "Farah", "source": "weekly-status",
     "content": weekly("The reporting revamp is still blocked on the warehouse migration.")},
    {"external_id": "atlas-w2-tue-jonas", "week": 2, "day": 1, "hour": 9, "minute": 40,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "The mobile release is still waiting for the notification service."},
    {"external_id": "atlas-w2-tue-marco", "week": 2, "day": 1, "hour": 15,
     "author": "Marco", "source": "slack-standup", "type": "message",
     "content": "The platform team shipped the identity service upgrade."},
    {"external_id": "atlas-w2-wed-hiro", "week": 2, "day": 2, "hour": 9, "minute": 45,
     "author": "Hiro", "source": "slack-standup", "type": "message",
     "content": "Billing migration work resumed today."},
    {"external_id": "atlas-w2-wed-kenji", "week": 2, "day": 2, "hour": 10,
     "author": "Kenji", "source": "slack-standup", "type": "message",
     "content": "The digest email feature is blocked on the notification service."},
    {"external_id": "atlas-w2-wed-priya", "week": 2, "day": 2, "hour": 14,
     "author": "Priya", "source": "slack-standup", "type": "message",
     "content": "Budget review moved to Thursday."},
    {"external_id": "atlas-w2-thu-ines", "week": 2, "day": 3, "hour": 10,
     "author": "Ines", "source": "slack-standup", "type": "message",
     "content": "The enterprise onboarding flow is still blocked. I'm waiting on the SSO "
                "rollout."},
    {"external_id": "atlas-w2-thu-wei", "week": 2, "day": 3, "hour": 11,
     "author": "Wei", "source": "slack-standup", "type": "message",
     "content": "I'm leading the read replica rollout."},
    {"external_id": "atlas-w2-fri-grace", "week": 2, "day": 4, "hour": 10,
     "author": "Grace", "source": "slack-standup", "type": "message",
     "content": "The SSO rollout is in progress."},
    {"external_id": "atlas-w2-fri-farah", "week": 2, "day": 4, "hour": 15,
     "author": "Farah", "source": "slack-standup", "type": "message",
     "content": "Wrote the runbook for the reporting revamp."},
    # --- Week 3 (the current week) -----------------------------------------------------------
    {"external_id": "atlas-w3-mon-priya", "week": 3, "day": 0, "hour": 9, "minute": 0,
     "author": "Priya", "source": "weekly-status",
     "content": weekly("The beta invite list is done.")},
    {"external_id": "atlas-w3-mon-marco", "week": 3, "day": 0, "hour": 9, "minute": 10,
     "author": "Marco", "source": "weekly-status",
     "content": weekly("I'm working on the rate limiting service.")},
    {"external_id": "atlas-w3-mon-grace", "week": 3, "day": 0, "hour": 9, "minute": 20,
     "author": "Grace", "source": "weekly-status",
     "content": weekly("The SSO rollout is in progress.")},
    {"external_id": "atlas-w3-mon-wei", "week": 3, "day": 0, "hour": 9, "minute": 35,
     "author": "Wei", "source": "weekly-status",
     "content": weekly("The backup restore drill is done.")},
    {"external_id": "atlas-w3-mon-dana", "week": 3, "day": 0, "hour": 9, "minute": 50,
     "author": "Dana", "source": "weekly-status",
     "content": weekly("The notification service, owned by the backend team, is at risk.")},
    {"external_id": "atlas-w3-mon-erik", "week": 3, "day": 0, "hour": 10, "minute": 5,
     "author": "Erik", "source": "weekly-status",
     "content": weekly("The warehouse migration is delayed.",
                       "The warehouse migration is holding up the reporting revamp.")},
    {"external_id": "atlas-w3-mon-sofia", "week": 3, "day": 0, "hour": 10, "minute": 20,
     "author": "Sofia", "source": "weekly-status",
     "content": weekly("The partner webhooks integration is blocked on the notification "
                       "service.")},
    {"external_id": "atlas-w3-mon-farah", "week": 3, "day": 0, "hour": 10, "minute": 30,
     "author": "Farah", "source": "weekly-status",
     "content": weekly("The reporting revamp is still blocked on the warehouse migration.")},
    {"external_id": "atlas-w3-tue-kenji", "week": 3, "day": 1, "hour": 10,
     "author": "Kenji", "source": "slack-standup", "type": "message",
     "content": "The analytics dashboard is still blocked on the reporting revamp."},
    {"external_id": "atlas-w3-tue-jonas", "week": 3, "day": 1, "hour": 11,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "Kenji and I demoed the new onboarding screens."},
    {"external_id": "atlas-w3-wed-ines", "week": 3, "day": 2, "hour": 10,
     "author": "Ines", "source": "slack-standup", "type": "message",
     "content": "The in-app inbox is still blocked by the notification service."},
    {"external_id": "atlas-w3-thu-jonas", "week": 3, "day": 3, "hour": 10,
     "author": "Jonas", "source": "slack-standup", "type": "message",
     "content": "The mobile release is at risk. I'm still waiting on the notification service."},
    {"external_id": "atlas-w3-thu-hiro", "week": 3, "day": 3, "hour": 14,
     "author": "Hiro", "source": "slack-standup", "type": "message",
     "content": "The usage report is still blocked by the reporting revamp."},
)

GRAPH = DemoGraph(
    slug="atlas",
    name="Project Atlas",
    description=(
        "A month of weekly status notes and Slack standups from a twelve-person project across "
        "the platform, backend and mobile teams."
    ),
    updates=UPDATES,
)
