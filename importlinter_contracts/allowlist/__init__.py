"""The shrink-only allowlist: entries with reasons (`entries`), the contract base class that
reports with them (`contract`), the entries in the configuration text (`config_text`), and
the edit that keeps them in step with the tree (`sync`)."""
