"""Options of PCI passthrough: ``[pci]``.

An alias names a kind of PCI device a flavor can ask for with the extra
spec ``pci_passthrough:alias`` ("<alias>:<count>[,<alias>:<count>...]")::

    [pci]
    alias = {"name": "QuickAssist", "vendor_id": "8086",
             "product_id": "0443", "device_type": "type-PCI"}
"""

from oslo_config import cfg

pci_group = cfg.OptGroup('pci', title='PCI passthrough options')

pci_opts = [
    cfg.MultiStrOpt('alias', default=[],
                    help='A PCI alias, as a JSON object (repeat the option '
                         'for several): "name" (required) is what flavors '
                         'use; "vendor_id" and "product_id" are 4-digit '
                         'hexadecimal ids or "*"; "device_type" is '
                         'type-PCI, type-PF or type-VF; "numa_policy" is '
                         'required, legacy, preferred or socket. Several '
                         'aliases with one name match any of their device '
                         'specs but must agree on device_type and '
                         'numa_policy. A malformed alias makes '
                         'PciPassthroughFilter fail with PciInvalidAlias.'),
]


def register_opts(conf):
    conf.register_group(pci_group)
    conf.register_opts(pci_opts, group=pci_group)


def list_opts():
    return {pci_group: pci_opts}
