"""``manage.py``'s front door: Django's, with a one-line description beside every command in ``help``.

Django lists the commands by name only; a researcher reading ``manage.py help`` should see what
each one does. The line is the first sentence of the command's own ``help`` (the text
``manage.py help COMMAND`` opens with), so there is one definition of it.
"""

from __future__ import annotations

import re
from collections import defaultdict

from django.core.management import ManagementUtility, get_commands, load_command_class
from django.core.management.color import color_style

WIDTH = 24  # the command names' column


def summary(text: str) -> str:
    """The first sentence of a command's help, on one line."""
    flat = " ".join(text.split())
    # A sentence ends at ". " before a capital, but not after "et al." or "e.g.".
    first = re.split(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)[.!?]\s+(?=[A-Z])", flat, maxsplit=1)[0]
    return first.rstrip(".")


class WorkbenchUtility(ManagementUtility):
    """Django's ManagementUtility; ``help`` (with no command) describes each command in a line."""

    def main_help_text(self, commands_only: bool = False) -> str:
        if commands_only or self.settings_exception is not None:
            return super().main_help_text(commands_only)
        style = color_style()
        usage = [
            "",
            f"Type '{self.prog_name} help <subcommand>' for help on a specific subcommand.",
            "",
            "Available subcommands:",
        ]
        by_app = defaultdict(list)
        for name, app in get_commands().items():
            by_app["django" if app == "django.core" else app.rpartition(".")[-1]].append((name, app))
        for label in sorted(by_app):
            usage += ["", style.NOTICE(f"[{label}]")]
            for name, app in sorted(by_app[label]):
                try:
                    text = summary(load_command_class(app, name).help or "")
                except Exception:  # a command that cannot even load still has a name
                    text = ""
                usage.append(f"    {name:<{WIDTH}} {text}".rstrip())
        return "\n".join(usage)


def main(argv: list[str]) -> None:
    WorkbenchUtility(argv).execute()
