"""The paste filters of the compute API pipeline, one module each."""
