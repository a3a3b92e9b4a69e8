"""Files on disk other than the project: every export's write (``safe_write``),
the record of the files reviewer wrote (``written``), confinement of the files
an import names (``confine``), and photos read at import with their stored
previews (``images``, ``previews``).
"""
