#!/usr/bin/env python3
"""Edits a real file-mode perf.data (little-endian, uncompressed) to make input fixtures.

  perf_data_edit.py empty-callchains IN OUT N   the first N SAMPLEs lose their callchain
                                                (nr = 0, as the kernel writes when it could not
                                                walk any frame; 7 of 798k samples of a -a -g
                                                recording here)
  perf_data_edit.py zero-feature IN OUT BIT      the feature section BIT (8 = cpudesc) gets size
                                                0, as perf 3.14 on armv7 wrote cpudesc

Layout (tools/perf/util/header.h): a 104-byte header {magic, size, attr_size, attrs{off,size},
data{off,size}, event_types{off,size}, features bitmap[4]}; after the data section a table of
{offset, size} per feature bit set, ascending; SAMPLE records (type 9) hold their fields in
sample_type bit order, the callchain as {u64 nr, u64 ips[nr]}.
"""
import struct
import sys

HDR = struct.Struct('<8sQQ QQ QQ QQ 4Q')
SAMPLE_FIELDS_BEFORE_CALLCHAIN = [  # (bit, bytes) in the kernel's order
    (16, 8),  # IDENTIFIER
    (0, 8),   # IP
    (1, 8),   # TID
    (2, 8),   # TIME
    (3, 8),   # ADDR
    (6, 8),   # ID
    (9, 8),   # STREAM_ID
    (7, 8),   # CPU
    (8, 8),   # PERIOD
]


def read(path):
    with open(path, 'rb') as f:
        b = bytearray(f.read())
    h = list(HDR.unpack_from(b, 0))
    if h[0] != b'PERFILE2' or h[1] != 104:
        sys.exit(f'{path}: not a little-endian file-mode perf.data')
    return b, h


def feature_bits(h):
    return [bit for bit in range(256) if (h[9 + bit // 64] >> (bit % 64)) & 1]


def empty_callchains(b, h, n):
    attr_size, attrs_off, attrs_size, data_off, data_size = h[2], h[3], h[4], h[5], h[6]
    if attrs_size != attr_size:
        sys.exit('one event attr expected')
    sample_type = struct.unpack_from('<Q', b, attrs_off + 24)[0]
    if not sample_type & (1 << 5) or sample_type & (1 << 4):
        sys.exit('sample_type needs CALLCHAIN and no READ')
    before = sum(size for bit, size in SAMPLE_FIELDS_BEFORE_CALLCHAIN if sample_type & (1 << bit))
    out = bytearray()
    pos, end, done = data_off, data_off + data_size, 0
    while pos < end:
        typ, misc, size = struct.unpack_from('<IHH', b, pos)
        rec = b[pos:pos + size]
        if typ == 9 and done < n:
            at = 8 + before
            nr = struct.unpack_from('<Q', rec, at)[0]
            rec = rec[:at] + struct.pack('<Q', 0) + rec[at + 8 + 8 * nr:]
            struct.pack_into('<H', rec, 6, len(rec))
            done += 1
        out += rec
        pos += size
    delta = data_size - len(out)
    table = b[end:end + 16 * len(feature_bits(h))]
    for i in range(len(table) // 16):
        off = struct.unpack_from('<Q', table, 16 * i)[0]
        struct.pack_into('<Q', table, 16 * i, off - delta)
    rest = b[end + len(table):]
    h[6] = len(out)
    return bytearray(HDR.pack(*h)) + b[104:data_off] + out + table + rest


def zero_feature(b, h, bit):
    bits = feature_bits(h)
    if bit not in bits:
        sys.exit(f'feature {bit} not in the file')
    entry = h[5] + h[6] + 16 * bits.index(bit)
    struct.pack_into('<Q', b, entry + 8, 0)
    return b


def main():
    cmd, src, dst, arg = sys.argv[1:5]
    b, h = read(src)
    if cmd == 'empty-callchains':
        b = empty_callchains(b, h, int(arg))
    elif cmd == 'zero-feature':
        b = zero_feature(b, h, int(arg))
    else:
        sys.exit(__doc__)
    with open(dst, 'wb') as f:
        f.write(b)


if __name__ == '__main__':
    main()
