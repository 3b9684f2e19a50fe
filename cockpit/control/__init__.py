"""Who may change a session, and how, with no Textual: the controller of an open session
(undo, merge on save) and the one transaction every short-lived writer goes through."""
