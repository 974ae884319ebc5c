"""Built-in executors: where independent units of work run (see ``ilpkit.core.executor``)."""
