"""Markdown renderings keep untrusted text inert."""

import pytest

from reviewer.core.tables import markdown_table, md_text


def test_html_in_untrusted_text_is_escaped():
    # backslash escapes, never HTML entities: the source reads as written
    assert md_text("<script>alert(1)</script> & co") == "\\<script\\>alert(1)\\</script\\> \\& co"
    assert md_text("coverage < 70 % and > 2") == "coverage \\< 70 % and \\> 2"
    table = markdown_table(["judge"], [["<b>x</b>|y\nz"]])
    assert "<b>" not in table and "&" not in table and "\\<b\\>x\\</b\\>\\|y z" in table
    assert md_text("tarot_coherence") == "tarot_coherence" and md_text("_x_ *y*") == "\\_x\\_ \\*y\\*"
    assert md_text("# title") == "\\# title" and md_text("12. x") == "12\\. x"
    assert markdown_table(["a"], [["-"]]).endswith("| - |")  # a cell never starts a line


def test_markdown_renders_untrusted_text_literally():
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")
    for text in [
        "<script>alert(1)</script>",
        "a > b < c",
        "&gt; &amp; &#60;",
        "[x](javascript:alert(1))",
        "`code` *em* _em_ ~~s~~ **b**",
        "# h",
        "- item",
        "1. one",
        "> quote",
        "back\\slash \\*",
        "<http://x.example>",
        "a|b",
        "![i](http://x.example/i.png)",
    ]:
        html = md.render(f"- {md_text(text)}\n")
        inner = html.replace("<ul>", "").replace("</ul>", "").replace("<li>", "").replace("</li>", "").strip()
        import html as h

        assert h.unescape(inner) == text, (text, html)
        table = md.render(markdown_table(["h"], [[text]]))
        assert "<script" not in table and "<a " not in table and "<em>" not in table and "<img" not in table
    # hidden characters are shown as '<U+...>', which renders as that text
    assert md.render(md_text("photo\u202egnp <b>")) == "<p>photo&lt;U+202E&gt;gnp &lt;b&gt;</p>\n"
