# attack: a language name with a NUL and a trailing option ("python\u0000 -c ...")
# rejected: NUL
# arguments: {"code": "print(1)", "language": "python\u0000 -c import os"}
