"""`./testbed new`: a new implementation's folder from an existing one's scaffold/ template."""
