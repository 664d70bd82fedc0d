"""The conductor as seen from the API process.

The API reads the database itself but writes only through the conductor.
``ReadLocallyConductorAPI`` is its indirection API: remotable class methods
(which only read, by the objects' contract) run in-process, and remotable
instance methods (create, save, destroy: the writes) go to the conductor.
"""

from nova_lite.conductor import rpcapi
from nova_lite.objects import base as objects_base


class ReadLocallyConductorAPI(rpcapi.ConductorAPI):

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        objclass = objects_base.NovaLiteObjectRegistry.obj_classes()[
            objname][0]
        method = getattr(objclass, objmethod)
        # Call the undecorated method so it runs here instead of recursing
        # into this indirection API.
        return method.original_fn(objclass, context, *args, **kwargs)


def make_indirection_api():
    api = ReadLocallyConductorAPI()
    objects_base.NovaLiteObject.indirection_api = api
    return api
