"""ImageMeta: what the scheduler and the compute know of a server's image.

Built from the image registry (``nova_lite.image.api``) at boot and kept in
the RequestSpec. Only the standard properties below are parsed, as Nova
does since Liberty; the pre-Liberty names are accepted and mapped.
"""

from oslo_utils import versionutils

from nova_lite.objects import base
from nova_lite.objects import fields

# Old property name -> current name (seed 000, ImagePropertiesFilter).
LEGACY_PROPERTY_NAMES = {
    'architecture': 'hw_architecture',
    'hypervisor_type': 'img_hv_type',
    'hypervisor_version_requires': 'img_hv_requested_version',
    'vm_mode': 'hw_vm_mode',
}


_TRAIT_PREFIX = 'trait:'
_NEW_IN_1_1 = ('traits_required', 'hw_cpu_thread_policy', 'hw_mem_page_size',
               'hw_pci_numa_affinity_policy')


@base.NovaLiteObjectRegistry.register
class ImageMetaProps(base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: Added traits_required, hw_cpu_thread_policy,
    #              hw_mem_page_size, hw_pci_numa_affinity_policy
    VERSION = '1.1'

    fields = {
        'hw_architecture': fields.StringField(),
        'img_hv_type': fields.StringField(),
        'img_hv_requested_version': fields.StringField(),
        'hw_vm_mode': fields.StringField(),
        'hw_machine_type': fields.StringField(),
        'hw_numa_nodes': fields.IntegerField(),
        'hw_cpu_policy': fields.StringField(),
        # Read by NUMATopologyFilter with their flavor counterparts.
        'hw_cpu_thread_policy': fields.StringField(),
        'hw_mem_page_size': fields.StringField(),
        'hw_pci_numa_affinity_policy': fields.StringField(),
        'os_distro': fields.StringField(),
        'os_type': fields.StringField(),
        'os_secure_boot': fields.StringField(),
        'os_require_quiesce': fields.FlexibleBooleanField(),
        'img_type': fields.StringField(),
        # From properties "trait:<NAME>=required" (seed 000's required
        # traits): the scheduler's required-traits prefilter reads them.
        'traits_required': fields.ListOfStringsField(),
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = versionutils.convert_version_to_tuple(target_version)
        if target < (1, 1):
            for name in _NEW_IN_1_1:
                primitive.pop(name, None)

    @classmethod
    def from_dict(cls, properties):
        """Build from registry properties; unknown keys are ignored."""
        props = cls()
        required = []
        for key, value in (properties or {}).items():
            if key.startswith(_TRAIT_PREFIX):
                if value == 'required':
                    required.append(key[len(_TRAIT_PREFIX):])
                continue
            key = LEGACY_PROPERTY_NAMES.get(key, key)
            if key in cls.fields and value is not None:
                setattr(props, key, value)
        if required:
            props.traits_required = sorted(required)
        return props

    def get(self, name, default=None):
        """The property ``name`` if set, else ``default``."""
        attr = _SET_ATTRS.get(name)
        if attr is not None and hasattr(self, attr):
            return getattr(self, name)
        return default

    def to_dict(self):
        # Each decision's claim copies the request's image properties.
        # obj_attr_is_set lists every field name at each call (16 calls,
        # 18 us); a set field is the attribute it checks for, asked
        # directly (as selections.SelectionMaker sets them).
        return {name: getattr(self, name)
                for name, attr in _SET_ATTRS.items() if hasattr(self, attr)}


# Per ImageMetaProps field, the attribute holding its value once set
# (oslo.versionedobjects' naming).
_SET_ATTRS = {name: '_obj_' + name for name in ImageMetaProps.fields}


@base.NovaLiteObjectRegistry.register
class ImageMeta(base.NovaLiteObject):
    # Version 1.0: Initial version
    # Version 1.1: ImageMetaProps 1.1 (traits_required)
    VERSION = '1.1'

    fields = {
        'id': fields.UUIDField(),
        'name': fields.StringField(),
        'status': fields.StringField(),
        'disk_format': fields.StringField(),
        'container_format': fields.StringField(),
        'size': fields.IntegerField(),
        'min_disk': fields.IntegerField(),
        'min_ram': fields.IntegerField(),
        'owner': fields.StringField(nullable=True),
        'visibility': fields.StringField(),
        'properties': fields.ObjectField('ImageMetaProps'),
        'created_at': fields.DateTimeField(nullable=True),
        'updated_at': fields.DateTimeField(nullable=True),
    }

    # Which ImageMetaProps each version carries, for backports made
    # without a version manifest.
    obj_relationships = {'properties': [('1.0', '1.0'), ('1.1', '1.1')]}

    @classmethod
    def from_image(cls, image):
        """Build from an image dict of the registry."""
        meta = cls()
        for key in ('id', 'name', 'status', 'disk_format',
                    'container_format', 'size', 'min_disk', 'min_ram',
                    'owner', 'visibility', 'created_at', 'updated_at'):
            if key in image:
                setattr(meta, key, image[key])
        meta.properties = ImageMetaProps.from_dict(image.get('properties'))
        meta.obj_reset_changes(recursive=True)
        return meta
