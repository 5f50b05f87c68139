"""Arena's referee: the rule engines and the server that hosts matches."""

from referee.compiled import activate

# With ARENA_COMPILED=1, the rules come from the current compiled build, if there is one (referee/compiled.py).
__path__ = activate(__path__)
