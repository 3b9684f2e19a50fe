"""Pure renderers: data in, Rich `Text` (or plain characters) out, no Textual. The widgets
draw with them, and so does the command line (`cockpit fleet` prints the Fleet tab's rows)
without importing a widget."""
