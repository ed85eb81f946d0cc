"""The HTTP policy every source shares: politeness, retries, timeouts and size caps
(``policy``), the on-disk cache keyed by the address really asked (``cache``), and reading one
page ahead (``prefetch``)."""
