# attack: a language that is a path or carries arguments, to pick another interpreter
# rejected: language
# arguments: {"code": "print(1)", "language": "../../../bin/sh"}
#   Only the policy's profiles exist; the gateway refuses the request with
#   a sentence naming the bad argument, and no job runs.
