"""The run as a whole: how it is asked for (`./testbed run`, `./testbed load`, the Docker runner),
opened and recorded (its manifest and state), and the loop that takes it through its phases."""
