# SPDX-License-Identifier: MIT
# Writes the bytes of IN as a comma-separated C initializer list into OUT.
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT} "${body}\n")
