"""The Run menu's timing settings, shared by the forms and the controller
(kept apart from both so neither imports the other for them)."""

#: Shortest time between two updates of the views with new runs (ms).
FLUSH_MS = 300
#: Shortest time between two refreshes of the disputes while a judge runs (s);
#: it grows to 10x the time the last refresh took.
DISPUTES_EVERY_S = 2.0
