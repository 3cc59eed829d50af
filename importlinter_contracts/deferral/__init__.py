"""The `fix` command: the edit that makes each import of an `eager_imports` contract's smallest
cut lazy, or moves it into the functions that use it (`edit`, `functions`), shown as a diff
or written and checked again (`fix`). The cut itself, and whether an import can be made
lazy (whatever the form of the edit), are the contract's (`eager.smallest_cut`,
`eager.deferrable`)."""
