"""Versioned objects. ``register_all()`` imports every object module.

After registration the newest class of each object is an attribute of this
package (``objects.Instance``), which is how the rest of the code uses them.
"""


def register_all():
    # Importing a module registers its objects (see base.registration_hook).
    __import__('nova_lite.objects.aggregate')
    __import__('nova_lite.objects.compute_node')
    __import__('nova_lite.objects.flavor')
    __import__('nova_lite.objects.image')
    __import__('nova_lite.objects.image_meta')
    __import__('nova_lite.objects.instance')
    __import__('nova_lite.objects.instance_action')
    __import__('nova_lite.objects.instance_fault')
    __import__('nova_lite.objects.instance_group')
    __import__('nova_lite.objects.keypair')
    __import__('nova_lite.objects.migration')
    __import__('nova_lite.objects.quotas')
    __import__('nova_lite.objects.request_spec')
    __import__('nova_lite.objects.selection')
    __import__('nova_lite.objects.service')
    __import__('nova_lite.objects.tag')
