"""A Zep v4-compatible subset (``/api/v4/``), so code written for Zep's ``zep-cloud`` SDK can point
``base_url`` at this server. Wire names and shapes follow the SDK's models exactly
(``uuid``, ``episode_uuids``, ``episode_uuids_truncated``, ``next_cursor``...).

Mapping: Zep *edges* are our facts (with our four timestamps), *nodes* our entities,
*observations* our observations (``episode_uuids`` = supporting episodes; claims, lineage, version,
status, retirement and structure in ``attributes``), *episodes* our episodes, a graph's
``graph_id`` our graph slug, and the *task* of an episode add reports the episode's processing.
"""
