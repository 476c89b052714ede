# attack: smuggle limits or options the tool does not have (memory, network, env)
# rejected: memory
# arguments: {"code": "print(1)", "memory": "100G", "network": true, "env": {"LD_PRELOAD": "x"}}
