#!/usr/bin/env python3
"""Subsets a CJK font for the page: the CJK characters the given source files use (the Chinese
strings) plus the common Chinese characters (GB2312 level 1, the 3,755 most frequent hanzi, for
names from model files), CJK punctuation and full-width forms. The page loads the result only
when it needs it (Chinese chosen, or a CJK name to draw), so the English page does not grow.

usage: subset_cjk_font.py FONT.ttc OUT.ttf [SOURCE_FILE ...]
       subset_cjk_font.py FONT.ttc OUT.ttf --text TEXT   (only the characters of TEXT: the
       language switch's "中文", embedded in the page so it reads before the subset is fetched)
"""
import sys

from fontTools import subset
from fontTools.ttLib import TTFont


def is_cjk(cp):
    return 0x2E80 <= cp <= 0x9FFF or 0xAC00 <= cp <= 0xD7AF or 0xF900 <= cp <= 0xFAFF or 0xFF00 <= cp <= 0xFFEF


def gb2312_level1():
    # Rows 16-55 of GB2312 (bytes 0xB0-0xD7, 94 cells each) hold level 1, in pinyin order.
    chars = set()
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(ord(bytes([hi, lo]).decode("gb2312")))
            except UnicodeDecodeError:
                pass   # the last row ends early
    return chars


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    font_path, out_path, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sources[:1] == ["--text"]:
        wanted = {ord(c) for c in "".join(sources[1:])}
        sources = []
    else:
        wanted = gb2312_level1() | set(range(0x3000, 0x3040)) | set(range(0xFF01, 0xFF5F))
    for path in sources:
        with open(path, encoding="utf-8", errors="replace") as f:
            wanted |= {ord(c) for c in f.read() if is_cjk(ord(c))}
    font = TTFont(font_path, fontNumber=0)
    options = subset.Options()
    options.hinting = False          # the page rasterises with stb_truetype, which ignores hints
    options.desubroutinize = True
    options.name_IDs = ["*"]         # keep the font's names and its licence notice
    options.notdef_outline = True    # a character outside the subset draws a visible box
    options.layout_features = []     # no vertical forms or ligatures: stb_truetype draws the cmap glyphs only
    sub = subset.Subsetter(options)
    sub.populate(unicodes=sorted(wanted))
    sub.subset(font)
    font.save(out_path)
    print(f"subset_cjk_font: {len(wanted)} characters wanted, {len(font.getGlyphOrder())} glyphs in {out_path}")


if __name__ == "__main__":
    main()
