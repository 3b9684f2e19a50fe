"""The frame around them: header, tab bar, run status, host deck, data age, redraws."""
