"""Arena's referee: the rule engines and the server that hosts matches."""
