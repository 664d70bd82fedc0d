"""The scheduler: chooses and claims a host for each instance.

* ``manager``: the RPC endpoint (``rpcapi`` is its client).
* ``host_manager`` / ``host_state``: the in-memory view of every compute
  node, kept current between requests (``host_instances`` reads the
  instances on the nodes, ``host_usage`` works out their NUMA and PCI
  usage).
* ``request_filter``: the prefilters, which turn a request into required
  and forbidden traits and placement aggregates.
* ``filter_scheduler``: the pure core, (request, host states) ->
  selections, with claims behind ``claims.Claimer``.
* ``filters`` / ``weighers``: Nova's plug-in contracts and the built-ins,
  registered as entry points in setup.cfg.
"""
