"""Rule R4, what importing a module runs: which import statements run at import time
(`scopes`, and as much of it as the answer needs from a file's text: `outline`), what a file
calls then (`calls`), what one module's file says (`module_files`), those readings kept per
module between runs (`scope_cache`) and read ahead of the walks by a second process
(`read_ahead`), eager imports followed from module to module (`walk`), what the walks found
kept between runs (`outcomes`), and the contract type (`contract`)."""
