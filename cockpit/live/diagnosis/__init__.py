"""Diagnosis: rules over the session's live and recorded data that propose evidence-backed
hypotheses (findings). Plain Python; a person accepts one as a discovery or dismisses it."""
