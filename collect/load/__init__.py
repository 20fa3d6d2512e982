"""How load is made and watched: a batch of measurements by one load generator (JMeter, wrk, or
remote engines), the apps it measures, the CPU sets, and the samplers beside it."""
