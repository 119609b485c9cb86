"""`python -m jaxerrs`: the same as the `jaxerrs` command."""

import sys

from jaxerrs.cli import main

sys.exit(main())
