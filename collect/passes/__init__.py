"""What a run measures, phase by phase: the reference work and the load generator's ceiling, the
rounds (and the extra rounds while the budget lasts), the cross-check, memory and latency passes;
what a phase sees of the run (`PhaseRun`, `RunContext`) and the progress line it reports on."""
