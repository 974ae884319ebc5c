"""The ``ilpkit`` command line: thin typer commands that parse, validate and call the core."""
