"""Exit statuses of every `cogames-lib` command (a private module: command discovery skips `_` names)."""

from __future__ import annotations

EXIT_OK = 0  # the work ran
EXIT_FAILED_WORK = 1  # the arguments were fine but the work failed (a crashed sweep, a failed report part)
EXIT_USAGE = 2  # a user mistake: bad argument, bad file (one line on stderr)
EXIT_INTERRUPTED = 130  # Ctrl-C
EXIT_BROKEN_PIPE = 141  # the reader of our output went away (`| head`), as a shell reports SIGPIPE
