"""The shrink-only allowlist: entries with reasons (`entries`), the contract base class that
reports with them (`contract`), and the entries in the configuration text (`config_text`).
The edit that keeps them in step with the tree runs the contracts, so it is the command's
(`allowlist_sync`), not this package's, which the contracts import."""
