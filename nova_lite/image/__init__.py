"""Images: one interface (``api``) over two backends.

``registry`` is nova_lite's own small catalogue (rows registered with
``nova-lite-manage image create``, the default); ``glance`` reads and
writes a Glance v2 image service with the caller's token. ``[image]
backend`` picks one, loaded from the ``nova_lite.image.backends`` entry
points.
"""
