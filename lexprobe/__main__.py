import sys

from lexprobe.cli import main

sys.exit(main())
