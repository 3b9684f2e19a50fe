"""The Markdown handoff: the document (markdown.py), its Searches section (search.py)
and a front of several objectives (front.py)."""
