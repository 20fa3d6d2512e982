"""One item of a run: how long it is measured (the profiles), its files, its figures over its
window, and the checks that judge it."""
