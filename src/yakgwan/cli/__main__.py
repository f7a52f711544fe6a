"""``python -m yakgwan.cli``."""

import sys

from yakgwan.cli import main

sys.exit(main())
