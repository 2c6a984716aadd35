# Stubs of lcplab._log (docs/python.md, "Types").
import logging
from typing import Callable

logger: logging.Logger

def bridge() -> tuple[Callable[[int, str], None] | None, int]: ...
