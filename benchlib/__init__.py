"""The testbed's shared library: what every stage needs, one module per job.

Stages (collect/, analysis/, contract/, seed/, jmeter-plans/, bench/, docker/) and the command line
(cli/) import it; it imports none of them, so the import graph points one way: cli → stages → here.
"""
