"""The quota engine: limits, usage records and reservations.

* ``resources``: what is limited and how its real usage is counted;
* ``engine``: the decisions (refresh, how many fit, over quota), pure;
* ``limits``: where limits come from and how they are set;
* ``usages``: the usage records, their locking protocol, recount, audit;
* ``reservations``: reserve, commit, roll back, expire, release.

Usage is exact: it changes only with the records it accounts for, in the
same transactions, under a per-project lock taken in a fixed order.
"""
