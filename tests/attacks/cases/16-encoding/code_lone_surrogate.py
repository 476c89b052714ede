# attack: code holding a lone surrogate escape (\udc80), and a high-low pair split by other text
# jsonrpc_error: -32700
# arguments: {"code": "print('x\udc80y\ud83d-\ude00')", "language": "python"}
