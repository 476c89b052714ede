# attack: every kind of invalid UTF-8 on stdout and stderr
# status: ok
# stdout_json: "1\ufffd2\ufffd\ufffd3\ufffd\ufffd\ufffd4\ufffd\ufffd\ufffd\ufffd5\ufffd6\u00e9\n"
# stderr_json: "cut \ufffd"
#   A stray continuation byte, an overlong "/" (C0 AF), an encoded surrogate
#   (ED A0 80), a code point above U+10FFFF (F4 90 80 80), a lone lead byte,
#   then valid UTF-8; stderr ends inside a sequence.  Each bad byte or cut
#   sequence becomes U+FFFD (the gateway's replacement, per the Unicode
#   "maximal subpart" practice), the valid é survives.
import sys
sys.stdout.buffer.write(b'1\x802\xc0\xaf3\xed\xa0\x804\xf4\x90\x80\x805\xc36\xc3\xa9\n')
sys.stderr.buffer.write(b'cut \xe2\x82')
