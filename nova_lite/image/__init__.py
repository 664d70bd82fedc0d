"""The image registry: nova_lite's own small catalogue of images.

nova_lite has no Glance: images are rows registered with
``nova-lite-manage image create`` and shown by the API's /images.
"""
