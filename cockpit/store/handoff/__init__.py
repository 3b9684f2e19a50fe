"""The Markdown handoff: the document (handoff_md.py), its Searches section (handoff_search.py)
and a front of several objectives (handoff_front.py)."""
