"""Signals other apps listen to (the probing app starts runs when a release is published)."""

from django.dispatch import Signal

# Sent once a release is published, with ``release``; receivers act after the transaction commits.
release_published = Signal()
