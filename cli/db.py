"""`testbed db start|stop|status|reset`."""
from benchlib import database
from benchlib.console import say


def register(sub):
    p = sub.add_parser("db", help="manage the database",
                       description="Manage the managed MariaDB on 127.0.0.1:3307 (data under "
                                   ".testbed/), or report on the server named by DB_HOST.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, func, text in [
        ("start", lambda a: say(f"db: using {database.start().describe()}."),
         "start the managed server (harmless if running)"),
        ("stop", lambda a: database.stop(), "stop the managed server (by its pid file)"),
        ("status", lambda a: database.status(), "say running or stopped, and which data set is loaded"),
        ("reset", lambda a: database.reset(), "drop the forum tables and create them empty"),
    ]:
        actions.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".") \
            .set_defaults(func=func)
