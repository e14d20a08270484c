"""Models are added by the issues that build this app."""
