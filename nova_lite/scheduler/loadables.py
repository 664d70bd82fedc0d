"""Finding filter and weigher classes by name.

Built-ins are entry points (``nova_lite.scheduler.filters``,
``nova_lite.scheduler.weighers`` in setup.cfg). A configured name is either
an entry point name, or a dotted path to a class or to a function
returning classes (``nova_lite.scheduler.filters.all_filters`` is such a
function, returning the built-ins only), so an operator's own plug-in is
named by its class path, or by its entry point name when its
distribution registers one in the namespace.
"""

from oslo_log import log as logging
from oslo_utils import importutils
from stevedore import extension

LOG = logging.getLogger(__name__)


def _log_load_failure(manager, entrypoint, exc):
    LOG.error('Could not load scheduler plug-in %s: %s', entrypoint, exc)


def entry_point_classes(namespace):
    """{entry point name: class} of ``namespace``, sorted by name."""
    manager = extension.ExtensionManager(
        namespace, invoke_on_load=False,
        on_load_failure_callback=_log_load_failure)
    return {ext.name: ext.plugin
            for ext in sorted(manager, key=lambda ext: ext.name)}


def builtin_classes(namespace):
    """The classes of ``namespace`` that nova_lite itself provides.

    Another distribution may register entry points in the namespace; as
    in Nova, its plug-ins are available only when ``available_filters``
    (or ``weight_classes``) names them, never through ``all_filters``.
    """
    return [cls for cls in entry_point_classes(namespace).values()
            if cls.__module__.startswith('nova_lite.')]


def load_classes(names, namespace, base_class, not_found):
    """The classes ``names`` designate, without duplicates, in order.

    Raises ``not_found(name=..., reason=...)`` (an exception class) for a
    name that is neither an entry point of ``namespace`` nor the path of a
    ``base_class`` subclass or of a function returning such classes.
    """
    known = entry_point_classes(namespace)
    result = []
    for name in names:
        name = name.strip()
        if not name:
            continue
        if name in known:
            found = [known[name]]
        else:
            found = _import(name, base_class, not_found)
        for cls in found:
            if cls not in result:
                result.append(cls)
    return result


def _import(path, base_class, not_found):
    try:
        obj = importutils.import_class(path)
    except (ImportError, ValueError) as exc:
        reason = str(exc).split('(Traceback', 1)[0].strip()
        raise not_found(name=path, reason=reason or 'cannot be imported')
    if isinstance(obj, type):
        classes = [obj]
    elif callable(obj):
        classes = list(obj())
    else:
        raise not_found(name=path, reason='not a class or a function')
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, base_class)):
            raise not_found(name=path, reason='%r is not a %s' % (
                cls, base_class.__name__))
    return classes
