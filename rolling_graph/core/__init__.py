"""The model and everything that changes it: the lowest layer.

The hot graph (:mod:`.model`), a session and its operations (:mod:`.session`), the audit log
(:mod:`.audit`), decay (:mod:`.decay`) and weight math (:mod:`.weights`), JSON Patch checking
and application (:mod:`.patch`), the hot store on disk (:mod:`.hotstore`), node ids
(:mod:`.slug`), project identity (:mod:`.project`), the plain-data hook event
(:mod:`.hook_event`), the token estimate (:mod:`.tokens`), the log file (:mod:`.logs`) and the
validation signals (:mod:`.signals`).

May import: config, paths, privacy (the log file redacts what it writes).
"""
