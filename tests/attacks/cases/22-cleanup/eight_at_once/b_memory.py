# status: memory
x = b'\x01' * (1 << 30)
