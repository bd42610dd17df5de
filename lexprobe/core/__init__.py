"""The core every benchmark and backend shares: the request types (``requests``) and the engine that
resolves them on a backend (``engine``)."""
