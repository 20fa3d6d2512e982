"""`testbed new`: scaffold a new implementation."""
from scaffold.make import new


def register(sub):
    p = sub.add_parser("new", help="make NAME-api/, a new implementation to fill in",
                       description="Make NAME-api/ from the scaffold/ template of an existing "
                                   "implementation: framework.json, the routes' skeleton (each "
                                   "answers 501 until written), a README listing the settings to "
                                   "declare, and a test. It builds and starts; ./testbed verify "
                                   "--framework NAME then lists what is still missing. The guide: "
                                   "docs/adding-a-framework.md.")
    p.add_argument("name", metavar="NAME",
                   help="the framework's name: lowercase letters, digits, single hyphens (e.g. koa)")
    p.add_argument("--from", dest="source", metavar="F",
                   help="the implementation whose template to start from: any one with a "
                        "scaffold/ folder (an unknown name lists them); default: the first")
    p.add_argument("--maintainer", action="append", metavar="NAME",
                   help="who answers for it (repeatable); default: git's user.name")
    p.add_argument("--display-name", metavar="TEXT",
                   help="its name in reports (default: NAME capitalised)")
    p.set_defaults(func=lambda args: new(args.name, args.source, args.maintainer, args.display_name))
