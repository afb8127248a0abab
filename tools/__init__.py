"""Developer tools of the pitui repository, not part of the package: the one writer of Pi
session files (``piwriter``) and the generator of the demo sessions (``demo``)."""
