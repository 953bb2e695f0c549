from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.api.keys import create_api_key


class Command(BaseCommand):
    help = (
        "Create an API key for a user and print it (only a hash is stored: this is the only "
        "time it is shown). The key reaches the user's graphs with the user's roles."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="", help="a label, e.g. the script that uses it")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no user {options['username']!r}")
        if not user.is_active:
            raise CommandError(f"user {options['username']!r} is inactive")
        key, raw = create_api_key(user, options["name"] or "command line")
        self.stderr.write(f"created API key {key.prefix}… ({key.name}) for {user.username}")
        self.stdout.write(raw)
