"""Code that runs inside the sandboxed child. Only the standard library and numpy may be imported here."""
