"""The observation engine's pure computation: plain data in, plain data out (DESIGN §4, §6).

No Django, no database, no model calls: the pipeline loads rows, calls these functions and writes
what they return, so every step can be tested and benchmarked alone.

* ``types``            — shared plain data (rows, signatures, clusters, fact/entity/episode info,
                         summaries and their validation, the evidence fingerprint);
* ``clustering``       — step 4: signatures → episode graph → clusters (hubs suppressed, oversized
                         components split with Leiden), with an audit of every decision;
* ``structure``        — step 5: a cluster's kind, root blockers and unblock reach, recurring
                         issues, window;
* ``lifecycle``        — step 6: which observations stay, get a new version, split, merge or end;
* ``template_summary`` — step 7: the deterministic summarizer (embedded default and fallback).
"""
