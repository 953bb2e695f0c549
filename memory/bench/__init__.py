"""The benchmark and evaluation harness behind ``manage.py bench`` (issue #7).

* ``scenarios`` — seeded scenario generator: JSONL episodes ``ingest`` reads, plus ground truth;
* ``metrics`` — quality metrics against the ground truth (pure functions);
* ``alternatives`` — the side-by-side approaches (networkx, co-mention, the igraph floor);
* ``fake_openai`` — a real loopback OpenAI-compatible server, to count model calls;
* ``runner`` — runs the product path (ingest, processing, pipeline runs) and scores it;
* ``report`` — the table, JSON and Markdown outputs.

and behind ``manage.py bench_pipeline`` (issue #3's target at its density, no ingestion):

* ``synthetic`` — a seeded synthetic graph as plain rows (pure; also the clustering tests' input);
* ``loading`` — writes it straight into a Graph, as processing would have left it;
* ``pipeline_bench`` — the full run, clustering against its floor, memory, the incremental run.
"""
