"""The project file itself: the connection and its transactions (``db``),
the migrations (``schema``), recognising a file without writing to it
(``recognise``) and the window's writes that wait for the project
(``writes``).
"""
