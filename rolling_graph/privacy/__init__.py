"""The privacy boundary: what an event may carry past the entry (DESIGN §7).

:mod:`.boundary` scrubs every text of an event once (``<private>`` spans, secrets) and knows
which projects opted out; :mod:`.redact` holds the secret rules.

May import: nothing.
"""
