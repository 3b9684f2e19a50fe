"""Who may change a session and runs things, with no Textual: the controller of an open session
(undo, merge on save), the one transaction every short-lived writer goes through, the experiment
service, and the live hub with the log pipeline it runs."""
