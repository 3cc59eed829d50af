"""What to defer, and how: the fewest import statements whose deferral keeps an
`eager_imports` contract (`cut`), whether an import's names are used while its module is
imported (`uses`), and the edit that makes an import lazy (`edit`)."""
