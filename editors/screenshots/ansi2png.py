#!/usr/bin/env python3
"""Renders a terminal screen captured with `tmux capture-pane -e -p` (text with SGR colour
escapes) to a PNG, one monospace cell per character. Needs Pillow and a monospace TTF
(DejaVu Sans Mono by default).

    python3 ansi2png.py SCREEN.ansi OUT.png [--font FONT.ttf] [--size 16]
"""
import argparse
import re

from PIL import Image, ImageDraw, ImageFont

DEFAULT_FG = (0xE0, 0xE2, 0xEA)
DEFAULT_BG = (0x14, 0x16, 0x1B)

# xterm's 16 colours, then the 6x6x6 cube and the grey ramp of the 256-colour palette.
BASE16 = [
    (0x00, 0x00, 0x00), (0xCD, 0x00, 0x00), (0x00, 0xCD, 0x00), (0xCD, 0xCD, 0x00),
    (0x00, 0x00, 0xEE), (0xCD, 0x00, 0xCD), (0x00, 0xCD, 0xCD), (0xE5, 0xE5, 0xE5),
    (0x7F, 0x7F, 0x7F), (0xFF, 0x00, 0x00), (0x00, 0xFF, 0x00), (0xFF, 0xFF, 0x00),
    (0x5C, 0x5C, 0xFF), (0xFF, 0x00, 0xFF), (0x00, 0xFF, 0xFF), (0xFF, 0xFF, 0xFF),
]


def palette(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    g = 8 + 10 * (n - 232)
    return (g, g, g)


SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER_ESC = re.compile(r"\x1b\[[0-9;:?]*[A-Za-ln-z]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.italic = self.underline = self.reverse = False

    def copy(self):
        s = Style()
        s.__dict__.update(self.__dict__)
        return s

    def apply(self, params):
        parts = [p for p in re.split(r"[;]", params)] if params else ["0"]
        i = 0
        while i < len(parts):
            p = parts[i]
            if ":" in p:  # 38:2::r:g:b, 4:3 (undercurl) …
                sub = [x for x in p.split(":")]
                if sub[0] in ("38", "48", "58"):
                    vals = [int(x) for x in sub[1:] if x != ""]
                    color = None
                    if vals and vals[0] == 2 and len(vals) >= 4:
                        color = tuple(vals[-3:])
                    elif vals and vals[0] == 5 and len(vals) >= 2:
                        color = palette(vals[1])
                    if sub[0] == "38":
                        self.fg = color
                    elif sub[0] == "48":
                        self.bg = color
                elif sub[0] == "4":
                    self.underline = sub[1] != "0"
                i += 1
                continue
            n = int(p) if p else 0
            if n == 0:
                self.reset()
            elif n == 1:
                self.bold = True
            elif n == 3:
                self.italic = True
            elif n == 4:
                self.underline = True
            elif n == 7:
                self.reverse = True
            elif n == 22:
                self.bold = False
            elif n == 23:
                self.italic = False
            elif n == 24:
                self.underline = False
            elif n == 27:
                self.reverse = False
            elif 30 <= n <= 37:
                self.fg = palette(n - 30)
            elif 90 <= n <= 97:
                self.fg = palette(n - 90 + 8)
            elif n == 39:
                self.fg = None
            elif 40 <= n <= 47:
                self.bg = palette(n - 40)
            elif 100 <= n <= 107:
                self.bg = palette(n - 100 + 8)
            elif n == 49:
                self.bg = None
            elif n in (38, 48, 58) and i + 1 < len(parts):
                mode = parts[i + 1]
                color = None
                if mode == "5" and i + 2 < len(parts):
                    color = palette(int(parts[i + 2]))
                    i += 2
                elif mode == "2" and i + 4 < len(parts):
                    color = (int(parts[i + 2]), int(parts[i + 3]), int(parts[i + 4]))
                    i += 4
                if n == 38:
                    self.fg = color
                elif n == 48:
                    self.bg = color
            i += 1


def parse(text):
    """[[(char, Style)]] per line."""
    rows = []
    style = Style()
    for line in text.split("\n"):
        cells = []
        pos = 0
        line = OTHER_ESC.sub("", line)
        for m in SGR.finditer(line):
            for ch in line[pos:m.start()]:
                cells.append((ch, style.copy()))
            style.apply(m.group(1))
            pos = m.end()
        for ch in line[pos:]:
            cells.append((ch, style.copy()))
        rows.append(cells)
    while rows and not rows[-1]:
        rows.pop()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("screen")
    ap.add_argument("out")
    ap.add_argument("--font", default="/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
    ap.add_argument("--bold-font", default="/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf")
    ap.add_argument("--italic-font", default="/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Oblique.ttf")
    ap.add_argument("--size", type=int, default=16)
    ap.add_argument("--cols", type=int, default=0, help="width in cells (default: the widest line)")
    ap.add_argument("--bg", default="", help="default background, #rrggbb")
    ap.add_argument("--fg", default="", help="default foreground, #rrggbb")
    args = ap.parse_args()

    hexrgb = lambda s: tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))
    default_bg = hexrgb(args.bg) if args.bg else DEFAULT_BG
    default_fg = hexrgb(args.fg) if args.fg else DEFAULT_FG

    with open(args.screen, encoding="utf-8") as f:
        rows = parse(f.read())
    if not args.bg:
        # The application's own background (e.g. a colour scheme's Normal) is the most
        # common one; tmux leaves it out of the trailing blanks of a line.
        counts = {}
        for row in rows:
            for _, st in row:
                if st.bg and not st.reverse:
                    counts[st.bg] = counts.get(st.bg, 0) + 1
        if counts:
            default_bg = max(counts, key=counts.get)
    fonts = {
        (False, False): ImageFont.truetype(args.font, args.size),
        (True, False): ImageFont.truetype(args.bold_font, args.size),
        (False, True): ImageFont.truetype(args.italic_font, args.size),
        (True, True): ImageFont.truetype(args.bold_font, args.size),
    }
    regular = fonts[(False, False)]
    cw = round(regular.getlength("M"))
    ascent, descent = regular.getmetrics()
    ch = ascent + descent + 3
    cols = args.cols or max(len(r) for r in rows)
    pad = 10
    img = Image.new("RGB", (cols * cw + 2 * pad, len(rows) * ch + 2 * pad), default_bg)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(rows):
        for x, (char, st) in enumerate(row):
            fg = st.fg or default_fg
            bg = st.bg or default_bg
            if st.reverse:
                fg, bg = bg, fg
            x0, y0 = pad + x * cw, pad + y * ch
            if bg != default_bg:
                draw.rectangle([x0, y0, x0 + cw - 1, y0 + ch - 1], fill=bg)
            if char != " ":
                draw.text((x0, y0 + 1), char, font=fonts[(st.bold, st.italic)], fill=fg)
            if st.underline:
                draw.line([x0, y0 + ch - 2, x0 + cw - 1, y0 + ch - 2], fill=fg)
    img.save(args.out)


if __name__ == "__main__":
    main()
