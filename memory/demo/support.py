"""Support queue: four weeks of Zendesk tickets from thirteen customers.

What a support lead should see
------------------------------
* From week 1 on, customer after customer reports timeouts — on exports, scheduled reports, the
  reporting API, dashboards — each in their own words, and each right after the nightly backfill.
  Nobody has fixed it by the end of the month: a recurring issue worth investigating.
* On Tuesday of week 2, right after the Tuesday deploy, four customers report 502 errors on the
  checkout page; on Friday one confirms they are resolved.
* Two customers cannot log in to the mobile app in week 0 (one of them twice).
* Plans change over the month (upgrades and downgrades, some with the day they took effect):
  the customer's plan is single-valued, so each change closes the previous plan.
* One-off tickets and questions (seats, invoices, SAML, a SOC 2 report) are distractors.

Phrasing notes: ticket text is written in the shapes ``memory.extraction.rules`` understands
(its table rows 61–85): "<product> fail(s) with <error> after <event>", "we're seeing <error> in
<product> since <event>", "we moved from <plan> to the <plan> plan on <day>".
"""

from __future__ import annotations

from memory.demo import DemoGraph, DemoUpdate

ZENDESK = "zendesk"

UPDATES: tuple[DemoUpdate, ...] = (
    # --- Week 0 ----------------------------------------------------------------------------
    {"external_id": "zd-4101", "week": 0, "day": 0, "hour": 9, "minute": 12,
     "author": "Acme Corp", "source": ZENDESK,
     "content": "We're on the Pro plan. Could you add two seats to our account?"},
    {"external_id": "zd-4102", "week": 0, "day": 0, "hour": 11, "minute": 40,
     "author": "Initech", "source": ZENDESK,
     "content": "Please enable SAML for our second domain."},
    {"external_id": "zd-4103", "week": 0, "day": 0, "hour": 15, "minute": 5,
     "author": "Soylent Foods", "source": ZENDESK,
     "content": "We're on the Business plan and use the reporting API."},
    {"external_id": "zd-4104", "week": 0, "day": 1, "hour": 10, "minute": 20,
     "author": "Wayne Retail", "source": ZENDESK,
     "content": "The invoice PDF shows the wrong VAT number."},
    {"external_id": "zd-4105", "week": 0, "day": 1, "hour": 14,
     "author": "Globex", "source": ZENDESK,
     "content": "How do we export audit logs?"},
    {"external_id": "zd-4106", "week": 0, "day": 2, "hour": 9, "minute": 30,
     "author": "Cyberdyne Systems", "source": ZENDESK,
     "content": "Our users can't log in to the mobile app."},
    {"external_id": "zd-4107", "week": 0, "day": 2, "hour": 11,
     "author": "Stark Logistics", "source": ZENDESK,
     "content": "We're on the Business plan."},
    {"external_id": "zd-4108", "week": 0, "day": 2, "hour": 16, "minute": 10,
     "author": "Tyrell Labs", "source": ZENDESK,
     "content": "The billing page is slow."},
    {"external_id": "zd-4109", "week": 0, "day": 3, "hour": 10, "minute": 45,
     "author": "Hooli", "source": ZENDESK,
     "content": "We're on the Starter plan."},
    {"external_id": "zd-4110", "week": 0, "day": 3, "hour": 13,
     "author": "Massive Dynamic", "source": ZENDESK,
     "content": "Can you send us your SOC 2 report?"},
    {"external_id": "zd-4111", "week": 0, "day": 4, "hour": 9, "minute": 15,
     "author": "Pied Piper", "source": ZENDESK,
     "content": "Half of our team can't log in to the mobile app."},
    {"external_id": "zd-4112", "week": 0, "day": 4, "hour": 11, "minute": 30,
     "author": "Vandelay Industries", "source": ZENDESK,
     "content": "We're on the Pro plan."},
    # --- Week 1 ----------------------------------------------------------------------------
    {"external_id": "zd-4113", "week": 1, "day": 0, "hour": 8, "minute": 5,
     "author": "Acme Corp", "source": ZENDESK,
     "content": "Our exports fail with timeout errors after the nightly backfill."},
    {"external_id": "zd-4114", "week": 1, "day": 0, "hour": 10,
     "author": "Stark Logistics", "source": ZENDESK,
     "content": "Please update our billing address."},
    {"external_id": "zd-4115", "week": 1, "day": 1, "hour": 8, "minute": 10,
     "author": "Initech", "source": ZENDESK,
     "content": "Scheduled reports fail with timeout errors following the nightly backfill."},
    {"external_id": "zd-4116", "week": 1, "day": 1, "hour": 8, "minute": 30,
     "author": "Acme Corp", "source": ZENDESK,
     "content": "Same again today: requests time out on the export after the nightly backfill."},
    {"external_id": "zd-4117", "week": 1, "day": 1, "hour": 11,
     "author": "Pied Piper", "source": ZENDESK,
     "content": "Our users can't log in to the mobile app again."},
    {"external_id": "zd-4118", "week": 1, "day": 2, "hour": 7, "minute": 50,
     "author": "Umbrella Health", "source": ZENDESK,
     "content": "We're seeing timeouts in the reporting API since the nightly backfill."},
    {"external_id": "zd-4119", "week": 1, "day": 2, "hour": 13, "minute": 20,
     "author": "Vandelay Industries", "source": ZENDESK,
     "content": "We moved from Pro to the Business plan on {date:1,2}."},
    {"external_id": "zd-4120", "week": 1, "day": 3, "hour": 9,
     "author": "Globex", "source": ZENDESK,
     "content": "Our webhooks keep failing."},
    {"external_id": "zd-4121", "week": 1, "day": 3, "hour": 14, "minute": 30,
     "author": "Massive Dynamic", "source": ZENDESK,
     "content": "Thanks for the SOC 2 report!"},
    {"external_id": "zd-4122", "week": 1, "day": 4, "hour": 8, "minute": 20,
     "author": "Hooli", "source": ZENDESK,
     "content": "Dashboards time out every morning after the nightly backfill."},
    {"external_id": "zd-4123", "week": 1, "day": 4, "hour": 12,
     "author": "Cyberdyne Systems", "source": ZENDESK,
     "content": "Mobile login works again, thanks for the quick help."},
    # --- Week 2 ----------------------------------------------------------------------------
    {"external_id": "zd-4124", "week": 2, "day": 0, "hour": 8, "minute": 20,
     "author": "Stark Logistics", "source": ZENDESK,
     "content": "Hi, the CSV export keeps timing out after the nightly backfill. Can you check?"},
    {"external_id": "zd-4125", "week": 2, "day": 0, "hour": 9, "minute": 40,
     "author": "Tyrell Labs", "source": ZENDESK,
     "content": "Since the nightly backfill, the usage report times out."},
    {"external_id": "zd-4126", "week": 2, "day": 0, "hour": 11,
     "author": "Pied Piper", "source": ZENDESK,
     "content": "We switched from Starter to the Pro plan on {date:2,0}."},
    {"external_id": "zd-4127", "week": 2, "day": 1, "hour": 14, "minute": 10,
     "author": "Wayne Retail", "source": ZENDESK,
     "content": "We're getting 502 errors on the checkout page after the Tuesday deploy."},
    {"external_id": "zd-4128", "week": 2, "day": 1, "hour": 15, "minute": 30,
     "author": "Soylent Foods", "source": ZENDESK,
     "content": "The checkout page returns HTTP 502s after the Tuesday deploy."},
    {"external_id": "zd-4129", "week": 2, "day": 1, "hour": 16, "minute": 45,
     "author": "Globex", "source": ZENDESK,
     "content": "Since the Tuesday deploy we get 502 errors on the checkout page."},
    {"external_id": "zd-4130", "week": 2, "day": 2, "hour": 8, "minute": 15,
     "author": "Initech", "source": ZENDESK,
     "content": "Reports time out every morning after the nightly backfill."},
    {"external_id": "zd-4131", "week": 2, "day": 2, "hour": 9, "minute": 5,
     "author": "Acme Corp", "source": ZENDESK,
     "content": "We upgraded to Enterprise on {date:2,2}. Please update our invoices."},
    {"external_id": "zd-4132", "week": 2, "day": 2, "hour": 10, "minute": 30,
     "author": "Vandelay Industries", "source": ZENDESK,
     "content": "We see 502 Bad Gateway on the checkout page following the Tuesday deploy."},
    {"external_id": "zd-4133", "week": 2, "day": 2, "hour": 15,
     "author": "Wayne Retail", "source": ZENDESK,
     "content": "The checkout page still fails with 502 errors."},
    {"external_id": "zd-4134", "week": 2, "day": 3, "hour": 9, "minute": 30,
     "author": "Globex", "source": ZENDESK,
     "content": "Checkout works again, thank you."},
    {"external_id": "zd-4135", "week": 2, "day": 3, "hour": 11,
     "author": "Hooli", "source": ZENDESK,
     "content": "Can we get an invoice for last quarter?"},
    {"external_id": "zd-4136", "week": 2, "day": 4, "hour": 10,
     "author": "Soylent Foods", "source": ZENDESK,
     "content": "The 502 errors on the checkout page are resolved. Thanks!"},
    {"external_id": "zd-4137", "week": 2, "day": 4, "hour": 13,
     "author": "Umbrella Health", "source": ZENDESK,
     "content": "Uploads fail with 413 errors."},
    # --- Week 3 (the current week) -----------------------------------------------------------
    {"external_id": "zd-4138", "week": 3, "day": 0, "hour": 8, "minute": 5,
     "author": "Hooli", "source": ZENDESK,
     "content": "We're on Enterprise and still seeing timeout errors in the reporting API after "
                "the nightly backfill."},
    {"external_id": "zd-4139", "week": 3, "day": 0, "hour": 10, "minute": 10,
     "author": "Soylent Foods", "source": ZENDESK,
     "content": "We downgraded to the Starter plan on {date:3,0}."},
    {"external_id": "zd-4140", "week": 3, "day": 1, "hour": 8, "minute": 25,
     "author": "Massive Dynamic", "source": ZENDESK,
     "content": "Our exports fail with timeout errors after the nightly backfill."},
    {"external_id": "zd-4141", "week": 3, "day": 1, "hour": 13,
     "author": "Tyrell Labs", "source": ZENDESK,
     "content": "Please add Jane as an admin on our account."},
    {"external_id": "zd-4142", "week": 3, "day": 2, "hour": 8, "minute": 10,
     "author": "Umbrella Health", "source": ZENDESK,
     "content": "The reporting API is timing out again after the nightly backfill."},
    {"external_id": "zd-4143", "week": 3, "day": 2, "hour": 10,
     "author": "Initech", "source": ZENDESK,
     "content": "We moved from Business to the Enterprise plan on {date:3,1}."},
    {"external_id": "zd-4144", "week": 3, "day": 2, "hour": 16,
     "author": "Pied Piper", "source": ZENDESK,
     "content": "Where can I download our invoices?"},
    {"external_id": "zd-4145", "week": 3, "day": 3, "hour": 9,
     "author": "Stark Logistics", "source": ZENDESK,
     "content": "The CSV export timed out again this morning after the nightly backfill."},
    {"external_id": "zd-4146", "week": 3, "day": 3, "hour": 11, "minute": 30,
     "author": "Cyberdyne Systems", "source": ZENDESK,
     "content": "We're on the Business plan."},
)

GRAPH = DemoGraph(
    slug="support",
    name="Support queue",
    description=(
        "A month of Zendesk tickets from thirteen customers: recurring errors after the nightly "
        "backfill and the Tuesday deploy, plan changes, and the usual one-off questions."
    ),
    updates=UPDATES,
)
