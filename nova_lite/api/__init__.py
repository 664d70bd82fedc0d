"""The compute API: a paste pipeline in front of per-resource handlers.

The pipeline is declared in ``etc/nova_lite/api-paste.ini`` (see its
comments for the order); ``nova_lite.wsgi.api.load_app`` builds it.
Requests carry their ``nova_lite.context.RequestContext`` in
``environ['nova_lite.context']`` once authenticated.

Layout: ``middleware/`` holds the filters, ``router.py`` the route table,
and each resource has ``handlers/<res>.py``, ``schemas/<res>.py`` and
``nova_lite/policies/<res>.py``.
"""
