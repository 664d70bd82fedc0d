"""Every response of the API checked against tempest.lib's compute schemas.

The schemas are imported from the ``tempest`` package (a test
dependency), never copied: they are what tempest, and so Nova's own gate,
hold Nova's responses to. Each module here drives one resource through
the fakes of its handler tests and validates every answer at the
microversion it was asked at.
"""
