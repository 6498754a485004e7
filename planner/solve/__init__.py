"""Solving: the packing engine, host assignment, bounds, MILP models and the checker."""
