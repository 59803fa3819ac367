"""Secret redaction rules: shapes of tokens (:mod:`.shapes`), names and values of credentials
(:mod:`.names`), and the engine that runs both over a text (:mod:`.secrets`)."""
