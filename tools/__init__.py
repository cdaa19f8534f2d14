"""Developer tooling beside the library (not installed with it): the SYNTHETIC Mindcraft sample generator
and the headless-browser client. Run from the repository root: `python -m tools.<name>`."""
