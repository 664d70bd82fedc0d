"""Every response of the API checked against tempest.lib's compute schemas.

The schemas are imported from the ``tempest`` package (a test
dependency), never copied: they are what tempest, and so Nova's own gate,
hold Nova's responses to. Each module here drives one resource through
the fakes of its handler tests and validates every answer at every
advertised microversion (see conftest.py). Where tempest.lib describes
less than Nova answers, conftest.py derives the schema from tempest's in
code (``hypervisor_at_2_88``, ``with_links``).
"""
