"""How a method asks a model: the request types (``requests.py``) and the ``Engine`` that resolves them on whatever
backend a run has (``engine.py``). Layer 0: the scorers serve these types and the task types ask them, so both
import them from here."""
