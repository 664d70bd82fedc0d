"""Placement, as tables inside nova_lite's database.

Resource providers (one per compute node, sharing its uuid) carry a
generation that every change to their inventories, traits, aggregates or
allocations increments. Writers compare-and-swap on it, which is what makes
concurrent claims from several schedulers safe: the database is the arbiter.

* ``providers``: create providers, replace inventories, traits, aggregates.
* ``allocations``: claim, move and remove a consumer's allocations.
* ``summaries``: bulk reads of provider state for the scheduler.
"""
