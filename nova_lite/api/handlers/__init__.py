"""Resource handlers: plain functions ``handler(req, **route_args)``.

Each returns a webob Response (``wsgi.json_response``) and states its
success status in its docstring; errors are raised as nova_lite exceptions
and become faults in the router.
"""
