"""Review tooling for a configuration change: what it does to each allowlist (`allowlists`),
which findings it stops or starts reporting (`effects`), read from git revisions
(`revisions`)."""
