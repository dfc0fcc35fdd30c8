"""An X window dump (Xvfb -fbdir writes the screen as one, Xvfb_screen0) to a PNG, with the
standard library only: 24/32-bit TrueColor ZPixmap, which is what Xvfb -screen WxHx24 makes."""
import struct
import zlib


def xwd_to_png(src, dst):
    """Writes dst; returns how many distinct colours the image has (1: nothing was drawn)."""
    with open(src, "rb") as f:
        data = f.read()
    (header_size, _version, _fmt, _depth, width, height, _xoff, byte_order, _unit, _bit_order,
     _pad, bpp, bpl, _visual, red_mask, green_mask, blue_mask, _bits_rgb, _cmap, ncolors,
     *_rest) = struct.unpack(">25I", data[:100])
    if bpp != 32:
        raise ValueError("%s: %d bits per pixel; only 32 is read" % (src, bpp))

    def shift(mask):
        s = 0
        while mask and not mask & 1:
            mask >>= 1
            s += 1
        return s

    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    order = "<" if byte_order == 0 else ">"
    off = header_size + ncolors * 12
    rows, colours = [], set()
    for y in range(height):
        px = struct.unpack_from(order + "%dI" % width, data, off + y * bpl)
        row = bytearray(b"\0")
        for p in px:
            row += bytes(((p & red_mask) >> rs, (p & green_mask) >> gs, (p & blue_mask) >> bs))
        if len(colours) < 64:
            colours.update(px[::7])
        rows.append(bytes(row))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b"")
    with open(dst, "wb") as f:
        f.write(png)
    return len(colours)
