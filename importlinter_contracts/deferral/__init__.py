"""The `fix` command: the edit that makes each import of an `eager_imports` contract's smallest
cut lazy (`edit`), shown as a diff or written and checked again (`fix`). The cut itself, and
whether an import's names are used while its module is imported, are the contract's
(`eager.smallest_cut`, `eager.import_time_uses`)."""
