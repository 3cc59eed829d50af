"""Rule R4, what importing a module runs: which import statements run at import time
(`scopes`), that reading cached per file (`scope_cache`), eager imports followed from module
to module (`walk`), and the contract type (`contract`)."""
