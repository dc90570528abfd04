"""Work: what costs the server CPU beyond answering a request.

The shared, bounded pool where the computer thinks (``ai_pool.py``), the process pool of the
expensive requests (``work_pool.py``) and the computer analyses of games and records computed
in the AI pool (``analyses.py``).
"""
