"""Request ids: oslo.middleware's, also answered as x-compute-request-id.

novaclient and older tools read Nova's historical header; newer ones read
``x-openstack-request-id``. Both carry the same id, which is also in
``environ['openstack.request_id']`` for the context and the logs.
"""

from oslo_middleware import request_id

HTTP_RESP_HEADER_REQUEST_ID = 'x-compute-request-id'
ENV_REQUEST_ID = request_id.ENV_REQUEST_ID


class ComputeReqIdMiddleware(request_id.RequestId):
    compat_headers = [HTTP_RESP_HEADER_REQUEST_ID]
