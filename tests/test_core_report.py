"""Markdown renderings keep untrusted text inert."""

from reviewer.core.cards.report import markdown_table, md_text


def test_html_in_untrusted_text_is_escaped():
    assert md_text("<script>alert(1)</script> & co") == "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co"
    table = markdown_table(["judge"], [["<b>x</b>|y\nz"]])
    assert "<b>" not in table and "&lt;b&gt;x&lt;/b&gt;\\|y z" in table
