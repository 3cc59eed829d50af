"""Rule R2, each backend is private to itself: which children of a container are backends and
which imports reach into them (`backends`), and the contract type (`contract`)."""
