"""Rule R4, what importing a module runs: which import statements run at import time
(`scopes`, and as much of it as the answer needs from a file's text: `outline`), what a file
calls then (`calls`), those readings kept per module between runs (`scope_cache`), eager
imports followed from module to module (`walk`), what the walks found kept between runs
(`outcomes`), and the contract type (`contract`)."""
