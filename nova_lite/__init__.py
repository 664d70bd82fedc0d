"""nova_lite: a compute control plane in the shape of OpenStack Nova.

nova_lite runs on oslo.service's threading backend and never on eventlet.
The backend is chosen here, before anything imports oslo.messaging (which
imports oslo.service and would otherwise pick eventlet), so every entry
point, test and tool that imports nova_lite gets plain threads.

eventlet is still installed as a dependency of oslo.service, and some
libraries (futurist, oslo.utils) import it opportunistically when present.
Marking it unimportable makes them take their plain-thread paths, and makes
any accidental use fail at import instead of half-working.
"""

import sys

if 'eventlet' not in sys.modules:
    sys.modules['eventlet'] = None

from oslo_service import backend as _backend  # noqa: E402
from oslo_service.backend import exceptions as _backend_exc  # noqa: E402

try:
    _backend.init_backend(_backend.BackendType.THREADING)
except _backend_exc.BackendAlreadySelected:
    # Only a tool that loads nova_lite as a plug-in after another library
    # chose a backend gets here (oslo-config-generator loading several
    # namespaces); every nova_lite entry point imports nova_lite first.
    pass
