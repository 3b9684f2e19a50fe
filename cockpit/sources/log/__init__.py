"""Following a log: the resumable tail, its buffers and events, the log feed."""
