"""Secrets in sessions: found (``pitui check --secrets``, the header's badge, ``w``) and
masked in what leaves the machine (every export's ``--redact``, ``x``).

``patterns.py`` says what a secret looks like in one string, ``scan.py`` finds them in a
file with where each sits, ``redact.py`` replaces them by placeholders in an export.
"""
