"""Rule R4, what importing a module runs.

A walk (`walk`) starts at a source module and follows its eager imports from module to
module, breadth first, asking at each hop whether to enter the imported module (`decide`:
for a contract, its `check.Decider`). What it knows of a module it learns by asking
questions (`questions`) of grimp's graph and of the module's file; the call resolver
(`resolver`) works out, from those answers, what the functions a module calls at import
time run, asking name resolution (`name_resolution`) what each name called is. A module's
file is read as little as the questions need (`module_files`: in part, then its outline,
then its calls; the readers are `outline`, `scopes` and `calls`, with `parsing`, and they
walk a file's blocks as `conditions` says; a call
reading is made of the records and keys of `call_model`, read with `call_expressions` and
`import_bindings`, and kept as `call_storage` says), those readings are kept between runs
(`scope_cache`) and read ahead of the walks by a second process (`read_ahead`); what the
walks found is kept too, with each file's answers (`outcomes`). A contract's check
(`check`) walks from each source with those caches, or reuses what they kept, and returns
its findings as data, with the fewest imports to defer to keep it (`smallest_cut`, found
for a kept contract where a report asks for it, `cut_request`; it asks `deferrable` whether
an import can be made lazy: the test the `fix` command edits by, which asks
`import_time_uses` whether its names are used at import time); the contract type
(`contract`) states the rule and reports them.

Terms:

- *eager import*: an import statement that runs when its module is imported (module level,
  `if`/`try`/`with`/loop bodies, class bodies, the body of a function called then), as
  opposed to one inside a function nobody calls then, under `if TYPE_CHECKING:` or lazy;
- *block*, *condition*: a clause of a compound statement that a statement stands in, as
  data: whether its statements run on import (always, never, or only where a test the tool
  cannot decide holds) and those tests (`conditions.Block`, `conditions.Condition`), given
  by the one walk through a file's compound statements (`conditions.walk`);
- *scope*: whether an import statement is eager, and why, rendered from the blocks around
  it, with its conditions (`scopes.ImportScope`);
- *outline*: what a file's text says about import time without its expressions: the scope
  of each import and the names its import-time code may call (`outline.Outline`);
- *read in part*: a short file read only around the imports asked about, and for the
  names its text calls (`module_files.ReadingLevel.IN_PART`);
- *call reading*: what a file calls at import time, the functions it defines then and what
  each one's body imports and calls, and the names its imports bind
  (`call_model.CallReading`);
- *name resolution*: what a dotted name called in a module may run, through the names its
  imports bind, re-exports, classes and their bases (`name_resolution.NameResolver`);
- *hop*: one step by which importing a module runs another (`walk.EagerHop`: what the walks
  take, the smallest cut is found in, the findings are made of and the REPL holds, with the
  graph's imports whose lines need not run at import time; reports, `closure` and `why`
  hold it as `report.Hop`, which `EagerHop.as_data` makes);
- *smallest cut*: the fewest import statements (or, for imports inside functions, the
  calls at import time that run them) whose deferral leaves no eager chain from a source
  module to a forbidden one (`smallest_cut.SmallestCut`);
- *question*, *answer*: what a walk asks of a module (a method of
  `questions.ModuleQuestions`) and what its file or grimp answers; a walk's verdict is a
  function of its answers;
- *kept*: of a contract, its rule holds on the code that was read; of an outcome, reused
  from an earlier run because every file the walks read is unchanged or answers the same.
"""
