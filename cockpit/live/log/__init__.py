"""A log's items and its metrics fold (control/log_pipeline.py runs it in a child process)."""
