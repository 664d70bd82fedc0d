"""WSGI entry points for running nova_lite's API under a WSGI server."""
